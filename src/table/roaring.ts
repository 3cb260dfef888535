/**
 * Decoder for Delta's deletion-vector bitmap: a magic number followed by a 64-bit
 * RoaringBitmap in the "portable" serialization (Delta PROTOCOL.md "Deletion Vector Format";
 * RoaringFormatSpec). Hand-written because no Roaring library runs in the browser without WASM.
 *
 * Layout (all little-endian):
 *   u32 magic = 1681511377
 *   u64 numBuckets
 *   per bucket: u32 key (high 32 bits of the row index), then a 32-bit portable RoaringBitmap.
 */

/** Magic number Delta writes before the 64-bit bitmap. */
export const DV_MAGIC = 1681511377

const SERIAL_COOKIE_NO_RUN = 12346
const SERIAL_COOKIE = 12347
/** Below this many containers, a bitmap with run containers has no offset header. */
const NO_OFFSET_THRESHOLD = 4
/** Array containers hold at most this many values; more means a 8 KiB bitmap container. */
const ARRAY_MAX = 4096

/** Thrown for malformed bitmap bytes; callers wrap it into TableError('corrupt-file', url). */
export class RoaringFormatError extends Error {}

/** Little-endian cursor over bytes that throws RoaringFormatError on reads past the end (truncation). */
export class ByteReader {
  readonly view: DataView
  pos = 0
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  need(n: number): void {
    if (this.pos + n > this.bytes.length) {
      throw new RoaringFormatError(`roaring: truncated at byte ${this.pos} (need ${n} more of ${this.bytes.length})`)
    }
  }
  u16(): number { this.need(2); const v = this.view.getUint16(this.pos, true); this.pos += 2; return v }
  u32(): number { this.need(4); const v = this.view.getUint32(this.pos, true); this.pos += 4; return v }
  u64(): number {
    const lo = this.u32()
    const hi = this.u32()
    if (hi > 0x1fffff) throw new RoaringFormatError(`roaring: 64-bit count ${hi}:${lo} too large`)
    return hi * 2 ** 32 + lo
  }
}

/**
 * Decodes a Delta DV bitmap (magic + 64-bit portable Roaring) to the sorted deleted row
 * indexes (0-based positions within the data file). Row indexes above 2^53 cannot occur in
 * practice (files that large do not exist) and are rejected.
 * Throws RoaringFormatError on a bad magic number, truncation or inconsistent headers.
 */
export function decodeDeletionBitmap(bytes: Uint8Array): number[] {
  const reader = new ByteReader(bytes)
  const magic = reader.u32()
  if (magic !== DV_MAGIC) throw new RoaringFormatError(`roaring: bad magic number ${magic} (want ${DV_MAGIC})`)
  const buckets = reader.u64()
  const out: number[] = []
  let lastKey = -1
  for (let b = 0; b < buckets; b++) {
    const key = reader.u32()
    if (key <= lastKey) throw new RoaringFormatError(`roaring: bucket keys not ascending (${key} after ${lastKey})`)
    if (key > 0x1fffff) throw new RoaringFormatError(`roaring: bucket key ${key} exceeds 2^53 row indexes`)
    lastKey = key
    const high = key * 2 ** 32
    for (const low of readBitmap32(reader)) out.push(high + low)
  }
  return out
}

/** One container's descriptor from the 32-bit bitmap header. */
interface ContainerHeader { key: number; cardinality: number; isRun: boolean }

/**
 * Reads one 32-bit portable RoaringBitmap at the reader's position, leaving the reader just
 * after it (so the next bucket follows). Returns its values in ascending order.
 */
export function readBitmap32(reader: ByteReader): number[] {
  const headers = readHeaders(reader)
  const values: number[] = []
  for (const header of headers) {
    const high = header.key * 65536
    if (header.isRun) readRunContainer(reader, high, values)
    else if (header.cardinality <= ARRAY_MAX) readArrayContainer(reader, high, header.cardinality, values)
    else readBitmapContainer(reader, high, header.cardinality, values)
  }
  return values
}

/** Parses cookie, optional run-flag bitset, key/cardinality pairs and the skipped offset header. */
function readHeaders(reader: ByteReader): ContainerHeader[] {
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
    if (size > 65536) throw new RoaringFormatError(`roaring: ${size} containers is more than 65536`)
  } else {
    throw new RoaringFormatError(`roaring: unknown cookie ${cookie}`)
  }
  const headers: ContainerHeader[] = []
  for (let i = 0; i < size; i++) {
    const key = reader.u16()
    // Callers binary-search the output, so it must come out sorted.
    if (i > 0 && key <= headers[i - 1].key) throw new RoaringFormatError(`roaring: container keys not ascending at ${i}`)
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

function readArrayContainer(reader: ByteReader, high: number, cardinality: number, out: number[]): void {
  for (let i = 0; i < cardinality; i++) out.push(high + reader.u16())
}

function readRunContainer(reader: ByteReader, high: number, out: number[]): void {
  const runs = reader.u16()
  for (let r = 0; r < runs; r++) {
    const start = reader.u16()
    const length = reader.u16() + 1
    if (start + length > 65536) throw new RoaringFormatError(`roaring: run ${start}+${length} leaves its container`)
    for (let i = 0; i < length; i++) out.push(high + start + i)
  }
}

function readBitmapContainer(reader: ByteReader, high: number, cardinality: number, out: number[]): void {
  reader.need(8192)
  const before = out.length
  for (let word = 0; word < 2048; word++) {
    const bits = reader.view.getUint32(reader.pos + word * 4, true)
    if (bits === 0) continue
    for (let bit = 0; bit < 32; bit++) if (bits & (1 << bit)) out.push(high + word * 32 + bit)
  }
  reader.pos += 8192
  if (out.length - before !== cardinality) {
    throw new RoaringFormatError(`roaring: bitmap container holds ${out.length - before} values, header says ${cardinality}`)
  }
}

/**
 * Builds a keep-mask for `numRows` rows of a file: mask[i] = 1 when row i is live.
 * `deleted`: sorted deleted row indexes (from decodeDeletionBitmap).
 */
export function liveRowMask(deleted: readonly number[], numRows: number): Uint8Array {
  const mask = new Uint8Array(numRows).fill(1)
  for (const row of deleted) if (row < numRows) mask[row] = 0
  return mask
}

/** Index of the first entry ≥ `row` in the sorted `deleted` list (binary search). */
function lowerBound(deleted: readonly number[], row: number): number {
  let lo = 0
  let hi = deleted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (deleted[mid] < row) lo = mid + 1
    else hi = mid
  }
  return lo
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
