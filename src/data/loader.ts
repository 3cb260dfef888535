/**
 * The loader: a rank's epoch stream as columnar batches. The delivered order is defined only by
 * the stream (RankStreamView.rowsAt), never by the number of workers or by timing; workers merely
 * read and decode units, prefetched ahead in first-need order within a unit count and a memory
 * bound, and each decoded unit is freed once no later position needs it.
 */
import { retryingFetch } from '../table/http.ts'
import { FatalResponseError, FileMemory } from '../table/range-check.ts'
import type { HttpOptions } from '../table/types.ts'
import { batchBytes, gatherBatch, unitBytes } from './batcher.ts'
import { assignFromCursor, checkCursor, makeCursor } from './cursor.ts'
import { readSchedule, type UnitRead } from './read-schedule.ts'
import { rankStream } from './stream.ts'
import type {
  AssignOptions,
  Batch,
  Cursor,
  DecodeSpec,
  DecodedUnit,
  LoaderStats,
  RankStreamView,
  ScanPlan,
} from './types.ts'
import { cachedUnit, dropCachedFile, storeUnit, unitCacheKeys, unitCacheSettings, type UnitKey } from './unit-cache.ts'
import { inProcessSource, workerSource, type UnitSource, type WorkerFactory } from './unit-source.ts'

/** Options of createLoader. */
export interface LoaderOptions {
  /** Which rank and epoch to deliver; ignored when `cursor` is given (it carries them). */
  assign: AssignOptions
  /** Rows per batch (the last batch of the epoch may be smaller). */
  batchSize: number
  /** Encodings by logical column (default from the column's type, see defaultEncoding). */
  spec?: DecodeSpec
  /** Loader workers: default 2 where `Worker` exists, else 0 (read on the calling thread). */
  workers?: number
  /** Most units held or in flight ahead of delivery (default 2 per worker + 2, at least 4). */
  prefetchUnits?: number
  /** Most bytes of decoded units held (default 256 MiB); the unit needed next is always read. */
  memoryBytes?: number
  /** Add row identities (unit, file row) to every batch. */
  ids?: boolean
  /** Resume: deliver exactly the rows after cursor.position (refused when it does not fit the plan). */
  cursor?: Cursor
  http?: HttpOptions
  workerFactory?: WorkerFactory
  /**
   * Use the page-wide epoch cache (unit-cache.ts) when it is enabled (default true); false: this
   * loader neither reads nor writes it.
   */
  cache?: boolean
}

/** A running loader. */
export interface Loader {
  stream: RankStreamView
  /** The batches from the current position to the end of the rank's epoch (iterate once). */
  batches(): AsyncIterable<Batch>
  /** Cursor at the next undelivered row. */
  cursor(): Cursor
  stats(): LoaderStats
  /** Stops reading; idle workers go back to the page's pool for the next loader, busy ones are terminated. */
  close(): Promise<void>
  /**
   * Test hook: loader worker `index` dies as a crash would. A dead worker (this, or an 'error'
   * event) is replaced and its units are read again, so the delivered rows do not change.
   * Throws RangeError without workers.
   */
  killWorker(index: number): void
  /** Dead loader workers replaced so far. */
  workerRestarts(): number
}

const DEFAULT_MEMORY = 256 * 2 ** 20

/** A unit being read or held, shared by every held read of that unit. */
interface Entry {
  promise: Promise<DecodedUnit>
  decoded?: DecodedUnit
  /** Held reads of the unit. */
  refs: number
  /** Decoded bytes (an estimate until decoded). */
  bytes: number
}

/**
 * Creates a loader over `plan`. Throws RangeError naming a bad option and CursorError when
 * `opts.cursor` does not fit the plan; read failures surface from batches() naming the URL.
 */
export function createLoader(plan: ScanPlan, opts: LoaderOptions): Loader {
  if (opts.cursor) checkCursor(opts.cursor, plan)
  const stream = rankStream(plan, opts.cursor ? assignFromCursor(opts.cursor) : opts.assign)
  const { workers, prefetch, memory } = resolveLimits(opts)
  const spec = opts.spec ?? {}
  const http = opts.http ?? {}
  const source: UnitSource =
    workers === 0 ? inProcessSource(plan, spec, http) : workerSource(plan, spec, http, workers, opts.workerFactory)
  let position = opts.cursor?.position ?? 0
  const reads = readSchedule(stream.segments(), position)
  const cache = opts.cache !== false && unitCacheSettings().enabled ? unitCache(plan, spec, http) : undefined
  const state = new Pump(plan, reads, source, { length: stream.length, prefetch, memory }, cache)
  let closed = false

  async function* batches(): AsyncGenerator<Batch> {
    while (position < stream.length && !closed) {
      const end = Math.min(position + opts.batchSize, stream.length)
      const units = await state.ready(end)
      const t0 = performance.now()
      const batch = gatherBatch(plan, units, stream.rowsAt(position, end), position, stream.options.epoch, opts.ids)
      position = end
      state.deliver(batch, position, performance.now() - t0)
      yield batch
    }
  }

  return {
    stream,
    batches,
    cursor: () => makeCursor(plan, stream.options, position),
    stats: () => state.stats(source.workers),
    async close() {
      closed = true
      source.close()
    },
    killWorker(index: number) {
      if (!source.killWorker) throw new RangeError('killWorker: this loader reads on its own thread (workers: 0)')
      source.killWorker(index)
    },
    workerRestarts: () => source.restarts?.() ?? 0,
  }
}

/** Validated counts and bounds of the options (RangeError naming the bad one). */
function resolveLimits(opts: LoaderOptions): { workers: number; prefetch: number; memory: number } {
  const workers = opts.workers ?? (typeof Worker === 'undefined' ? 0 : 2)
  const prefetch = opts.prefetchUnits ?? Math.max(4, 2 * workers + 2)
  const memory = opts.memoryBytes ?? DEFAULT_MEMORY
  const checks: [string, number, number][] = [
    ['batchSize', opts.batchSize, 1],
    ['workers', workers, 0],
    ['prefetchUnits', prefetch, 1],
  ]
  for (const [name, value, min] of checks) {
    if (!Number.isSafeInteger(value) || value < min)
      throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`)
  }
  if (!(memory >= 0)) throw new RangeError(`memoryBytes must be a number ≥ 0, got ${memory}`)
  return { workers, prefetch, memory }
}

/** What a Pump needs of the epoch cache: the units' keys and the check of a file before its first hit. */
interface PumpCache {
  keyOf(unit: number): UnitKey
  /** Whether file `index` is still the one the plan describes (asked once per loader per file). */
  valid(index: number): Promise<boolean>
  /** Files asked so far. */
  revalidations(): number
}

/**
 * The cache as one loader uses it. Before the first hit of a file the loader asks the server once
 * (a 2-byte ranged GET through its own retrying fetch and resolver) whether the file is still the
 * one planned (size, ETag, Last-Modified): a changed file's entries are dropped and its units read
 * again, which fails naming it as for any file rewritten since planning. A share's files are not
 * asked: they are the server's files at a version, named by id, and their URLs expire (epoch 2
 * then reads without a request, so without a renewal).
 */
function unitCache(plan: ScanPlan, spec: DecodeSpec, http: HttpOptions): PumpCache {
  const keyOf = unitCacheKeys(plan, spec)
  const checks = new Map<number, Promise<boolean>>()
  let asked = 0
  async function check(index: number): Promise<boolean> {
    asked++
    const file = plan.files[index]
    const memory = new FileMemory()
    memory.expect(file.url, { size: file.size, ...file.validator })
    try {
      // Two bytes, not one: some servers (sirv, under vite) read the end 0 as "to the end of the file".
      await retryingFetch(http, plan.tableUrl, memory)(file.url, { headers: { Range: 'bytes=0-1' } })
      return true
    } catch (error) {
      if (error instanceof FatalResponseError && error.code === 'changed-file') {
        const unit = plan.units.find(u => u.fileIndex === index)
        if (unit) await dropCachedFile(keyOf(unit.id).file)
      }
      return false // changed, or unreachable: read again (which reports why)
    }
  }
  return {
    keyOf,
    valid(index) {
      if (plan.share) return Promise.resolve(true)
      let known = checks.get(index)
      if (!known) checks.set(index, (known = check(index)))
      return known
    },
    revalidations: () => asked,
  }
}

/** Bounds of a Pump. */
interface PumpLimits {
  length: number
  prefetch: number
  memory: number
}

/**
 * Issues reads ahead of delivery and frees them behind it. `held` = reads issued and not yet
 * freed, in issue (= first-need) order; `decoded[u]` is unit u while any held read of it is done.
 */
class Pump {
  private next = 0
  private held: UnitRead[] = []
  private readonly entries = new Map<number, Entry>()
  private readonly decoded: (DecodedUnit | undefined)[] = []
  private heldBytes = 0
  private rowBytes: number
  /** Units the epoch cache served (counted as hits when accepted). */
  private readonly fromCache = new WeakSet<DecodedUnit>()
  private readonly counts: LoaderStats = {
    workers: 0,
    unitsRead: 0,
    rowsDelivered: 0,
    batchesDelivered: 0,
    bytesDelivered: 0,
    bytesFetched: 0,
    fetchMs: 0,
    decodeMs: 0,
    transferMs: 0,
    waitMs: 0,
    assembleMs: 0,
    peakBytes: 0,
    cacheHits: 0,
    cacheMisses: 0,
    bytesFromCache: 0,
    revalidations: 0,
  }

  constructor(
    private readonly plan: ScanPlan,
    private readonly reads: UnitRead[],
    private readonly source: UnitSource,
    private readonly limits: PumpLimits,
    private readonly cache?: PumpCache,
  ) {
    this.rowBytes = 4 * plan.columns.length // first guess; corrected by the first decoded unit
  }

  /** Decoded units for every row before stream position `end` (issuing and awaiting their reads). */
  async ready(end: number): Promise<ReadonlyArray<DecodedUnit | undefined>> {
    this.pump(end)
    const t0 = performance.now()
    for (const read of this.held) {
      if (read.from >= end) break
      const entry = this.entries.get(read.unit)!
      if (!entry.decoded) this.accept(read.unit, entry, await entry.promise)
    }
    this.counts.waitMs += performance.now() - t0
    return this.decoded
  }

  /** Records a delivered batch; frees reads no later position needs and reads further ahead. */
  deliver(batch: Batch, position: number, assembleMs: number): void {
    this.counts.assembleMs! += assembleMs
    this.counts.batchesDelivered++
    this.counts.rowsDelivered += batch.size
    this.counts.bytesDelivered += batchBytes(batch)
    this.held = this.held.filter(read => read.to > position || this.release(read.unit))
    if (position < this.limits.length) this.pump(position)
  }

  /**
   * Issues reads in order: every read needed before `end`, then more while within both bounds.
   * Until the first batch is out, held reads stop at one per worker (or at the reads that batch
   * needs, when those are more): its units then share the transport with few others (sent
   * together with the full prefetch, 2 per worker + 2, the first batch came about three times
   * later in the page), and every worker still has a unit to read.
   */
  private pump(end: number): void {
    const prefetch =
      this.counts.batchesDelivered === 0
        ? Math.min(this.limits.prefetch, Math.max(1, this.source.workers))
        : this.limits.prefetch
    while (this.next < this.reads.length) {
      const read = this.reads[this.next]
      const fresh = !this.entries.has(read.unit)
      const estimate = fresh ? this.estimate(read.unit) : 0
      const needed = read.from < end
      const full = this.held.length >= prefetch || this.heldBytes + estimate > this.limits.memory
      if (!needed && full) break
      if (fresh) this.start(read.unit, estimate)
      this.entries.get(read.unit)!.refs++
      this.held.push(read)
      this.next++
    }
  }

  private start(unit: number, estimate: number): void {
    // Batch identities come from the plan's unit masks, so workers need not send row ids.
    const promise = this.cache ? this.readCached(unit, this.cache) : this.source.read(unit, false)
    promise.catch(() => {}) // surfaced by ready(); no unhandled rejection meanwhile
    this.entries.set(unit, { promise, refs: 0, bytes: estimate })
    this.heldBytes += estimate
    this.counts.peakBytes = Math.max(this.counts.peakBytes, this.heldBytes)
  }

  /**
   * The unit from the epoch cache when it holds it and its file is unchanged; else read and
   * stored. Hits and misses are counted when the unit is accepted (as unitsRead is), so a unit
   * read ahead and never needed counts in neither.
   */
  private async readCached(unit: number, cache: PumpCache): Promise<DecodedUnit> {
    const key = cache.keyOf(unit)
    const hit = await cachedUnit(key, unit)
    if (hit && (await cache.valid(this.plan.units[unit].fileIndex))) {
      this.fromCache.add(hit)
      return hit
    }
    return storeUnit(key, await this.source.read(unit, false))
  }

  private accept(unit: number, entry: Entry, decoded: DecodedUnit): void {
    entry.decoded = decoded
    this.decoded[unit] = decoded
    const bytes = unitBytes(decoded)
    this.heldBytes += bytes - entry.bytes
    entry.bytes = bytes
    this.rowBytes = Math.max(this.rowBytes, bytes / Math.max(1, decoded.rows))
    this.counts.peakBytes = Math.max(this.counts.peakBytes, this.heldBytes)
    this.count(decoded)
  }

  private count(unit: DecodedUnit): void {
    const c = this.counts
    c.unitsRead++
    if (this.fromCache.has(unit)) {
      c.cacheHits++
      c.bytesFromCache += unitBytes(unit)
    } else if (this.cache) c.cacheMisses++
    c.bytesFetched += unit.timing.bytes
    c.fetchMs += unit.timing.fetchMs
    c.decodeMs += unit.timing.decodeMs
    // Hand-over only (receivedAt is stamped on arrival), not the time the unit then waited to be needed.
    const { sentAt, receivedAt } = unit.timing
    if (sentAt !== undefined && receivedAt !== undefined) c.transferMs += Math.max(0, receivedAt - sentAt)
  }

  /** Drops one held read of `unit`; the unit goes with its last read. Returns false (for filter). */
  private release(unit: number): boolean {
    const entry = this.entries.get(unit)!
    if (--entry.refs > 0) return false
    this.entries.delete(unit)
    this.heldBytes -= entry.bytes
    this.decoded[unit] = undefined
    return false
  }

  /** Decoded bytes a unit will hold: live rows × the largest bytes per row seen so far. */
  private estimate(unit: number): number {
    return this.plan.units[unit].liveRows * this.rowBytes
  }

  stats(workers: number): LoaderStats {
    return { ...this.counts, workers, revalidations: this.cache?.revalidations() ?? 0 }
  }
}
