/**
 * Deletion vectors (Delta PROTOCOL.md "Deletion Vectors", "Deletion Vector File Storage Format"):
 * find the bitmap a descriptor points to, read it with one Range request, verify its size and
 * CRC-32, and decode it to the deleted row indexes of the data file.
 */
import { decodeDeletionBitmap, RoaringFormatError } from './roaring.ts'
import { send, statusError } from './http.ts'
import { z85Decode, z85DecodeUuid } from './z85.ts'
import { TableError, type DeletionVectorDescriptor, type HttpOptions } from './types.ts'

/** Delta's DV file name core; its own test suites write `test%dv%prefix-deletion_vector_<uuid>.bin`. */
const FILE_CORE = 'deletion_vector_'
const TEST_FILE_CORE = 'test%dv%prefix-deletion_vector_'
/** A UUID is 16 bytes = 20 Z85 characters; anything before them is the random directory prefix. */
const UUID_CHARS = 20

/**
 * Loads a deletion vector. Returns the deleted row indexes (0-based, strictly ascending) within
 * the data file. `tableUrl` ends with '/'; `dataFile` (the data file's URL) names an inline DV in
 * errors. Throws TableError 'corrupt-file' (naming the DV URL) on a bad size, checksum, bitmap or
 * cardinality, 'unsupported-feature' for a path off the table's origin (before any request), and
 * 'http' when the file cannot be fetched.
 */
export async function loadDeletionVector(
  dv: DeletionVectorDescriptor,
  tableUrl: string,
  opts: HttpOptions = {},
  dataFile?: string,
  rows?: number,
): Promise<number[]> {
  checkBounds(dv, dataFile, rows)
  const { bytes, where } = dv.storageType === 'i' ? inlineBytes(dv, dataFile) : await fileBytes(dv, tableUrl, opts)
  let deleted: number[]
  try {
    deleted = decodeDeletionBitmap(bytes, { maxValues: Math.min(dv.cardinality, rows ?? Infinity), rows })
  } catch (error) {
    if (!(error instanceof RoaringFormatError)) throw error
    throw corrupt(where, error.message)
  }
  if (deleted.length !== dv.cardinality) {
    throw corrupt(where, `holds ${deleted.length} deleted rows, the log says ${dv.cardinality}`)
  }
  return deleted
}

/**
 * What the log claims of a deletion vector, held against the data file's row count (from its
 * footer) before a byte is fetched or decoded: it cannot delete more rows than the file has, and
 * its bitmap cannot need more bytes than a full bitmap of that many rows (one 8 KiB container per
 * 65 536 rows, plus headers).
 */
function checkBounds(dv: DeletionVectorDescriptor, dataFile: string | undefined, rows: number | undefined): void {
  if (rows === undefined) return
  const where = `deletion vector of ${dataFile ?? 'a data file'}`
  if (dv.cardinality > rows)
    throw corrupt(where, `the log says it deletes ${dv.cardinality} rows, the file has ${rows}`)
  const maxBytes = maxBitmapBytes(rows)
  if (dv.sizeInBytes > maxBytes) {
    throw corrupt(
      where,
      `sizeInBytes ${dv.sizeInBytes} is more than a bitmap of ${rows} rows needs (at most ${maxBytes})`,
    )
  }
}

/** Largest serialized bitmap (magic, buckets, headers, full 8 KiB containers) for row indexes below `rows`. */
export function maxBitmapBytes(rows: number): number {
  const containers = Math.ceil(rows / 65536) + 1
  const buckets = Math.ceil(rows / 2 ** 32) + 1
  return 12 + buckets * 16 + containers * (8192 + 8)
}

function corrupt(where: string, why: string): TableError {
  const url = where.startsWith('inline') ? undefined : where
  return new TableError(`${where}: corrupt deletion vector: ${why}`, 'corrupt-file', url)
}

function inlineBytes(dv: DeletionVectorDescriptor, dataFile?: string): { bytes: Uint8Array; where: string } {
  // The Z85 text means nothing to a user; the data file it belongs to does.
  const where = dataFile ? `inline deletion vector of ${dataFile}` : `inline deletion vector '${dv.pathOrInlineDv}'`
  try {
    return { bytes: z85Decode(dv.pathOrInlineDv, dv.sizeInBytes), where }
  } catch (error) {
    throw corrupt(where, (error as Error).message)
  }
}

/**
 * Candidate URLs of a DV file: storage type 'u' → `<table>/<prefix>/deletion_vector_<uuid>.bin`;
 * 'p' → the absolute path (see absoluteDvUrl).
 */
export function deletionVectorUrls(dv: DeletionVectorDescriptor, tableUrl: string): string[] {
  if (dv.storageType === 'p') return [absoluteDvUrl(dv.pathOrInlineDv, tableUrl)]
  if (dv.storageType !== 'u') {
    throw new TableError(`deletion vector storage type '${dv.storageType}' is unknown`, 'unsupported-feature')
  }
  const id = dv.pathOrInlineDv
  if (id.length < UUID_CHARS) throw corrupt(`deletion vector id '${id}'`, 'shorter than a UUID')
  const prefix = id.slice(0, -UUID_CHARS)
  const uuid = z85DecodeUuid(id.slice(-UUID_CHARS))
  const dir = tableUrl + (prefix ? `${encodeURIComponent(prefix)}/` : '')
  return [FILE_CORE, TEST_FILE_CORE].map(core => `${dir}${encodeURIComponent(core)}${uuid}.bin`)
}

/**
 * URL of a 'p' deletion vector. The log holds a URI, so its %-escapes are kept as they are (the
 * server decodes them once to find the file); a relative one is resolved against the table URL.
 * Why only the table's origin: a Spark-written path (`s3://…`, `file:/…`) cannot be fetched over
 * HTTP, and a path on another host must not see the table's requests (nor its credentials).
 */
function absoluteDvUrl(path: string, tableUrl: string): string {
  const tableOrigin = new URL(tableUrl).origin
  const url = URL.canParse(path, tableUrl) ? new URL(path, tableUrl) : undefined
  if (!url || url.origin === 'null' || url.origin !== tableOrigin) {
    throw new TableError(
      `deletion vector path '${path}' is not on the table's origin ${tableOrigin}: ` +
        'only deletion vectors served next to the table can be read',
      'unsupported-feature',
      path,
    )
  }
  return url.href
}

/**
 * Reads `[offset, offset + 4 + size + 4)`: big-endian u32 size, bitmap, big-endian CRC-32 (the
 * layout Delta writes with Java's DataOutputStream). The second candidate name is tried only on 404.
 */
async function fileBytes(
  dv: DeletionVectorDescriptor,
  tableUrl: string,
  opts: HttpOptions,
): Promise<{ bytes: Uint8Array; where: string }> {
  const offset = dv.offset ?? 1 // byte 0 of a DV file is the format version
  const end = offset + 4 + dv.sizeInBytes + 4
  const urls = deletionVectorUrls(dv, tableUrl)
  for (let i = 0; i < urls.length; i++) {
    const res = await send(urls[i], { headers: { Range: `bytes=${offset}-${end - 1}` } }, opts, tableUrl)
    if (res.status === 404 && i < urls.length - 1) continue
    if (!res.ok) throw statusError('GET', urls[i], res)
    let body = new Uint8Array(await res.arrayBuffer())
    // Why: a server that ignores Range sends the whole file with 200; cut the slice ourselves.
    if (res.status === 200) body = body.slice(offset, end)
    return { bytes: checkFramed(body, dv.sizeInBytes, urls[i]), where: urls[i] }
  }
  throw new TableError(`deletion vector ${dv.pathOrInlineDv}: no file found`, 'http', urls[0])
}

/** Verifies the size prefix and CRC-32 of one framed DV and returns the bitmap bytes. */
function checkFramed(body: Uint8Array, size: number, url: string): Uint8Array {
  if (body.length < size + 8) throw corrupt(url, `truncated: ${body.length} bytes, need ${size + 8}`)
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  const stored = view.getUint32(0)
  if (stored !== size) throw corrupt(url, `size field ${stored} differs from sizeInBytes ${size}`)
  const bitmap = body.subarray(4, 4 + size)
  const checksum = view.getUint32(4 + size)
  const actual = crc32(bitmap)
  if (checksum !== actual) throw corrupt(url, `CRC-32 ${hex(actual)} differs from stored ${hex(checksum)}`)
  return bitmap
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`
}

const CRC_TABLE = makeCrcTable()

function makeCrcTable(): Uint32Array {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
}

/** CRC-32 (IEEE 802.3, as java.util.zip.CRC32) of `bytes`, as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
