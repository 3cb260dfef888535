/**
 * The epoch cache (src/data/unit-cache.ts) under in-process loaders over the fake fetch: cached
 * epochs deliver the uncached epochs' batches byte for byte (seeded, sharded, resumed, deletion
 * vectors, row keys), read no table bytes, hold their budgets in LRU order, spill to the Node
 * folder store and back, never serve a replaced file, and keep no secret in keys or files.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createLoader, type LoaderOptions } from '../../../src/data/loader.ts'
import {
  cachedUnit,
  clearUnitCache,
  configureUnitCache,
  DEFAULT_UNIT_CACHE,
  dropUnitCacheMemory,
  flushUnitCache,
  setSpillStore,
  storeUnit,
  unitCacheKeys,
  unitCacheSettings,
  unitCacheUsage,
  type UnitKey,
} from '../../../src/data/unit-cache.ts'
import { decodeUnit, encodeUnit } from '../../../src/data/unit-cache-codec.ts'
import { folderStore } from '../../../src/cli/unit-cache-folder.ts'
import type { Batch, DecodeSpec, DecodedUnit, LoaderStats, ScanPlan } from '../../../src/data/types.ts'
import { fileFetch, type FileFetch } from '../../support/file-fetch.ts'
import { CLICKS, GOLDEN, openFixture, type Fixture } from './loader-fixtures.ts'

const SPEC: DecodeSpec = { user_id: 'hash32', item_id: 'hash32' }
const COLUMNS = ['user_id', 'item_id', 'country', 'dense_2', 'emb', 'label']

interface Epoch {
  batches: Batch[]
  stats: LoaderStats
  /** Requests the fake server saw during the epoch. */
  requests: { method: string; range?: string }[]
}

async function epoch(plan: ScanPlan, fetch: FileFetch, opts: Partial<LoaderOptions> = {}): Promise<Epoch> {
  const seen = fetch.requests.length
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 3000,
    spec: SPEC,
    ids: true,
    workers: 0,
    http: { fetch },
    ...opts,
  })
  const batches: Batch[] = []
  for await (const batch of loader.batches()) batches.push(batch)
  await loader.close()
  return { batches, stats: loader.stats(), requests: fetch.requests.slice(seen) }
}

/** The bytes of every typed array of `batches`, in order, with the names that hold them. */
function batchBytes(batches: Batch[]): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = []
  const add = (what: string, a: ArrayBufferView | undefined) =>
    a && out.push([what, new Uint8Array(a.buffer, a.byteOffset, a.byteLength)])
  batches.forEach((b, i) => {
    out.push([`${i}.size`, Uint8Array.of(b.size, b.position, b.epoch)])
    for (const [name, c] of Object.entries(b.columns)) {
      add(`${i}.${name}.values`, c.values)
      add(`${i}.${name}.offsets`, c.offsets)
    }
    add(`${i}.ids.unit`, b.ids?.unit)
    add(`${i}.ids.row`, b.ids?.row)
    add(`${i}.keys`, b.keys)
  })
  return out
}

function expectIdentical(got: Batch[], want: Batch[]): void {
  const a = batchBytes(got)
  const b = batchBytes(want)
  expect(a.map(([k]) => k)).toEqual(b.map(([k]) => k))
  expect(want.length).toBeGreaterThan(0)
  for (let i = 0; i < a.length; i++) {
    const same = a[i][1].length === b[i][1].length && Buffer.compare(a[i][1], b[i][1]) === 0
    expect(same, `${a[i][0]} differs`).toBe(true)
  }
}

const dirs: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'unit-cache-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

beforeEach(async () => {
  setSpillStore(undefined)
  configureUnitCache({ ...DEFAULT_UNIT_CACHE })
  await clearUnitCache()
})
afterEach(async () => {
  await flushUnitCache()
  setSpillStore(undefined)
  configureUnitCache({ ...DEFAULT_UNIT_CACHE })
  await clearUnitCache()
})

describe('epoch cache on clicks (in-process loaders)', () => {
  let fx: Fixture
  let fetch: FileFetch
  beforeAll(async () => {
    fx = await openFixture(CLICKS, COLUMNS, false, 20_000)
    fetch = fx.fetch as FileFetch
  }, 60_000)

  const ASSIGNS = [
    {
      name: 'seeded, 2 ranks, drop_last, rank 1',
      assign: { seed: 5, epoch: 1, worldSize: 2, rank: 1, shuffleBuffer: 5000 },
    },
    {
      name: 'seeded, 3 ranks, pad, rank 2',
      assign: { seed: 8, epoch: 0, worldSize: 3, rank: 2, shuffleBuffer: 20_000, mode: 'pad' as const },
    },
  ]
  it.each(ASSIGNS)(
    '$name: cached epochs equal the uncached one byte for byte, reading 0 table bytes',
    async ({ assign }) => {
      const plain = await epoch(fx.plan, fetch, { assign, cache: false })
      const first = await epoch(fx.plan, fetch, { assign })
      const second = await epoch(fx.plan, fetch, { assign })
      expectIdentical(first.batches, plain.batches)
      expectIdentical(second.batches, plain.batches)
      expect(plain.stats.cacheHits + plain.stats.cacheMisses).toBe(0)
      expect(first.stats.cacheHits).toBe(0)
      expect(first.stats.cacheMisses).toBe(first.stats.unitsRead)
      expect(second.stats.cacheMisses).toBe(0)
      expect(second.stats.cacheHits).toBe(second.stats.unitsRead)
      expect(second.stats.bytesFetched).toBe(0)
      expect(second.stats.bytesFromCache).toBeGreaterThan(0)
      // One 2-byte revalidation per file read, nothing else.
      const files = new Set(
        fx.plan.units.filter(u => second.batches.some(b => b.ids!.unit.includes(u.id))).map(u => u.fileIndex),
      )
      expect(second.stats.revalidations).toBe(files.size)
      expect(second.requests).toHaveLength(files.size)
      expect(second.requests.every(r => r.method === 'GET' && r.range === 'bytes=0-1')).toBe(true)
    },
  )

  it('resumed from a cursor mid-epoch, cached, delivers exactly the uninterrupted rows', async () => {
    const assign = { seed: 3, epoch: 2, worldSize: 2, rank: 0, shuffleBuffer: 8000 }
    const whole = await epoch(fx.plan, fetch, { assign, cache: false })
    // A first run stops after 7 batches (filling part of the cache) and hands on its cursor.
    const loader = createLoader(fx.plan, {
      assign,
      batchSize: 3000,
      spec: SPEC,
      ids: true,
      workers: 0,
      http: { fetch },
    })
    const head: Batch[] = []
    for await (const batch of loader.batches()) if (head.push(batch) === 7) break
    const cursor = loader.cursor()
    await loader.close()
    // Units read ahead and not taken before the stop are neither hits nor misses.
    const stopped = loader.stats()
    expect(stopped.cacheMisses).toBe(stopped.unitsRead)
    const rest = await epoch(fx.plan, fetch, { cursor })
    expect(rest.stats.cacheHits).toBeGreaterThan(0)
    expect(rest.stats.cacheHits + rest.stats.cacheMisses).toBe(rest.stats.unitsRead)
    expectIdentical([...head, ...rest.batches], whole.batches)
    const again = await epoch(fx.plan, fetch, { cursor })
    expect(again.stats.cacheMisses).toBe(0)
    expectIdentical(again.batches, rest.batches)
  })

  const keyedBy = (name: string): ScanPlan => ({
    ...fx.plan,
    rowKey: [fx.plan.schema!.fields.find(f => f.name === name)!],
  })

  it('a split row key: cached units keep their keys, and serve a loader without keys', async () => {
    const plan = keyedBy('user_id')
    const assign = { seed: 11, epoch: 0, worldSize: 1, rank: 0 }
    const plain = await epoch(plan, fetch, { assign, cache: false })
    const plainWithout = await epoch(fx.plan, fetch, { assign, cache: false })
    await epoch(plan, fetch, { assign })
    const cached = await epoch(plan, fetch, { assign })
    expect(plain.batches[0].keys).toBeInstanceOf(Uint32Array)
    expect(cached.stats.cacheMisses).toBe(0)
    expectIdentical(cached.batches, plain.batches)
    // The same rows without row keys (a run's validation pass and epochs after its keyed
    // statistics pass): served from the keyed entries, without their keys.
    const without = await epoch(fx.plan, fetch, { assign })
    expect(without.stats.cacheMisses).toBe(0)
    expect(without.stats.bytesFetched).toBe(0)
    expect(without.batches.every(b => b.keys === undefined)).toBe(true)
    expectIdentical(without.batches, plainWithout.batches)
  }, 60_000)

  it('other row-key columns: misses, and their units replace the entries', async () => {
    const assign = { seed: 11, epoch: 0, worldSize: 1, rank: 0 }
    await epoch(keyedBy('user_id'), fetch, { assign })
    const other = await epoch(keyedBy('item_id'), fetch, { assign })
    expect(other.stats.cacheHits).toBe(0)
    expect(other.stats.cacheMisses).toBe(other.stats.unitsRead)
    expect((await epoch(keyedBy('item_id'), fetch, { assign })).stats.cacheMisses).toBe(0)
    expect((await epoch(keyedBy('user_id'), fetch, { assign })).stats.cacheHits).toBe(0)
  }, 60_000)

  it('units stored without row keys: a keyed loader misses and its units replace them (memory and spill)', async () => {
    const dir = tempDir()
    setSpillStore(folderStore(dir))
    const plan = keyedBy('user_id')
    const assign = { seed: 12, epoch: 0, worldSize: 1, rank: 0 }
    const plain = await epoch(plan, fetch, { assign, cache: false })
    const plainWithout = await epoch(fx.plan, fetch, { assign, cache: false })
    const units = fx.plan.units.length
    expect((await epoch(fx.plan, fetch, { assign })).stats.cacheMisses).toBe(units)
    const keyed = await epoch(plan, fetch, { assign })
    expect(keyed.stats.cacheMisses).toBe(units)
    expectIdentical(keyed.batches, plain.batches)
    await flushUnitCache()
    expect(readdirSync(dir)).toHaveLength(units) // one file per unit, the keyed one
    // A "new process": the spill files serve both kinds of loader.
    await dropUnitCacheMemory()
    const fromSpill = await epoch(fx.plan, fetch, { assign })
    expect(fromSpill.stats.cacheMisses).toBe(0)
    expectIdentical(fromSpill.batches, plainWithout.batches)
    await dropUnitCacheMemory()
    const keyedFromSpill = await epoch(plan, fetch, { assign })
    expect(keyedFromSpill.stats.cacheMisses).toBe(0)
    expectIdentical(keyedFromSpill.batches, plain.batches)
    expect((await unitCacheUsage()).spillBytes).toBe(
      readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0),
    )
  }, 60_000)

  it('a damaged or older spill file is a miss, and the unit read again replaces it', async () => {
    const dir = tempDir()
    setSpillStore(folderStore(dir))
    const assign = { seed: 13, epoch: 0, worldSize: 1, rank: 0 }
    await epoch(fx.plan, fetch, { assign })
    await flushUnitCache()
    const names = readdirSync(dir)
    for (const name of names) {
      const bytes = readFileSync(join(dir, name))
      bytes.writeUInt32LE(0, 0) // no unit file (as one of another codec version)
      writeFileSync(join(dir, name), bytes)
    }
    await dropUnitCacheMemory()
    const again = await epoch(fx.plan, fetch, { assign })
    expect(again.stats.cacheMisses).toBe(fx.plan.units.length)
    await dropUnitCacheMemory()
    const fixed = await epoch(fx.plan, fetch, { assign })
    expect(fixed.stats.cacheMisses).toBe(0)
    expectIdentical(fixed.batches, again.batches)
  })

  it('memory budget: usage and every loader held within it, least recently used evicted first', async () => {
    const units = fx.plan.units.length
    const first = await epoch(fx.plan, fetch)
    const perUnit = Math.ceil(first.stats.bytesDelivered / units)
    const budget = 3 * perUnit // about three units
    await clearUnitCache()
    configureUnitCache({ memoryBytes: budget })
    await epoch(fx.plan, fetch)
    const usage = await unitCacheUsage()
    expect(usage.memoryBytes).toBeLessThanOrEqual(budget)
    expect(usage.entries).toBeGreaterThan(0)
    expect(usage.entries).toBeLessThan(units)
    expect(usage.evictions).toBe(units - usage.entries)
    // Units read last in table order are the ones still held.
    const again = await epoch(fx.plan, fetch)
    expect(again.stats.cacheHits).toBe(0) // each was evicted before its turn came (LRU in read order)
  })

  it('LRU order on synthetic entries: a used entry outlives an older unused one', async () => {
    const k = (s: string): UnitKey => ({ key: s, file: 'f', name: `${'0'.repeat(16)}-${s.padStart(16, '0')}.unit` })
    const unit = (): DecodedUnit => ({
      unitId: 0,
      rows: 25,
      columns: { x: { name: 'x', encoding: 'float32', values: new Float32Array(25) } },
      timing: { fetchMs: 0, decodeMs: 0, bytes: 0 },
    })
    configureUnitCache({ memoryBytes: 300, spillBytes: 0 })
    let peak = 0
    for (const s of ['a', 'b', 'c']) {
      storeUnit(k(s), unit())
      peak = Math.max(peak, (await unitCacheUsage()).memoryBytes)
    }
    expect(await cachedUnit(k('a'), 0)).toBeDefined() // a is now the most recently used
    storeUnit(k('d'), unit())
    peak = Math.max(peak, (await unitCacheUsage()).memoryBytes)
    expect(peak).toBeLessThanOrEqual(300)
    expect(await cachedUnit(k('b'), 0)).toBeUndefined()
    for (const s of ['a', 'c', 'd']) expect(await cachedUnit(k(s), 0), s).toBeDefined()
    const usage = await unitCacheUsage()
    expect(usage).toMatchObject({ entries: 3, memoryBytes: 300, evictions: 1 })
  })

  it('row keys on synthetic entries: memory without them, the spill store with them, serves both', async () => {
    setSpillStore(folderStore(tempDir()))
    const name = `${'0'.repeat(16)}-${'1'.repeat(16)}.unit`
    const plain: UnitKey = { key: 'u', file: 'f', name }
    const keyed: UnitKey = { ...plain, rowKeys: 'by user_id' }
    const unit = (keys?: Uint32Array): DecodedUnit => ({
      unitId: 0,
      rows: 2,
      columns: { x: { name: 'x', encoding: 'float32', values: Float32Array.of(1, 2) } },
      ...(keys ? { keys } : {}),
      timing: { fetchMs: 0, decodeMs: 0, bytes: 0 },
    })
    storeUnit(keyed, unit(Uint32Array.of(7, 9)))
    await dropUnitCacheMemory()
    storeUnit(plain, unit()) // memory: no keys; the store keeps the keyed file
    await flushUnitCache()
    expect((await cachedUnit(plain, 3))?.keys).toBeUndefined()
    const hit = await cachedUnit(keyed, 3)
    expect(hit && Array.from(hit.keys!)).toEqual([7, 9])
    expect(await cachedUnit({ ...plain, rowKeys: 'by item_id' }, 3)).toBeUndefined()
    expect(await unitCacheUsage()).toMatchObject({ hits: 2, misses: 1 })
  })

  it('spills to the folder store and reads back the same bytes, within the spill budget', async () => {
    const dir = tempDir()
    setSpillStore(folderStore(dir))
    configureUnitCache({ memoryBytes: 0 }) // every unit only on the spill store
    const assign = { seed: 2, epoch: 0, worldSize: 1, rank: 0 }
    const plain = await epoch(fx.plan, fetch, { assign, cache: false })
    await epoch(fx.plan, fetch, { assign })
    await flushUnitCache()
    const files = readdirSync(dir)
    expect(files).toHaveLength(fx.plan.units.length)
    const spilled = await epoch(fx.plan, fetch, { assign })
    expect(spilled.stats.cacheHits).toBe(fx.plan.units.length)
    expect(spilled.stats.bytesFetched).toBe(0)
    expectIdentical(spilled.batches, plain.batches)
    // A "new process": nothing in memory, the folder listed again.
    await dropUnitCacheMemory()
    configureUnitCache({ memoryBytes: DEFAULT_UNIT_CACHE.memoryBytes })
    const fresh = await epoch(fx.plan, fetch, { assign })
    expect(fresh.stats.cacheHits).toBe(fx.plan.units.length)
    expectIdentical(fresh.batches, plain.batches)
    expect((await unitCacheUsage()).entries).toBe(fx.plan.units.length) // promoted to memory
    // Spill budget: about half the units' files.
    const total = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0)
    await clearUnitCache()
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
    configureUnitCache({ memoryBytes: 0, spillBytes: Math.floor(total / 2) })
    await epoch(fx.plan, fetch, { assign })
    await flushUnitCache()
    const usage = await unitCacheUsage()
    const onDisk = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0)
    expect(usage.spillBytes).toBe(onDisk)
    expect(onDisk).toBeLessThanOrEqual(Math.floor(total / 2))
    expect(usage.spilledEntries).toBeGreaterThan(0)
    expect(usage.spilledEntries).toBeLessThan(fx.plan.units.length)
  })

  it('cache: false and enabled: false bypass the cache', async () => {
    await epoch(fx.plan, fetch)
    const before = await unitCacheUsage()
    const off = await epoch(fx.plan, fetch, { cache: false })
    expect(off.stats).toMatchObject({ cacheHits: 0, cacheMisses: 0, revalidations: 0 })
    expect(off.stats.bytesFetched).toBeGreaterThan(0)
    configureUnitCache({ enabled: false })
    const disabled = await epoch(fx.plan, fetch)
    expect(disabled.stats).toMatchObject({ cacheHits: 0, cacheMisses: 0 })
    expect(disabled.stats.bytesFetched).toBe(off.stats.bytesFetched)
    expect(await unitCacheUsage()).toMatchObject({ hits: before.hits, misses: before.misses, entries: before.entries })
    configureUnitCache({ enabled: true })
    expect((await epoch(fx.plan, fetch)).stats.cacheMisses).toBe(0)
  })

  it("a share's files are not revalidated: epoch 2 sends no request", async () => {
    const fileIds = Object.fromEntries(fx.plan.files.map((f, i) => [f.path, `id-${i}`]))
    const plan: ScanPlan = {
      ...fx.plan,
      share: { endpoint: 'https://sharing.test/api', share: 's', schema: 'd', table: 't', format: 'delta', fileIds },
    }
    await epoch(plan, fetch)
    const second = await epoch(plan, fetch)
    expect(second.stats.cacheHits).toBe(plan.units.length)
    expect(second.stats.revalidations).toBe(0)
    expect(second.requests).toHaveLength(0)
  })

  it('keys and spill files hold no query string, user info or bearer token', async () => {
    const dir = tempDir()
    setSpillStore(folderStore(dir))
    const tableUrl = 'http://reader:hunter2@table.test/?sig=SECRETSIG&X-Amz-Signature=SECRET2'
    const plan: ScanPlan = { ...fx.plan, tableUrl }
    const keys = unitCacheKeys(plan, SPEC)
    const key = keys(0)
    const plainKey = unitCacheKeys(fx.plan, SPEC)(0)
    expect(key.key).toBe(plainKey.key) // the same table whatever signs its URL
    // Other live rows (another deletion vector or filter), another decode or version: another key.
    const u0 = plan.units[0]
    const fewer = {
      ...u0,
      live: Uint32Array.from({ length: u0.liveRows - 1 }, (_, i) => u0.rowStart + i + 1),
      liveRows: u0.liveRows - 1,
    }
    expect(unitCacheKeys({ ...plan, units: [fewer, ...plan.units.slice(1)] }, SPEC)(0).key).not.toBe(key.key)
    expect(unitCacheKeys(plan, { ...SPEC, label: 'float32' })(0).key).not.toBe(key.key)
    expect(unitCacheKeys({ ...plan, version: plan.version + 1 }, SPEC)(0).key).not.toBe(key.key)
    await epoch(fx.plan, fetch, {
      http: { fetch, headers: { Authorization: 'Bearer TOKEN-XYZ' }, allowInsecureHttp: true },
    })
    await flushUnitCache()
    const names = readdirSync(dir)
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) {
      const text = readFileSync(join(dir, name)).toString('latin1')
      for (const secret of ['SECRETSIG', 'SECRET2', 'hunter2', 'reader:', 'TOKEN-XYZ', 'Bearer']) {
        expect(text.includes(secret) || name.includes(secret), `${name} holds ${secret}`).toBe(false)
      }
    }
    for (const secret of ['SECRETSIG', 'SECRET2', 'hunter2', 'TOKEN-XYZ', '?']) expect(key.key).not.toContain(secret)
  })
})

describe('epoch cache: deletion vectors and replaced files', () => {
  it('table-with-dv-large: cached epochs equal uncached ones (deleted rows stay deleted)', async () => {
    const fx = await openFixture(`${GOLDEN}/table-with-dv-large`, undefined, false)
    const fetch = fx.fetch as FileFetch
    expect(fx.plan.units.some(u => u.live)).toBe(true)
    const assign = { seed: 4, epoch: 0, worldSize: 2, rank: 1, mode: 'pad' as const }
    const plain = await epoch(fx.plan, fetch, { assign, cache: false, spec: {} })
    await epoch(fx.plan, fetch, { assign, spec: {} })
    const cached = await epoch(fx.plan, fetch, { assign, spec: {} })
    expect(cached.stats.cacheMisses).toBe(0)
    expect(cached.stats.bytesFetched).toBe(0)
    expectIdentical(cached.batches, plain.batches)
  })

  it('a file replaced between epochs (same path, same size, new bytes) is re-read, never served stale', async () => {
    const dir = tempDir()
    cpSync(`${GOLDEN}/table-with-dv-small`, dir, { recursive: true })
    const fetch = fileFetch(dir, { baseUrl: 'http://table.test/' })
    const fx = await openFixture(dir, undefined, false)
    const plan = fx.plan
    const first = await epoch(plan, fetch, { spec: {} })
    expect(first.stats.cacheMisses).toBe(plan.units.length)
    const file = plan.files[0]
    const path = join(dir, file.path)
    const bytes = readFileSync(path)
    bytes[4] ^= 0xff // a data page byte: new content, same size
    writeFileSync(path, bytes)
    utimesSync(path, new Date(), new Date(Date.now() + 5000))
    expect(statSync(path).size).toBe(file.size)
    // The old plan: the file's entries are dropped and its read fails naming it, as uncached.
    const loader = createLoader(plan, {
      assign: { epoch: 0, worldSize: 1, rank: 0 },
      batchSize: 10_000,
      workers: 0,
      http: { fetch },
    })
    await expect(
      (async () => {
        for await (const _ of loader.batches());
      })(),
    ).rejects.toThrow(file.url)
    const fileUnits = plan.units.filter(u => u.fileIndex === 0).length
    expect((await unitCacheUsage()).entries).toBe(plan.units.length - fileUnits) // the file's entries dropped
    // Planned anew over the same (original) bytes under a new date: its units are misses, the others hits.
    writeFileSync(path, readFileSync(`${GOLDEN}/table-with-dv-small/${file.path}`))
    utimesSync(path, new Date(), new Date(Date.now() + 10_000))
    const replanned = (await openFixture(dir, undefined, false)).plan
    const again = await epoch(replanned, fetch, { spec: {} })
    const idx = replanned.files.findIndex(f => f.path === file.path)
    expect(again.stats.cacheMisses).toBe(replanned.units.filter(u => u.fileIndex === idx).length)
    expect(again.stats.cacheMisses).toBe(fileUnits)
    expectIdentical(again.batches, first.batches)
  })
})

describe('unit cache settings and codec', () => {
  it('configureUnitCache refuses a bad field by name', () => {
    expect(() => configureUnitCache({ memoryBytes: -1 })).toThrow(/memoryBytes/)
    expect(() => configureUnitCache({ spillBytes: 1.5 })).toThrow(/spillBytes/)
    expect(() => configureUnitCache({ enabled: 'yes' as never })).toThrow(/enabled/)
    expect(() => configureUnitCache({ memory: 1 } as never)).toThrow(/unknown setting 'memory'/)
    expect(unitCacheSettings()).toEqual(DEFAULT_UNIT_CACHE)
  })

  it('round-trips every array kind exactly, and refuses another key or a cut file', () => {
    const nan = new Float32Array(new Uint32Array([0x7fc00001, 0xffffffff, 0x3f800000]).buffer)
    const unit: DecodedUnit = {
      unitId: 7,
      rows: 3,
      columns: {
        f: { name: 'f', encoding: 'float32', values: nan },
        l: { name: 'l', encoding: 'fixed_list', length: 2, values: Float32Array.of(1, 2, 3, 4, 5, 6) },
        h: { name: 'h', encoding: 'hash_list', values: Uint32Array.of(9, 8, 7), offsets: Uint32Array.of(0, 1, 1, 3) },
        s: { name: 's', encoding: 'utf8', values: Uint8Array.of(1, 97, 1), offsets: Uint32Array.of(0, 2, 2, 3) },
        b: { name: 'b', encoding: 'bool', values: Uint8Array.of(1, 0, 1) },
        i: { name: 'i', encoding: 'int32', values: Int32Array.of(-1, 0, 2 ** 31 - 1) },
      },
      rowIds: Uint32Array.of(3, 5, 8),
      keys: Uint32Array.of(1, 2, 3),
      timing: { fetchMs: 1, decodeMs: 2, bytes: 3 },
    }
    const bytes = encodeUnit('K', unit, 'R')
    const found = decodeUnit(bytes, 'K', 9)!
    expect(found.rowKeys).toBe('R')
    expect(decodeUnit(encodeUnit('K', unit), 'K', 9)!.rowKeys).toBeUndefined()
    const back = found.unit
    expect(back.unitId).toBe(9)
    expect(back.timing).toEqual({ fetchMs: 0, decodeMs: 0, bytes: 0 })
    expect(Object.keys(back.columns)).toEqual(Object.keys(unit.columns))
    for (const [name, c] of Object.entries(unit.columns)) {
      const d = back.columns[name]
      expect(d.values.constructor).toBe(c.values.constructor)
      expect(Buffer.from(d.values.buffer, d.values.byteOffset, d.values.byteLength)).toEqual(
        Buffer.from(c.values.buffer, c.values.byteOffset, c.values.byteLength),
      )
      expect(d.offsets && Array.from(d.offsets)).toEqual(c.offsets && Array.from(c.offsets))
      expect(d.length).toBe(c.length)
      expect(d.encoding).toBe(c.encoding)
    }
    expect(Array.from(back.rowIds!)).toEqual([3, 5, 8])
    expect(Array.from(back.keys!)).toEqual([1, 2, 3])
    expect(decodeUnit(bytes, 'other', 0)).toBeUndefined()
    expect(decodeUnit(bytes.slice(0, bytes.length - 8), 'K', 0)).toBeUndefined()
  })

  it('a header that does not hold against itself is undefined, never a throw or a short column', () => {
    const unit: DecodedUnit = {
      unitId: 0,
      rows: 3,
      columns: {
        h: { name: 'h', encoding: 'hash_list', values: Uint32Array.of(9, 8, 7), offsets: Uint32Array.of(0, 1, 1, 3) },
        l: { name: 'l', encoding: 'fixed_list', length: 2, values: Float32Array.of(1, 2, 3, 4, 5, 6) },
      },
      keys: Uint32Array.of(1, 2, 3),
      timing: { fetchMs: 0, decodeMs: 0, bytes: 0 },
    }
    /** The file of `unit` with its JSON header changed by `edit` (the arrays' bytes as they were). */
    const damaged = (edit: (h: Record<string, any>) => void): Uint8Array => {
      const bytes = encodeUnit('K', unit)
      const length = new DataView(bytes.buffer).getUint32(4, true)
      const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)))
      edit(header)
      const json = new TextEncoder().encode(JSON.stringify(header))
      const start = Math.ceil((8 + json.length) / 8) * 8
      const body = bytes.subarray(Math.ceil((8 + length) / 8) * 8)
      const out = new Uint8Array(start + body.length)
      new DataView(out.buffer).setUint32(0, new DataView(bytes.buffer).getUint32(0, true), true)
      new DataView(out.buffer).setUint32(4, json.length, true)
      out.set(json, 8)
      out.set(body, start)
      return out
    }
    expect(
      decodeUnit(
        damaged(() => {}),
        'K',
        0,
      )?.unit.rows,
    ).toBe(3) // the rebuild itself is sound
    const edits: [string, (h: Record<string, any>) => void][] = [
      ['a negative offset', h => (h.arrays[0].offset = -8)],
      ['a fractional length', h => (h.arrays[1].length = 1.5)],
      ['an unknown array type', h => (h.arrays[0].type = 'f64')],
      ['more rows than the arrays hold', h => (h.rows = 4)],
      ['fewer rows than the keys', h => (h.rows = 2)],
      ['falling offsets', h => ((h.arrays[1].offset = h.arrays[0].offset), (h.arrays[1].length = 4))],
      ['a list width the values do not hold', h => (h.columns[1].length = 3)],
      ['no header', h => Object.keys(h).forEach(k => delete h[k])],
    ]
    for (const [what, edit] of edits) expect(decodeUnit(damaged(edit), 'K', 0), what).toBeUndefined()
  })
})
