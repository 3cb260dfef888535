/**
 * The loader bench's peer: single-threaded hyparquet on the calling thread, reading every data
 * file of the plan whole (one GET per file, the next file's download overlapping this file's
 * decode) and converting the columns to the same typed arrays the loader delivers. This is what
 * a page without loader workers would do; the loader has to beat it to earn its plumbing.
 */
import { parquetMetadata, parquetRead, type ColumnData } from 'hyparquet'
import { compressors } from '../src/parquet/codecs.ts'
import type { ScanPlan } from '../src/data/types.ts'
import { toHash } from '../src/data/decode-values.ts'
import type { CsvColumnSpec } from './loader-csv.ts'

/** What one peer pass delivered. */
export interface PeerResult {
  rows: number
  /** Bytes of typed arrays produced. */
  bytes: number
  /** Bytes downloaded. */
  fetched: number
}

type Out = Float32Array | Int32Array | Uint32Array | Uint8Array

/**
 * Reads every file of `plan` whole and decodes `columns` (physical = logical names: no column
 * mapping) into typed arrays, keeping the plan's live rows. `onFile` receives each file's columns.
 */
export async function peerEpoch(
  plan: ScanPlan,
  columns: readonly CsvColumnSpec[],
  fetchFn: typeof fetch = fetch,
  onFile?: (cols: Record<string, Out>, rows: number) => void,
): Promise<PeerResult> {
  const get = async (url: string): Promise<ArrayBuffer> => {
    const res = await fetchFn(url)
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
    return res.arrayBuffer()
  }
  const files = plan.files.filter(f => plan.units.some(u => u.fileIndex === f.index))
  let next = files[0] ? get(files[0].url) : undefined
  const result: PeerResult = { rows: 0, bytes: 0, fetched: 0 }
  for (let i = 0; i < files.length; i++) {
    const buffer = await next!
    next = files[i + 1] ? get(files[i + 1]!.url) : undefined
    result.fetched += buffer.byteLength
    const cols = await decodeFile(buffer, columns)
    const kept = keepLive(plan, files[i]!.index, cols, columns)
    result.rows += kept.rows
    for (const a of Object.values(kept.cols)) result.bytes += a.byteLength
    onFile?.(kept.cols, kept.rows)
  }
  return result
}

/** All rows of one parquet file, column by column, as typed arrays. */
async function decodeFile(file: ArrayBuffer, columns: readonly CsvColumnSpec[]): Promise<Record<string, Out>> {
  const metadata = parquetMetadata(file)
  const n = Number(metadata.num_rows)
  const out: Record<string, Out> = {}
  for (const c of columns) out[c.name] = allocate(c, n)
  await parquetRead({
    file,
    metadata,
    columns: columns.map(c => c.name),
    compressors,
    onChunk: (chunk: ColumnData) =>
      writeChunk(out[chunk.columnName]!, columns.find(c => c.name === chunk.columnName)!, chunk),
  })
  return out
}

function allocate(c: CsvColumnSpec, n: number): Out {
  switch (c.encoding) {
    case 'int32':
      return new Int32Array(n)
    case 'uint32':
    case 'hash32':
      return new Uint32Array(n)
    case 'bool':
      return new Uint8Array(n)
    case 'fixed_list':
      return new Float32Array(n * (c.length ?? 1))
    default:
      return new Float32Array(n)
  }
}

/** Converts one decoded chunk into rows [rowStart, rowEnd) of `out`. */
export function writeChunk(
  out: Out,
  spec: CsvColumnSpec,
  chunk: Pick<ColumnData, 'columnData' | 'rowStart' | 'rowEnd'>,
): void {
  const data = chunk.columnData as ArrayLike<unknown>
  const { rowStart } = chunk
  const end = Math.min(chunk.rowEnd, rowStart + data.length)
  if (spec.encoding === 'fixed_list') {
    const len = spec.length ?? 1
    for (let r = rowStart; r < end; r++) {
      const list = data[r - rowStart] as ArrayLike<number | null> | null | undefined
      for (let k = 0; k < len; k++) out[r * len + k] = list?.[k] ?? NaN
    }
    return
  }
  if (spec.encoding === 'hash32') {
    for (let r = rowStart; r < end; r++) out[r] = toHash(data[r - rowStart]) // the loader's own value → hash32
    return
  }
  if (ArrayBuffer.isView(data) && !(data instanceof BigInt64Array) && !(data instanceof BigUint64Array)) {
    out.set(data as unknown as ArrayLike<number>, rowStart) // typed column: one bulk copy (with conversion)
    return
  }
  for (let r = rowStart; r < end; r++) {
    const v = data[r - rowStart]
    out[r] =
      v === null || v === undefined
        ? NaN
        : typeof v === 'bigint'
          ? Number(v)
          : typeof v === 'boolean'
            ? v
              ? 1
              : 0
            : (v as number)
  }
}

/** The plan's live rows of file `fileIndex` (units in table order), gathered out of the whole-file columns. */
function keepLive(
  plan: ScanPlan,
  fileIndex: number,
  cols: Record<string, Out>,
  columns: readonly CsvColumnSpec[],
): { cols: Record<string, Out>; rows: number } {
  const units = plan.units.filter(u => u.fileIndex === fileIndex)
  const total = cols[columns[0]!.name]!.length / (columns[0]!.encoding === 'fixed_list' ? (columns[0]!.length ?? 1) : 1)
  const live = units.reduce((s, u) => s + u.liveRows, 0)
  const whole = live === total && units.every(u => !u.live)
  if (whole) return { cols, rows: live }
  const rows = new Uint32Array(live)
  let k = 0
  for (const u of units) {
    if (u.live) {
      rows.set(u.live, k)
      k += u.live.length
    } else for (let r = u.rowStart; r < u.rowEnd; r++) rows[k++] = r
  }
  const out: Record<string, Out> = {}
  for (const c of columns) {
    const len = c.encoding === 'fixed_list' ? (c.length ?? 1) : 1
    const src = cols[c.name]!
    const dst = new (src.constructor as new (n: number) => Out)(live * len)
    for (let i = 0; i < live; i++) for (let j = 0; j < len; j++) dst[i * len + j] = src[rows[i]! * len + j]!
    out[c.name] = dst
  }
  return { cols: out, rows: live }
}
