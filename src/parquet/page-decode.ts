/**
 * The fast column path: one column chunk's pages decoded straight into one typed array, using
 * hyparquet's page-level pieces (header, decompression, RLE/bit-packing, plain values) but not its
 * row assembly, which builds a JS value per row and a JS array per list row (the embedding list
 * column decoded at ~1M rows/s that way, and was the slowest column of a unit).
 *
 * Covered: flat columns (required, or optional floats whose nulls become NaN) and lists of floats
 * whose every row has the same length and no null (fixed_list), in data pages v1 and v2, PLAIN or
 * dictionary encoded. Anything else returns undefined and the caller uses hyparquet's general
 * path, which also produces the precise errors (nulls in an int column, ragged lists, …).
 */
import type { ColumnMetaData, Compressors, DataReader, PageHeader, SchemaTree } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js'
import { decompressPage } from 'hyparquet/src/datapage.js'
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js'
import { readPlain } from 'hyparquet/src/plain.js'
import {
  allocate,
  concat,
  fastSupported,
  lookup,
  spreadNulls,
  toDomain,
  type FastEncoding,
  type FastValues,
} from './page-values.ts'
import { ownsBuffer } from '../util/typed.ts'

/** A chunk decoded by the fast path: `width` values per row for file rows [rowStart, rowStart + rows). */
export interface FastChunk {
  rowStart: number
  rows: number
  width: number
  values: FastValues
}

/** The column chunk to decode and the rows needed from it. */
export interface FastRequest {
  /** The chunk's bytes (from its first page header to its end). */
  bytes: Uint8Array
  meta: ColumnMetaData
  /** Root to leaf (hyparquet's getSchemaPath). */
  schemaPath: SchemaTree[]
  encoding: string
  /** File row of the row group's first row. */
  groupStart: number
  /** File rows [start, end) needed (pages wholly outside may be skipped). */
  start: number
  end: number
  compressors?: Compressors
}

/** Levels and values of one data page. */
interface Page {
  defs?: Uint8Array
  reps?: Uint8Array
  values?: FastValues
  rows: number
}

/** Shape of the column: flat leaf, or a 3-level list of a leaf. */
interface Shape {
  list: boolean
  maxDef: number
  encoding: FastEncoding
}

/** Decodes a chunk by the fast path, or returns undefined when it needs the general path. */
export function decodeChunkFast(req: FastRequest): FastChunk | undefined {
  const shape = shapeOf(req)
  if (!shape) return undefined
  const reader: DataReader = {
    view: new DataView(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength),
    offset: 0,
  }
  let dictionary: FastValues | undefined
  const pages: Page[] = []
  let row = req.groupStart // file row of the next page's first row
  let first = -1
  while (row < req.end && reader.offset < reader.view.byteLength - 1) {
    const header = parquetHeader(reader)
    const start = reader.offset
    reader.offset += header.compressed_page_size
    const body = req.bytes.subarray(start, reader.offset)
    if (header.type === 'DICTIONARY_PAGE') {
      dictionary = readDictionary(body, header, req, shape)
      if (!dictionary) return undefined
      continue
    }
    const rows = pageRows(header, shape)
    if (rows !== undefined && row + rows <= req.start) {
      row += rows
      continue
    } // before the range
    const page = readData(body, header, req, shape, dictionary)
    if (!page) return undefined
    if (first < 0) first = row
    pages.push(page)
    row += page.rows
  }
  return first < 0 ? undefined : assemble(pages, shape, first)
}

function shapeOf(req: FastRequest): Shape | undefined {
  const path = req.schemaPath
  const leaf = path[path.length - 1].element
  if (!fastSupported(leaf, req.encoding)) return undefined
  const list = req.encoding === 'fixed_list'
  if (list ? path.length !== 4 || path[2].element.repetition_type !== 'REPEATED' : path.length !== 2) return undefined
  if (path.slice(1).some((node, i) => node.element.repetition_type === 'REPEATED' && !(list && i === 1)))
    return undefined
  const maxDef = path.slice(1).filter(node => node.element.repetition_type !== 'REQUIRED').length
  return { list, maxDef, encoding: req.encoding as FastEncoding }
}

/** Rows of a data page known from its header (v2, or v1 of a flat column), else undefined. */
function pageRows(header: PageHeader, shape: Shape): number | undefined {
  if (header.data_page_header_v2) return header.data_page_header_v2.num_rows
  return shape.list ? undefined : header.data_page_header?.num_values
}

function readDictionary(body: Uint8Array, header: PageHeader, req: FastRequest, shape: Shape): FastValues | undefined {
  const count = header.dictionary_page_header?.num_values ?? 0
  const page = decompressPage(body, header.uncompressed_page_size, req.meta.codec, req.compressors)
  const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }
  const leaf = req.schemaPath[req.schemaPath.length - 1].element
  return toDomain(readPlain(reader, req.meta.type, count, leaf.type_length), shape.encoding, leaf)
}

/** Levels and values of a v1 or v2 data page; undefined for an encoding the fast path lacks. */
function readData(
  body: Uint8Array,
  header: PageHeader,
  req: FastRequest,
  shape: Shape,
  dictionary?: FastValues,
): Page | undefined {
  const v2 = header.data_page_header_v2
  const count = v2?.num_values ?? header.data_page_header?.num_values ?? 0
  const levels = v2
    ? levelsV2(body, header, req, shape)
    : header.data_page_header
      ? levelsV1(body, header, req, shape)
      : undefined
  if (!levels) return undefined
  const { defs, reps, reader, valueBytes } = levels
  const nonNull = defs ? countFull(defs, shape.maxDef) : count
  const values = readValues(
    reader,
    v2?.encoding ?? header.data_page_header?.encoding,
    nonNull,
    valueBytes,
    req,
    shape,
    dictionary,
  )
  if (!values) return undefined
  const rows = v2 ? v2.num_rows : reps ? countRows(reps) : count
  return { defs, reps, values, rows }
}

/** A data page's levels, and a reader at its (decompressed) values. */
interface PageLevels {
  defs?: Uint8Array
  reps?: Uint8Array
  reader: DataReader
  valueBytes: number
}

/** v2: uncompressed levels of known lengths first, then the values, compressed on their own. */
function levelsV2(body: Uint8Array, header: PageHeader, req: FastRequest, shape: Shape): PageLevels {
  const v2 = header.data_page_header_v2!
  const count = v2.num_values
  const levels = { view: new DataView(body.buffer, body.byteOffset, body.byteLength), offset: 0 }
  const reps = shape.list ? levelsOf(levels, 1, count, v2.repetition_levels_byte_length) : undefined
  levels.offset = v2.repetition_levels_byte_length
  // v2 counts its nulls: with none, every level is the maximum and need not be decoded.
  const defs =
    shape.maxDef && v2.num_nulls ? levelsOf(levels, shape.maxDef, count, v2.definition_levels_byte_length) : undefined
  const skip = v2.repetition_levels_byte_length + v2.definition_levels_byte_length
  const valueBytes = header.uncompressed_page_size - skip
  let data = body.subarray(skip)
  if (v2.is_compressed !== false && valueBytes) data = decompressPage(data, valueBytes, req.meta.codec, req.compressors)
  return {
    defs,
    reps,
    valueBytes,
    reader: { view: new DataView(data.buffer, data.byteOffset, data.byteLength), offset: 0 },
  }
}

/** v1: the whole page compressed; length-prefixed levels, then the values. */
function levelsV1(body: Uint8Array, header: PageHeader, req: FastRequest, shape: Shape): PageLevels {
  const count = header.data_page_header!.num_values
  const page = decompressPage(body, header.uncompressed_page_size, req.meta.codec, req.compressors)
  const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }
  const reps = shape.list ? levelsOf(reader, 1, count) : undefined
  const defs = shape.maxDef ? levelsOf(reader, shape.maxDef, count) : undefined
  return { defs, reps, reader, valueBytes: page.byteLength - reader.offset }
}

/** RLE/bit-packed levels of `count` values (v1: length-prefixed; v2: `length` bytes). */
function levelsOf(reader: DataReader, max: number, count: number, length?: number): Uint8Array {
  const out = new Uint8Array(count)
  if (max === 1) readLevels1(reader, out, length)
  else readRleBitPackedHybrid(reader, 32 - Math.clz32(max), out, length)
  return out
}

/**
 * The RLE/bit-packed hybrid at bit width 1 (levels whose maximum is 1: list repetition, optional
 * flat columns), a byte at a time rather than a bit at a time as the general decoder goes.
 * Throws when the runs end before `out` is full (the caller falls back to the general path).
 */
function readLevels1(reader: DataReader, out: Uint8Array, length?: number): void {
  const view = reader.view
  if (length === undefined) {
    length = view.getUint32(reader.offset, true)
    reader.offset += 4
  }
  const bytes = new Uint8Array(view.buffer, view.byteOffset + reader.offset, length)
  let at = 0
  let seen = 0
  while (seen < out.length && at < bytes.length) {
    let header = 0
    for (let shift = 0, b = 0x80; b & 0x80; shift += 7) header |= ((b = bytes[at++]) & 0x7f) << shift
    if (header & 1) {
      for (let g = header >>> 1; g > 0 && seen < out.length; g--) {
        const byte = bytes[at++]
        for (let j = 0; j < 8 && seen < out.length; j++) out[seen++] = (byte >> j) & 1
      }
    } else {
      const end = Math.min(out.length, seen + (header >>> 1))
      out.fill(bytes[at++] & 1, seen, end)
      seen = end
    }
  }
  if (seen < out.length) throw new Error(`levels end after ${seen} of ${out.length} values`)
  reader.offset += length
}

function countFull(defs: Uint8Array, maxDef: number): number {
  let n = 0
  for (let i = 0; i < defs.length; i++) if (defs[i] === maxDef) n++
  return n
}

function countRows(reps: Uint8Array): number {
  let n = 0
  for (let i = 0; i < reps.length; i++) if (reps[i] === 0) n++
  return n
}

function readValues(
  reader: DataReader,
  encoding: string | undefined,
  count: number,
  bytes: number,
  req: FastRequest,
  shape: Shape,
  dictionary?: FastValues,
): FastValues | undefined {
  const leaf = req.schemaPath[req.schemaPath.length - 1].element
  if (encoding === 'PLAIN')
    return toDomain(readPlain(reader, req.meta.type, count, leaf.type_length), shape.encoding, leaf)
  if ((encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY') && dictionary) {
    const bitWidth = reader.view.getUint8(reader.offset++)
    const indices = new Int32Array(count)
    if (bitWidth) readRleBitPackedHybrid(reader, bitWidth, indices, bytes - 1)
    return lookup(dictionary, indices)
  }
  return undefined
}

/** One typed array for the pages: nulls spread as NaN; lists checked to be one fixed length. */
function assemble(pages: Page[], shape: Shape, rowStart: number): FastChunk | undefined {
  const rows = pages.reduce((n, p) => n + p.rows, 0)
  const hasNull = (p: Page): boolean => p.defs !== undefined && p.values!.length < p.defs.length
  if (!rows) return undefined
  if (!shape.list) {
    // A null is NaN in float32 and an error elsewhere (the general path names it).
    if (shape.encoding !== 'float32' && pages.some(hasNull)) return undefined
    const parts = pages.map(p =>
      hasNull(p) ? spreadNulls(p.values as Float32Array, p.defs!, shape.maxDef) : p.values!,
    )
    return { rowStart, rows, width: 1, values: concat(parts, shape.encoding, rows) }
  }
  let total = 0
  for (const p of pages) {
    if (hasNull(p)) return undefined // a null or empty list somewhere
    total += p.values!.length
  }
  const width = rows ? total / rows : 0
  if (!Number.isInteger(width) || !pages.every(p => p.reps!.length === p.rows * width && uniformRows(p.reps!, width)))
    return undefined
  return {
    rowStart,
    rows,
    width,
    values: concat(
      pages.map(p => p.values!),
      shape.encoding,
      total,
    ),
  }
}

/** Whether every row (a run starting at repetition level 0) has exactly `width` elements. */
function uniformRows(reps: Uint8Array, width: number): boolean {
  if (reps.length % width !== 0) return false
  for (let i = 0; i < reps.length; i++) if ((reps[i] === 0) !== (i % width === 0)) return false
  return true
}

/** Rows of `sel` (file rows [start, end), or the `live` ones) out of a fast chunk, in order. */
export function selectFast(
  chunk: FastChunk,
  sel: { start: number; end: number; live?: Uint32Array },
  encoding: FastEncoding,
): FastValues {
  const w = chunk.width
  const base = chunk.rowStart
  if (!sel.live) {
    const from = (sel.start - base) * w
    const to = (sel.end - base) * w
    // The whole chunk in an array of its own (a concatenation, a dictionary lookup, a page with
    // nothing else in it) is handed over as it is: one fresh copy less per column of a unit that
    // is a whole row group. A view into shared bytes (an uncompressed page inside the fetched
    // chunk) is copied, so transferring the result can never detach them.
    if (from === 0 && to === chunk.values.length && ownsBuffer(chunk.values)) return chunk.values
    return chunk.values.slice(from, to)
  }
  const n = sel.live.length
  const out = allocate(encoding, n * w)
  const src = chunk.values
  for (let k = 0; k < n; k++) {
    const at = (sel.live[k] - base) * w
    for (let j = 0; j < w; j++) out[k * w + j] = src[at + j]
  }
  return out
}
