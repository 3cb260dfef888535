/**
 * The bytes of one unit: the column chunks of the needed columns in the unit's row group,
 * fetched up front (coalesced across small gaps) and served to hyparquet from memory.
 *
 * Why fetch before decoding instead of letting parquetRead pull slices itself: the wait on the
 * network and the decode time then separate cleanly (the bench reports both), and the fetched
 * bytes live only as long as the unit. hyparquet's cachedAsyncBuffer keeps every slice for the
 * life of the buffer, which over a long epoch would grow to the whole file per worker.
 */
import type { AsyncBuffer, FileMetaData } from 'hyparquet'
import { ParquetError } from './errors.ts'

/** A byte range [start, end) of a file. */
export interface ByteRange {
  start: number
  end: number
}

/** A fetched range and its bytes. */
interface Fetched {
  start: number
  end: number
  bytes: ArrayBuffer
}

/**
 * Ranges merged when the hole between them is at most this many bytes: the same as hyparquet's
 * own planner (plan.js columnGapLimit), so every range hyparquet asks for lies inside one of ours.
 */
const GAP_LIMIT = 1 << 13

/**
 * Byte ranges of the chunks of `columns` (top-level parquet names) in row group `rowGroup`,
 * sorted and coalesced.
 */
export function chunkRanges(metadata: FileMetaData, rowGroup: number, columns: ReadonlySet<string>): ByteRange[] {
  const ranges: ByteRange[] = []
  for (const chunk of metadata.row_groups[rowGroup].columns) {
    const meta = chunk.meta_data
    if (!meta || !columns.has(meta.path_in_schema[0])) continue
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset)
    ranges.push({ start, end: start + Number(meta.total_compressed_size) })
  }
  return coalesce(ranges)
}

/** Sorts ranges and merges those that overlap or are separated by at most GAP_LIMIT bytes. */
export function coalesce(ranges: ByteRange[]): ByteRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start)
  const out: ByteRange[] = []
  for (const r of sorted) {
    const last = out[out.length - 1]
    if (last && r.start - last.end <= GAP_LIMIT) last.end = Math.max(last.end, r.end)
    else out.push({ ...r })
  }
  return out
}

/** The fetched bytes of a unit, and the time spent waiting for them. */
export interface UnitBytes {
  /** Serves slices from the fetched ranges; anything else falls through to the file. */
  buffer: AsyncBuffer
  /** A view (no copy) of file bytes [start, end) when one fetched range holds them, else undefined. */
  view(start: number, end: number): Uint8Array | undefined
  bytes: number
  fetchMs: number
}

/**
 * Fetches `ranges` of `file` concurrently (through the file's AsyncBuffer, so every request has
 * the retrying fetch's timeout and retries) and returns an AsyncBuffer over them.
 */
export async function fetchRanges(file: AsyncBuffer, ranges: ByteRange[], url = 'the file'): Promise<UnitBytes> {
  const t0 = performance.now()
  // Settle every request before failing: a run that stops must not leave requests in flight.
  const settled = await Promise.allSettled(ranges.map(async r => ({ ...r, bytes: await fullRange(file, r, url) })))
  const failed = settled.find(s => s.status === 'rejected')
  if (failed) throw failed.reason
  const fetched = settled.map(s => (s as PromiseFulfilledResult<Fetched>).value)
  const fetchMs = performance.now() - t0
  const bytes = fetched.reduce((sum, f) => sum + f.bytes.byteLength, 0)
  const view = (start: number, end: number): Uint8Array | undefined => {
    const hit = fetched.find(f => f.start <= start && end <= f.end)
    return hit && end - hit.start <= hit.bytes.byteLength
      ? new Uint8Array(hit.bytes, start - hit.start, end - start)
      : undefined
  }
  return { buffer: servedFrom(file, fetched), view, bytes, fetchMs }
}

/** Attempts at a range whose body came back short (a body cut off mid-way is as transient as a 503). */
const SHORT_READ_ATTEMPTS = 3

/**
 * The bytes of `r`, checked to be exactly r.end − r.start long: a short body (seen once in
 * Chromium under load) is asked for again, then reported as ParquetError('http') naming the range.
 */
async function fullRange(file: AsyncBuffer, r: ByteRange, url: string): Promise<ArrayBuffer> {
  let got = 0
  for (let attempt = 1; attempt <= SHORT_READ_ATTEMPTS; attempt++) {
    const bytes = await file.slice(r.start, r.end)
    if (bytes.byteLength === r.end - r.start) return bytes
    got = bytes.byteLength
  }
  throw new ParquetError(
    `GET ${url} bytes=${r.start}-${r.end - 1}: got ${got} bytes, expected ${r.end - r.start} (${SHORT_READ_ATTEMPTS} attempts)`,
    'http',
    url,
  )
}

function servedFrom(file: AsyncBuffer, fetched: Fetched[]): AsyncBuffer {
  return {
    byteLength: file.byteLength,
    slice(start: number, end = file.byteLength) {
      const hit = fetched.find(f => f.start <= start && end <= f.end)
      if (!hit) return file.slice(start, end)
      // Whole range: hand over the buffer itself (hyparquet only reads it), else copy the slice.
      return hit.start === start && hit.end === end ? hit.bytes : hit.bytes.slice(start - hit.start, end - hit.start)
    },
  }
}
