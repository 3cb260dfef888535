/**
 * The epoch cache: decoded units kept across loaders, so epochs after the first, the next trial of
 * a sweep and the next run on the same table version read no table bytes. One per JS realm (the
 * page, a rank worker, a Node process); loader workers do not cache (the loader's thread does).
 *
 * Two tiers, each least-recently-used first out:
 * - memory: the decoded units themselves, within `memoryBytes`;
 * - a spill store within `spillBytes`: the Origin Private File System in a page or worker, a folder
 *   in Node once installed with setSpillStore (src/cli/unit-cache-folder.ts). Every stored unit is
 *   also written there in the background (unit-cache-codec.ts), so a unit evicted from memory, or
 *   one stored by an earlier page load or process, is found there and promoted back to memory.
 *
 * Keys (unitCacheKeys) name the table (its URL without query or user info; a share by its
 * coordinates), the version, the file (log path, size, the validator the planner saw, a share's
 * file id), the unit's rows (row group, range, a digest of its live rows: deletion vector and
 * filter) and what was decoded (each column's source and encoding, ids). The row keys a loader
 * decodes for a split (row-key columns, hashed) are the entry's `rowKeys`, not part of its key: a
 * unit stored with row keys also serves a loader that wants none (its keys left out), so a run's
 * keyed statistics pass fills the cache its unkeyed validation pass and epochs read; a loader that
 * wants row keys is served only an entry with the same ones, and its unit replaces the entry. Never a
 * signed URL, never a credential: a spill file holds only its key and the unit's typed arrays.
 */
import { Digest } from './digest.ts'
import { decodeUnit, encodeUnit, UNIT_CODEC_VERSION } from './unit-cache-codec.ts'
import { keyColumnResolver, resolveColumns, type ColumnSource } from './unit-columns.ts'
import type { DecodeSpec, DecodedColumn, DecodedUnit, ScanPlan } from './types.ts'
import { unitBytes } from './batcher.ts'
import { ownsBuffer } from '../util/typed.ts'

export interface UnitCacheSettings {
  /** false: loaders neither read nor write the cache (--no-cache, the page's switch). Default true. */
  enabled: boolean
  /** Most bytes of decoded units held in memory, LRU. Default 512 MiB. */
  memoryBytes: number
  /** Most bytes on the spill store (OPFS in the page, a folder in Node); 0 = no spill. Default 2 GiB. */
  spillBytes: number
}

export interface UnitCacheUsage {
  entries: number
  memoryBytes: number
  spilledEntries: number
  spillBytes: number
  hits: number
  misses: number
  evictions: number
}

/** One entry file of a spill store. */
export interface SpillEntry {
  name: string
  bytes: number
  /** Last write or use, ms since the epoch (orders the LRU after a reload). */
  usedAt: number
}

/**
 * Where entries go that memory does not hold: a flat set of named byte files. Names are
 * `<16 hex>-<16 hex>.unit` (digests of the file's and the entry's key).
 */
export interface SpillStore {
  /** In words, for messages ("OPFS", "folder /…"). */
  readonly label: string
  list(): Promise<SpillEntry[]>
  /** The entry's bytes (starting at an 8-byte aligned offset of their buffer), or undefined when absent. */
  read(name: string): Promise<Uint8Array | undefined>
  /** Writes the entry whole (a reader never sees half of it). */
  write(name: string, bytes: Uint8Array): Promise<void>
  /** Marks the entry used now (optional: keeps the LRU order across reloads). */
  touch?(name: string): Promise<void>
  remove(name: string): Promise<void>
  /** Removes every entry. */
  clear(): Promise<void>
}

/** What identifies one cached unit, and the names derived from it. */
export interface UnitKey {
  /** The key without the row-key part (written inside the spill file and compared on read). */
  key: string
  /** The row-key part (row-key columns' sources): present when the loader decodes row keys. */
  rowKeys?: string
  /** The file's part of the key: a changed file drops every entry with it. */
  file: string
  /** The spill file's name. */
  name: string
}

export const DEFAULT_UNIT_CACHE: Readonly<UnitCacheSettings> = {
  enabled: true,
  memoryBytes: 512 * 2 ** 20,
  spillBytes: 2 * 2 ** 30,
}

interface MemoryEntry {
  unit: DecodedUnit
  bytes: number
  file: string
  /** The row-key part the unit's keys were made with (absent: the unit has no keys). */
  rowKeys?: string
}

interface SpilledEntry {
  bytes: number
  /** Digest of the file part of the key (the name's prefix). */
  file: string
}

let settings: UnitCacheSettings = { ...DEFAULT_UNIT_CACHE }
/** Map order is LRU order: first = least recently used. */
const memory = new Map<string, MemoryEntry>()
let memoryUsed = 0
/** The spill store's entries by name, LRU order; undefined until listed (first use in this realm). */
let spilled: Map<string, SpilledEntry> | undefined
let spillListing: Promise<Map<string, SpilledEntry>> | undefined
let spillUsed = 0
let store: SpillStore | undefined | null = null // null: not yet chosen (the page's OPFS by default)
const writing = new Map<string, Promise<void>>()
/** Spill writes, evictions and drops, one at a time (each reads and changes the index and its byte count). */
let spillQueue: Promise<unknown> = Promise.resolve()
const counts = { hits: 0, misses: 0, evictions: 0 }

/** Changes the settings (the rest stay); lower budgets evict at once. RangeError naming a bad field. */
export function configureUnitCache(changes: Partial<UnitCacheSettings>): void {
  const next = { ...settings }
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue
    if (field === 'enabled') {
      if (typeof value !== 'boolean') throw new RangeError(`unit cache: enabled must be true or false, got ${value}`)
      next.enabled = value
    } else if (field === 'memoryBytes' || field === 'spillBytes') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
        throw new RangeError(`unit cache: ${field} must be an integer number of bytes ≥ 0, got ${value}`)
      next[field] = value
    } else throw new RangeError(`unit cache: unknown setting '${field}' (enabled, memoryBytes, spillBytes)`)
  }
  settings = next
  evictMemory(0)
  if (spilled) void queued(() => evictSpill(0))
}

export function unitCacheSettings(): UnitCacheSettings {
  return { ...settings }
}

/** Entries and bytes of both tiers, and the realm's hit/miss/eviction counts (after pending writes). */
export async function unitCacheUsage(): Promise<UnitCacheUsage> {
  await flushUnitCache()
  const spill = await spillIndex()
  return {
    entries: memory.size,
    memoryBytes: memoryUsed,
    spilledEntries: spill?.size ?? 0,
    spillBytes: spillUsed,
    ...counts,
  }
}

/** Empties memory and the spill store (every entry of it, also those of earlier loads); counts restart at 0. */
export async function clearUnitCache(): Promise<void> {
  memory.clear()
  memoryUsed = 0
  counts.hits = counts.misses = counts.evictions = 0
  await queued(async () => {
    const s = spillStore()
    if (s) await s.clear()
    spilled = s ? new Map() : undefined
    spillListing = undefined
    spillUsed = 0
  })
}

/**
 * Installs the spill store of this realm (Node: the cache folder; undefined: none). The page's
 * default is OPFS where `navigator.storage.getDirectory` exists.
 */
export function setSpillStore(next: SpillStore | undefined): void {
  store = next
  spilled = undefined
  spillListing = undefined
  spillUsed = 0
}

/** The spill store in use (undefined: none). */
export function spillStore(): SpillStore | undefined {
  if (store === null) store = defaultSpillStore()
  return store
}

/** Waits for the spill writes in flight (tests, usage, clear). */
export async function flushUnitCache(): Promise<void> {
  for (let last: Promise<unknown> | undefined; last !== spillQueue; ) {
    last = spillQueue
    await last
  }
}

/**
 * Test hook: forgets the memory tier and the spill index, as a page reload would; the spill store
 * keeps its entries and is listed again on next use.
 */
export async function dropUnitCacheMemory(): Promise<void> {
  await flushUnitCache()
  memory.clear()
  memoryUsed = 0
  spilled = undefined
  spillListing = undefined
  spillUsed = 0
}

/**
 * The unit stored under `k` (memory first, then the spill store, whence it is promoted), or
 * undefined. An entry with row keys serves a request without (keys left out); a request with row
 * keys is served only the same ones.
 */
export async function cachedUnit(k: UnitKey, unitId: number): Promise<DecodedUnit | undefined> {
  const held = memory.get(k.key)
  if (held && serves(held.rowKeys, k)) {
    memory.delete(k.key)
    memory.set(k.key, held) // most recently used
    counts.hits++
    return served(held.unit, k, unitId)
  }
  const found = await fromSpill(k, unitId) // also when memory holds other row keys: the store may not
  if (!found) {
    counts.misses++
    return undefined
  }
  counts.hits++
  holdInMemory({ ...k, rowKeys: found.rowKeys }, found.unit, unitBytes(found.unit)) // the keys it has
  return served(found.unit, k, unitId)
}

/** Whether an entry stored with `rowKeys` serves the request `k`. */
function serves(rowKeys: string | undefined, k: UnitKey): boolean {
  return k.rowKeys === undefined || k.rowKeys === rowKeys
}

/** The entry's unit as request `k` wants it: its id, no read timing, row keys only when asked for. */
function served(unit: DecodedUnit, k: UnitKey, unitId: number): DecodedUnit {
  const out: DecodedUnit = { ...unit, unitId, timing: { fetchMs: 0, decodeMs: 0, bytes: 0 } }
  if (k.rowKeys === undefined) delete out.keys
  return out
}

/**
 * Stores a freshly read unit: in memory within the budget, and on the spill store (in the
 * background). Returns the unit as stored (arrays that were views on larger buffers copied out),
 * which the caller should hold instead of `unit`, so the bytes are not held twice.
 */
export function storeUnit(k: UnitKey, unit: DecodedUnit): DecodedUnit {
  const kept = compact(unit)
  const bytes = unitBytes(kept)
  holdInMemory(k, kept, bytes)
  if (settings.spillBytes > 0 && spillStore()) spillWrite(k, kept)
  return { ...kept, timing: unit.timing }
}

/** Drops every entry of the file `file` (UnitKey.file) from both tiers: it changed since it was stored. */
export async function dropCachedFile(file: string): Promise<void> {
  for (const [key, entry] of memory) {
    if (entry.file === file) {
      memory.delete(key)
      memoryUsed -= entry.bytes
    }
  }
  await queued(async () => {
    const s = spillStore()
    const index = await spillIndex()
    if (!s || !index) return
    const prefix = `${fileDigest(file)}-`
    for (const [name, entry] of [...index]) {
      if (!name.startsWith(prefix) || !index.delete(name)) continue
      spillUsed -= entry.bytes
      await s.remove(name).catch(() => {})
    }
  })
}

/** Runs `job` after every spill job queued before it. */
function queued<T>(job: () => Promise<T>): Promise<T> {
  const run = spillQueue.then(job, job)
  spillQueue = run.catch(() => {})
  return run
}

/**
 * Keys of a plan's units as a loader with `spec` decodes them (row ids never: loaders gather
 * identities from the plan). Columns are resolved per file as the unit reader resolves them, so
 * a file whose column is missing or mapped differently has another key.
 */
export function unitCacheKeys(plan: ScanPlan, spec: DecodeSpec): (unitId: number) => UnitKey {
  const files = new Map<number, { file: string; decode: string; rowKeys?: string }>()
  const resolveKeys = keyColumnResolver(plan)
  const table = plan.share
    ? ['share', withoutSecrets(plan.share.endpoint), plan.share.share, plan.share.schema, plan.share.table]
    : ['table', withoutSecrets(plan.tableUrl)]
  function fileOf(index: number): { file: string; decode: string; rowKeys?: string } {
    let known = files.get(index)
    if (!known) {
      const f = plan.files[index]
      const path = plan.share ? f.path : withoutSecrets(f.path)
      const v = f.validator ?? {}
      const file = JSON.stringify([
        UNIT_CODEC_VERSION,
        ...table,
        plan.version,
        path,
        f.size,
        v.etag ?? null,
        v.lastModified ?? null,
        plan.share?.fileIds[f.path] ?? null,
      ])
      const sources: ColumnSource[] = resolveColumns(plan, f, spec)
      const decode = stringify(sources)
      const rowKeys = plan.rowKey && stringify([resolveKeys(f), plan.rowKey])
      files.set(index, (known = { file, decode, ...(rowKeys !== undefined ? { rowKeys } : {}) }))
    }
    return known
  }
  return unitId => {
    const unit = plan.units[unitId]
    const { file, decode, rowKeys } = fileOf(unit.fileIndex)
    const live = new Digest()
    live.word(unit.liveRows)
    if (unit.live) for (const row of unit.live) live.word(row)
    const key = `${file}|${unit.rowGroup}:${unit.rowStart}-${unit.rowEnd}:${live.hex()}|${decode}|ids:0`
    const name = `${fileDigest(file)}-${new Digest().text(key).hex()}.unit`
    return rowKeys !== undefined ? { key, rowKeys, file, name } : { key, file, name }
  }
}

/** A URL (or path) without query, fragment or user info: what no signature or password is part of. */
function withoutSecrets(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    u.search = ''
    u.hash = ''
    return u.href
  } catch {
    return url.replace(/[?#].*$/s, '')
  }
}

/** JSON that also writes bigints (partition values of long columns). */
function stringify(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))
}

function fileDigest(file: string): string {
  return new Digest().text(file).hex()
}

/** The unit with each array in a buffer of its own size (a view keeps its whole buffer alive). */
function compact(unit: DecodedUnit): DecodedUnit {
  const own = <T extends DecodedColumn['values']>(a: T): T => (ownsBuffer(a) ? a : (a.slice() as T))
  const columns: Record<string, DecodedColumn> = {}
  for (const [name, c] of Object.entries(unit.columns)) {
    columns[name] = { ...c, values: own(c.values), ...(c.offsets ? { offsets: own(c.offsets) } : {}) }
  }
  const out: DecodedUnit = {
    unitId: unit.unitId,
    rows: unit.rows,
    columns,
    timing: { fetchMs: 0, decodeMs: 0, bytes: 0 },
  }
  if (unit.rowIds) out.rowIds = own(unit.rowIds)
  if (unit.keys) out.keys = own(unit.keys)
  return out
}

/** Holds `unit` in memory under `k` (its rowKeys: the row keys the unit carries). */
function holdInMemory(k: UnitKey, unit: DecodedUnit, bytes: number): void {
  const old = memory.get(k.key)
  if (old) {
    memory.delete(k.key)
    memoryUsed -= old.bytes
  }
  if (bytes > settings.memoryBytes) return // only the spill store can hold it
  evictMemory(bytes)
  memory.set(k.key, { unit, bytes, file: k.file, ...(k.rowKeys !== undefined ? { rowKeys: k.rowKeys } : {}) })
  memoryUsed += bytes
}

/** Evicts least recently used units until `room` more bytes fit the memory budget. */
function evictMemory(room: number): void {
  for (const [key, entry] of memory) {
    if (memoryUsed + room <= settings.memoryBytes) break
    memory.delete(key)
    memoryUsed -= entry.bytes
    counts.evictions++
  }
}

/** The spill index, listed from the store on first use in this realm (LRU: oldest use first). */
async function spillIndex(): Promise<Map<string, SpilledEntry> | undefined> {
  const s = spillStore()
  if (!s) return undefined
  if (spilled) return spilled
  spillListing ??= s.list().then(
    list => {
      const index = new Map<string, SpilledEntry>()
      let used = 0
      for (const e of list
        .filter(e => /^[0-9a-f]{16}-[0-9a-f]{16}\.unit$/.test(e.name))
        .sort((a, b) => a.usedAt - b.usedAt)) {
        index.set(e.name, { bytes: e.bytes, file: e.name.slice(0, 16) })
        used += e.bytes
      }
      if (store === s && spillListing) {
        spilled = index
        spillUsed = used
      }
      return index
    },
    () => new Map<string, SpilledEntry>(), // an unreadable store holds nothing
  )
  return spillListing
}

async function fromSpill(k: UnitKey, unitId: number): Promise<{ unit: DecodedUnit; rowKeys?: string } | undefined> {
  if (settings.spillBytes === 0) return undefined
  const s = spillStore()
  const index = await spillIndex()
  if (!s || !index) return undefined
  await writing.get(k.name)
  if (!index.has(k.name)) return undefined
  const bytes = await s.read(k.name).catch(() => undefined)
  const found = bytes && decodeUnit(bytes, k.key, unitId)
  if (!found) {
    // A collision, a stale (an older codec's) or a damaged file: out of the way of the unit read again.
    void queued(async () => {
      const entry = index.get(k.name)
      if (entry && index.delete(k.name)) spillUsed -= entry.bytes
      await s.remove(k.name).catch(() => {})
    })
    return undefined
  }
  if (!serves(found.rowKeys, k)) return undefined // other row keys than asked for: read again, replaced
  const entry = index.get(k.name)
  if (entry) {
    index.delete(k.name)
    index.set(k.name, entry) // most recently used
    void s.touch?.(k.name).catch(() => {})
  }
  return found
}

function spillWrite(k: UnitKey, unit: DecodedUnit): void {
  const s = spillStore()!
  const job = queued(async () => {
    const index = await spillIndex()
    // A unit without row keys never replaces a stored one (which serves it); one with row keys
    // does (it was stored because the entry there had none, or other ones).
    if (!index || (index.has(k.name) && k.rowKeys === undefined)) return
    const bytes = encodeUnit(k.key, unit, k.rowKeys)
    if (bytes.byteLength > settings.spillBytes) return
    const old = index.get(k.name)
    if (old && index.delete(k.name)) spillUsed -= old.bytes
    await evictSpill(bytes.byteLength)
    index.set(k.name, { bytes: bytes.byteLength, file: k.name.slice(0, 16) })
    spillUsed += bytes.byteLength
    try {
      await s.write(k.name, bytes)
    } catch {
      // A full or unavailable store: the unit stays in memory (or is read again); nothing else to do.
      if (index.delete(k.name)) spillUsed -= bytes.byteLength
    }
  })
  const done = job
    .catch(() => {})
    .finally(() => {
      if (writing.get(k.name) === done) writing.delete(k.name)
    })
  writing.set(k.name, done)
}

/** Removes least recently used spill entries until `room` more bytes fit the spill budget (run queued). */
async function evictSpill(room: number): Promise<void> {
  const s = spillStore()
  const index = await spillIndex()
  if (!s || !index) return
  for (const [name, entry] of [...index]) {
    if (spillUsed + room <= settings.spillBytes) break
    if (!index.delete(name)) continue
    spillUsed -= entry.bytes
    counts.evictions++
    await s.remove(name).catch(() => {})
  }
}

/** OPFS in a page or worker that has it; none elsewhere (Node installs its folder explicitly). */
function defaultSpillStore(): SpillStore | undefined {
  const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage
  if (typeof storage?.getDirectory !== 'function') return undefined
  return opfsStore(storage)
}

/** Folder of the cache in OPFS. */
const OPFS_FOLDER = 'snaptrain-units'

/** The spill store on the Origin Private File System (page and workers; shared by the origin's realms). */
export function opfsStore(storage: StorageManager, folder = OPFS_FOLDER): SpillStore {
  let dir: Promise<FileSystemDirectoryHandle> | undefined
  const root = () => (dir ??= storage.getDirectory().then(r => r.getDirectoryHandle(folder, { create: true })))
  return {
    label: `OPFS ${folder}/`,
    async list() {
      const out: SpillEntry[] = []
      // entries() is in every browser with OPFS; TypeScript's DOM types lack it.
      const it = (await root()) as unknown as { values(): AsyncIterable<FileSystemHandle> }
      for await (const handle of it.values()) {
        if (handle.kind !== 'file') continue
        const file = await (handle as FileSystemFileHandle).getFile()
        out.push({ name: handle.name, bytes: file.size, usedAt: file.lastModified })
      }
      return out
    },
    async read(name) {
      try {
        const file = await (await (await root()).getFileHandle(name)).getFile()
        return new Uint8Array(await file.arrayBuffer())
      } catch (e) {
        if ((e as DOMException)?.name === 'NotFoundError') return undefined
        throw e
      }
    },
    async write(name, bytes) {
      const handle = await (await root()).getFileHandle(name, { create: true })
      const w = await handle.createWritable()
      try {
        await w.write(bytes as Uint8Array<ArrayBuffer>)
        await w.close()
      } catch (e) {
        await w.abort().catch(() => {})
        throw e
      }
    },
    async remove(name) {
      await (await root()).removeEntry(name).catch(e => {
        if ((e as DOMException)?.name !== 'NotFoundError') throw e
      })
    },
    async clear() {
      const r = await storage.getDirectory()
      await r.removeEntry(folder, { recursive: true }).catch(e => {
        if ((e as DOMException)?.name !== 'NotFoundError') throw e
      })
      dir = undefined
    },
  }
}
