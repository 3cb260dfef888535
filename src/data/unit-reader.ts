/**
 * The unit reader: range-reads the needed column chunks of one unit's row group, decodes rows
 * [rowStart, rowEnd) with hyparquet's columnar callbacks, and keeps only the unit's live rows,
 * as typed arrays in unit order. One reader per loader worker; it holds one AsyncBuffer per file
 * (footers come from the plan, never refetched) and the resolved columns of each file.
 */
import { ParquetError } from '../parquet/errors.ts'
import { openParquetFile } from '../parquet/file.ts'
import type { AsyncBuffer, ParquetParsers } from '../parquet/types.ts'
import { retryingFetch } from '../table/http.ts'
import { FileMemory } from '../table/range-check.ts'
import { asTableError } from '../table/rows.ts'
import { TableError, type HttpOptions, type StructField } from '../table/types.ts'
import { decodeColumn, decodeConstant, decodeKeyColumn, type ColumnChunk, type RowSelection } from './decode.ts'
import { rawTimestampSeconds, toKeyHash } from './decode-values.ts'
import { combineKeys, NULL_KEY_HASH } from './row-key.ts'
import { compressors } from '../parquet/codecs.ts'
import { fetchGroup, groupStartOf, readGroupColumns } from '../parquet/group-read.ts'
import type { UnitBytes } from '../parquet/unit-bytes.ts'
import { keyColumnResolver, resolveColumns, type ColumnSource, type RawTimestamp } from './unit-columns.ts'
import { decodeFastColumns } from './unit-fast.ts'
import type { DecodeSpec, DecodedColumn, DecodedUnit, PlanFile, ScanPlan, Unit } from './types.ts'

/**
 * Numbers instead of Dates: dates as day numbers, timestamps as seconds since the epoch (what
 * the float32 encoding stores), so no Date object is built per value.
 */
const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (ms: bigint) => Number(ms) / 1e3,
  timestampFromMicroseconds: (us: bigint) => Number(us) / 1e6,
  timestampFromNanoseconds: (ns: bigint) => Number(ns) / 1e9,
  dateFromDays: (days: number) => days,
}

/** Totals of one reader, for LoaderStats. */
export interface UnitReaderStats {
  unitsRead: number
  rowsRead: number
  bytesFetched: number
  fetchMs: number
  decodeMs: number
  /**
   * Wall-clock [start, end] ms (performance.timeOrigin + now()) of this reader's last row-group
   * fetches (at most FETCH_SPANS): the bench's wire rows divide bytes by the time any was in flight.
   */
  fetchSpans: [number, number][]
}

/** Fetch spans a reader keeps (a few epochs of a large table). */
const FETCH_SPANS = 1024

/** Reads units of one plan with one decode spec. */
export interface UnitReader {
  /** Reads unit `unitId`; `ids` adds each row's file-relative row index (rowIds). */
  read(unitId: number, opts?: { ids?: boolean }): Promise<DecodedUnit>
  stats(): UnitReaderStats
}

/**
 * A planned file's AsyncBuffer whose reads (through `fetch`, made with `memory`) are checked
 * against the log's size and the validator the planner saw: a file rewritten since fails.
 */
export function openPlannedFile(
  file: PlanFile,
  fetch: typeof globalThis.fetch,
  memory: FileMemory,
): Promise<AsyncBuffer> {
  memory.expect(file.url, { size: file.size, ...file.validator })
  return openParquetFile(file.url, file.size, fetch, false)
}

/**
 * Request settings of every column-chunk read. Why `no-store`: the servers' answers carry
 * Last-Modified without Cache-Control, so Chromium stores each range answer in its HTTP cache —
 * a copy of every byte on the way in, sparse entries that serialise requests for one file, and
 * now and then a short body when ranges of one file overlap (bench/README.md, loader) — for bytes
 * an epoch reads once; epochs after the first come from the loader's own epoch cache.
 */
export const UNIT_FETCH_INIT: RequestInit = { cache: 'no-store' }

/** Row groups whose fetched bytes are kept for the next unit (units cut from one large group). */
const GROUP_CACHE = 2

/**
 * Creates a reader. `http` configures the retrying fetch (timeout, attempts, backoff, injected
 * fetch); requests are sent only for the unit's column chunks.
 */
export function createUnitReader(plan: ScanPlan, spec: DecodeSpec, http: HttpOptions = {}): UnitReader {
  const files = new Map<number, AsyncBuffer>()
  const sources = new Map<number, ColumnSource[]>()
  const groups: { key: string; bytes: Promise<UnitBytes> }[] = []
  const totals: UnitReaderStats = {
    unitsRead: 0,
    rowsRead: 0,
    bytesFetched: 0,
    fetchMs: 0,
    decodeMs: 0,
    fetchSpans: [],
  }
  // Checked against the log's size and the validator the planner saw (a file rewritten since fails).
  const memory = new FileMemory()
  const checked = retryingFetch(http, plan.tableUrl, memory)
  // Column chunks bypass the browser's HTTP cache (UNIT_FETCH_INIT).
  const fetch = ((url: string, init?: RequestInit) =>
    checked(url, { ...init, ...UNIT_FETCH_INIT })) as typeof globalThis.fetch
  let workEnd = 0 // performance.now() when this reader last finished decoding a unit

  async function fileBuffer(index: number): Promise<AsyncBuffer> {
    let buffer = files.get(index)
    if (!buffer) {
      buffer = await openPlannedFile(plan.files[index], fetch, memory)
      files.set(index, buffer)
    }
    return buffer
  }

  function columnsOf(index: number): ColumnSource[] {
    let resolved = sources.get(index)
    if (!resolved) sources.set(index, (resolved = resolveColumns(plan, plan.files[index], spec)))
    return resolved
  }

  const resolveKeys = keyColumnResolver(plan)
  const keySources = new Map<number, ColumnSource[]>()
  function keysOf(index: number): ColumnSource[] {
    let resolved = keySources.get(index)
    if (!resolved) keySources.set(index, (resolved = resolveKeys(plan.files[index])))
    return resolved
  }

  /** The unit's bytes, shared with the previous unit when it read the same row group. */
  async function groupBytes(unit: Unit, names: Set<string>): Promise<{ bytes: UnitBytes; fresh: boolean }> {
    const key = `${unit.fileIndex}:${unit.rowGroup}`
    const cached = groups.find(g => g.key === key)
    if (cached) return { bytes: await cached.bytes, fresh: false }
    const { metadata, url } = plan.files[unit.fileIndex]
    const started = performance.timeOrigin + performance.now()
    // Checked once per fetch, so the fast path and the general one both decode checked pages.
    const bytes = fileBuffer(unit.fileIndex)
      .then(file => fetchGroup(file, metadata, unit.rowGroup, names, url))
      .then(fetched => {
        totals.fetchSpans.push([started, performance.timeOrigin + performance.now()])
        if (totals.fetchSpans.length > FETCH_SPANS) totals.fetchSpans.shift()
        return fetched
      })
      .catch(error => {
        throw error instanceof ParquetError ? asTableError(error, url, 'data') : error
      })
    groups.unshift({ key, bytes })
    groups.length = Math.min(groups.length, GROUP_CACHE)
    return { bytes: await bytes, fresh: true }
  }

  async function read(unitId: number, opts: { ids?: boolean } = {}): Promise<DecodedUnit> {
    const unit = plan.units[unitId]
    if (!unit) throw new RangeError(`unit ${unitId} is not in the plan (it has ${plan.units.length} units)`)
    const file = plan.files[unit.fileIndex]
    const columns = columnsOf(unit.fileIndex)
    const keyColumns = keysOf(unit.fileIndex)
    const names = new Set([...columns, ...keyColumns].flatMap(c => (c.kind === 'parquet' ? [c.parquetName] : [])))
    const requested = performance.now()
    const { bytes, fresh } = names.size ? await groupBytes(unit, names) : { bytes: undefined, fresh: false }
    const t0 = performance.now()
    // Idle time only: latency that passed while this thread decoded other units cost nothing.
    const waited = Math.max(0, t0 - Math.max(requested, workEnd))
    const fast = bytes ? decodeFastColumns(bytes, file, unit, columns, compressors) : new Map<string, DecodedColumn>()
    const general = [
      ...new Set([
        ...columns.flatMap(c => (c.kind === 'parquet' && !fast.has(c.name) ? [c.parquetName] : [])),
        ...keyColumns.flatMap(c => (c.kind === 'parquet' ? [c.parquetName] : [])),
      ]),
    ]
    const chunks = bytes && general.length ? decodeChunks(bytes, plan, unit, general) : new Map<string, ColumnChunk[]>()
    const sel: RowSelection = { start: unit.rowStart, end: unit.rowEnd, live: unit.live }
    const decoded: Record<string, DecodedColumn> = {}
    for (const c of columns) {
      const ctx = { column: c.name, url: file.url }
      decoded[c.name] =
        fast.get(c.name) ??
        (c.kind === 'parquet'
          ? decodeColumn(inSeconds(chunks.get(c.parquetName) ?? [], c.rawTimestamp), sel, c.encoding, ctx)
          : decodeConstant(c.value, sel, c.encoding, ctx))
    }
    const keys = plan.rowKey ? rowKeys(keyColumns, plan.rowKey, chunks, sel, file.url, unit.liveRows) : undefined
    workEnd = performance.now()
    const timing = { fetchMs: waited, decodeMs: workEnd - t0, bytes: fresh ? bytes!.bytes : 0 }
    count(totals, unit, timing)
    const out: DecodedUnit = { unitId, rows: unit.liveRows, columns: decoded, timing }
    if (opts.ids) out.rowIds = unit.live ? unit.live.slice() : rangeIds(unit)
    if (keys) out.keys = keys
    return out
  }

  return { read, stats: () => ({ ...totals, fetchSpans: totals.fetchSpans.slice() }) }
}

/** Numeric Delta types whose partition values arrive as strings or Timestamps (row keys hash their numbers). */
const NUMERIC_PARTITION = /^(date|timestamp|timestamp_ntz|decimal\(.*\)|float|double|long|integer|short|byte)$/

/** The row key of each selected row (src/data/row-key.ts) from the key columns' chunks or constants. */
function rowKeys(
  sources: ColumnSource[],
  fields: StructField[],
  chunks: Map<string, ColumnChunk[]>,
  sel: RowSelection,
  url: string,
  n: number,
): Uint32Array {
  const hashes = sources.map((c, i) => {
    if (c.kind === 'parquet')
      return decodeKeyColumn(
        inSeconds(chunks.get(c.parquetName) ?? [], c.rawTimestamp),
        sel,
        { column: c.name, url },
        NULL_KEY_HASH,
      )
    return new Uint32Array(n).fill(toKeyHash(c.value, NULL_KEY_HASH, NUMERIC_PARTITION.test(String(fields[i].type))))
  })
  return combineKeys(hashes, n)
}

/** Chunks of a raw timestamp column in seconds, as the parsers deliver annotated ones. */
function inSeconds(chunks: ColumnChunk[], raw: RawTimestamp | undefined): ColumnChunk[] {
  return raw ? chunks.map(c => ({ rowStart: c.rowStart, data: rawTimestampSeconds(c.data, raw) })) : chunks
}

function count(totals: UnitReaderStats, unit: Unit, timing: DecodedUnit['timing']): void {
  totals.unitsRead++
  totals.rowsRead += unit.liveRows
  totals.bytesFetched += timing.bytes
  totals.fetchMs += timing.fetchMs
  totals.decodeMs += timing.decodeMs
}

function rangeIds(unit: Unit): Uint32Array {
  const ids = new Uint32Array(unit.rowEnd - unit.rowStart)
  for (let i = 0; i < ids.length; i++) ids[i] = unit.rowStart + i
  return ids
}

/**
 * Decodes rows [unit.rowStart, unit.rowEnd) of the named parquet columns into chunks per column.
 * Chunks may extend past the range (whole pages); decodeColumn picks the live rows.
 */
function decodeChunks(bytes: UnitBytes, plan: ScanPlan, unit: Unit, columns: string[]): Map<string, ColumnChunk[]> {
  const file = plan.files[unit.fileIndex]
  const groupStart = groupStartOf(file.metadata, unit.rowGroup)
  const select = { groupStart, selectStart: unit.rowStart - groupStart, selectEnd: unit.rowEnd - groupStart }
  try {
    const decoded = readGroupColumns(bytes, file.metadata, unit.rowGroup, select, columns, {
      parsers: PARSERS,
      utf8: false,
    })
    return new Map(
      columns.map(name => {
        const column = decoded.get(name)
        const chunks: ColumnChunk[] = []
        let rowStart = groupStart + (column?.skipped ?? 0)
        for (const data of column?.data ?? []) {
          chunks.push({ rowStart, data })
          rowStart += data.length
        }
        return [name, chunks]
      }),
    )
  } catch (error) {
    if (error instanceof TableError) throw error
    if (error instanceof ParquetError) throw asTableError(error, file.url, 'data')
    const message = error instanceof Error ? error.message : String(error)
    throw new TableError(
      `${file.url}: corrupt parquet data (rows ${unit.rowStart}–${unit.rowEnd}): ${message}`,
      'corrupt-file',
      file.url,
    )
  }
}

/**
 * Reads one unit with a throwaway reader (tests, one-off reads). Loaders keep a reader
 * (createUnitReader) so file buffers and column resolution are reused across units.
 */
export function readUnit(
  plan: ScanPlan,
  unitId: number,
  spec: DecodeSpec,
  opts: HttpOptions & { ids?: boolean } = {},
): Promise<DecodedUnit> {
  return createUnitReader(plan, spec, opts).read(unitId, { ids: opts.ids })
}
