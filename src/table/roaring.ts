/**
 * Decoder for Delta's deletion-vector bitmap: a magic number followed by a 64-bit
 * RoaringBitmap in the "portable" serialization (Delta PROTOCOL.md "Deletion Vector Format";
 * RoaringFormatSpec). Hand-written because the maintained Roaring packages for JavaScript are a
 * native Node addon (`roaring`) or WASM (`roaring-wasm`), and neither reads Delta's 64-bit framing.
 *
 * Layout (all little-endian):
 *   u32 magic = 1681511377
 *   u64 numBuckets
 *   per bucket: u32 key (high 32 bits of the row index), then a 32-bit portable RoaringBitmap.
 *
 * Decoding is strict: every reader of the table (row reader, scan planner, CLI) applies the
 * result by binary search or by walking it in order, so a bitmap that breaks the format's
 * invariants (sorted unique values, headers that match their containers) would make them
 * disagree silently. Such a bitmap is refused instead.
 */
import { lowerBound } from '../util/lower-bound.ts'

/** Magic number Delta writes before the 64-bit bitmap. */
export const DV_MAGIC = 1681511377

const SERIAL_COOKIE_NO_RUN = 12346
const SERIAL_COOKIE = 12347
/** Below this many containers, a bitmap with run containers has no offset header. */
const NO_OFFSET_THRESHOLD = 4
/** Array containers hold at most this many values; more means a 8 KiB bitmap container. */
const ARRAY_MAX = 4096
/** Bucket keys above this would make row indexes beyond 2^53 (not exact in a JS number). */
const MAX_BUCKET_KEY = 0x1fffff

/** Thrown for malformed bitmap bytes; callers wrap it into TableError('corrupt-file', url). */
export class RoaringFormatError extends Error {}

/** Little-endian cursor over bytes that throws RoaringFormatError on reads past the end (truncation). */
class ByteReader {
  readonly view: DataView
  pos = 0
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  need(n: number): void {
    if (this.pos + n > this.bytes.length) {
      throw new RoaringFormatError(`truncated at byte ${this.pos} (need ${n} more of ${this.bytes.length})`)
    }
  }
  u16(): number {
    this.need(2)
    const v = this.view.getUint16(this.pos, true)
    this.pos += 2
    return v
  }
  u32(): number {
    this.need(4)
    const v = this.view.getUint32(this.pos, true)
    this.pos += 4
    return v
  }
  u64(): number {
    const lo = this.u32()
    const hi = this.u32()
    if (hi > MAX_BUCKET_KEY) throw new RoaringFormatError(`64-bit count ${hi}:${lo} too large`)
    return hi * 2 ** 32 + lo
  }
}

/**
 * Decodes a Delta DV bitmap (magic + 64-bit portable Roaring) to the deleted row indexes
 * (0-based positions within the data file), strictly ascending. Row indexes above 2^53 cannot
 * occur in practice (files that large do not exist) and are rejected.
 * Throws RoaringFormatError, saying which container breaks which rule, on a bad magic number,
 * truncation, trailing bytes, unsorted or duplicate values, overlapping runs, or a header
 * cardinality that disagrees with its container.
 */
export function decodeDeletionBitmap(bytes: Uint8Array, limits: BitmapLimits = {}): number[] {
  const reader = new ByteReader(bytes)
  const bound = { maxValues: limits.maxValues ?? Infinity, rows: limits.rows ?? Infinity, count: 0 }
  const magic = reader.u32()
  if (magic !== DV_MAGIC) throw new RoaringFormatError(`bad magic number ${magic} (want ${DV_MAGIC})`)
  const buckets = reader.u64()
  const out: number[] = []
  let lastKey = -1
  for (let b = 0; b < buckets; b++) {
    const key = reader.u32()
    if (key <= lastKey) throw new RoaringFormatError(`bucket ${b}: key ${key} not above the previous key ${lastKey}`)
    if (key > MAX_BUCKET_KEY) throw new RoaringFormatError(`bucket ${b}: key ${key} exceeds 2^53 row indexes`)
    lastKey = key
    const high = key * 2 ** 32
    if (high >= bound.rows)
      throw new RoaringFormatError(`bucket ${b}: rows from ${high} on, the file has ${bound.rows} rows`)
    for (const low of readBitmap32(reader, b, high, bound)) out.push(high + low)
  }
  // Why: sizeInBytes is the exact serialized size, so leftovers mean a header undercounted a container.
  if (reader.pos !== bytes.length) {
    const left = bytes.length - reader.pos
    throw new RoaringFormatError(`${left} bytes left after the last container (at byte ${reader.pos})`)
  }
  return out
}

/**
 * Bounds checked before a container is expanded, so a few crafted bytes cannot ask for billions
 * of row indexes: `maxValues` (the log's cardinality, at most the file's rows) and `rows` (every
 * index must be below it).
 */
export interface BitmapLimits {
  maxValues?: number
  rows?: number
}

/** One container's descriptor from the 32-bit bitmap header. */
interface ContainerHeader {
  key: number
  cardinality: number
  isRun: boolean
}

/**
 * Reads one 32-bit portable RoaringBitmap at the reader's position, leaving the reader just
 * after it (so the next bucket follows). Returns its values in strictly ascending order.
 */
function readBitmap32(
  reader: ByteReader,
  bucket: number,
  high64: number,
  bound: { maxValues: number; rows: number; count: number },
): number[] {
  const headers = readHeaders(reader, bucket)
  const values: number[] = []
  for (const [i, header] of headers.entries()) {
    const kind = header.isRun ? 'run' : header.cardinality <= ARRAY_MAX ? 'array' : 'bitmap'
    const where = `${kind} container ${i} of bucket ${bucket}`
    bound.count += header.cardinality
    if (bound.count > bound.maxValues) {
      throw new RoaringFormatError(
        `${where}: the headers claim at least ${bound.count} deleted rows, more than ` +
          `the ${bound.maxValues} allowed (the log's cardinality, at most the file's rows)`,
      )
    }
    if (high64 + header.key * 65536 >= bound.rows) {
      throw new RoaringFormatError(
        `${where}: holds rows from ${high64 + header.key * 65536} on, the file has ${bound.rows} rows`,
      )
    }
    const before = values.length
    const high = header.key * 65536
    if (kind === 'run') readRunContainer(reader, high, values, where)
    else if (kind === 'array') readArrayContainer(reader, high, header.cardinality, values, where)
    else readBitmapContainer(reader, high, values)
    const count = values.length - before
    if (count !== header.cardinality) {
      throw new RoaringFormatError(`${where}: holds ${count} values, its header says ${header.cardinality}`)
    }
    const last = high64 + values[values.length - 1]
    if (count && last >= bound.rows)
      throw new RoaringFormatError(`${where}: deletes row ${last}, the file has ${bound.rows} rows`)
  }
  return values
}

/** Parses cookie, optional run-flag bitset, key/cardinality pairs and the skipped offset header. */
function readHeaders(reader: ByteReader, bucket: number): ContainerHeader[] {
  const cookie = reader.u32()
  let size: number
  let runFlags: Uint8Array | undefined
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1
    const flagBytes = Math.ceil(size / 8)
    reader.need(flagBytes)
    runFlags = reader.bytes.subarray(reader.pos, reader.pos + flagBytes)
    reader.pos += flagBytes
  } else if (cookie === SERIAL_COOKIE_NO_RUN) {
    size = reader.u32()
    if (size > 65536) throw new RoaringFormatError(`bucket ${bucket}: ${size} containers is more than 65536`)
  } else {
    throw new RoaringFormatError(`bucket ${bucket}: unknown cookie ${cookie}`)
  }
  const headers: ContainerHeader[] = []
  for (let i = 0; i < size; i++) {
    const key = reader.u16()
    const previous = headers[i - 1]?.key ?? -1
    if (key <= previous) {
      throw new RoaringFormatError(`bucket ${bucket}: container ${i} key ${key} not above the previous key ${previous}`)
    }
    const cardinality = reader.u16() + 1
    const isRun = runFlags !== undefined && (runFlags[i >> 3] & (1 << (i & 7))) !== 0
    headers.push({ key, cardinality, isRun })
  }
  // The offset header only speeds up random access; containers are read in order anyway.
  if (!runFlags || size >= NO_OFFSET_THRESHOLD) {
    reader.need(4 * size)
    reader.pos += 4 * size
  }
  return headers
}

function readArrayContainer(reader: ByteReader, high: number, cardinality: number, out: number[], where: string): void {
  let last = -1
  for (let i = 0; i < cardinality; i++) {
    const low = reader.u16()
    if (low <= last) {
      throw new RoaringFormatError(`${where}: values not strictly ascending at index ${i} (${low} after ${last})`)
    }
    last = low
    out.push(high + low)
  }
}

function readRunContainer(reader: ByteReader, high: number, out: number[], where: string): void {
  const runs = reader.u16()
  let lastEnd = -1 // last value of the previous run
  for (let r = 0; r < runs; r++) {
    const start = reader.u16()
    const length = reader.u16() + 1
    if (start + length > 65536) {
      throw new RoaringFormatError(`${where}: run ${r} (${start}+${length}) leaves its container`)
    }
    if (start <= lastEnd) {
      throw new RoaringFormatError(`${where}: run ${r} starts at ${start}, not after the previous run's end ${lastEnd}`)
    }
    lastEnd = start + length - 1
    for (let i = 0; i < length; i++) out.push(high + start + i)
  }
}

function readBitmapContainer(reader: ByteReader, high: number, out: number[]): void {
  reader.need(8192)
  for (let word = 0; word < 2048; word++) {
    const bits = reader.view.getUint32(reader.pos + word * 4, true)
    if (bits === 0) continue
    for (let bit = 0; bit < 32; bit++) if (bits & (1 << bit)) out.push(high + word * 32 + bit)
  }
  reader.pos += 8192
}

/** How many rows of [start, end) the sorted `deleted` list names (to skip fully deleted row groups). */
export function countDeletedIn(deleted: readonly number[], start: number, end: number): number {
  return lowerBound(deleted, end) - lowerBound(deleted, start)
}

/** True when `row` is in the sorted `deleted` list (binary search). */
export function isDeleted(deleted: readonly number[], row: number): boolean {
  const at = lowerBound(deleted, row)
  return at < deleted.length && deleted[at] === row
}
