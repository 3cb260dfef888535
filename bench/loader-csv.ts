/**
 * The CSV side of the loader bench: parses CSV text, as it streams in, into the same columnar
 * typed batches the snapshot loader delivers (types.ts `Batch`), so "export to CSV, download,
 * parse" and "read the snapshot" end in the same place. Pure (no DOM, no fetch): runs in the page
 * and in Node tests.
 *
 * Dialect: the one `src/cli/export-csv.ts` writes — a header line, RFC 4180 quoting, empty field =
 * null, arrays as JSON text.
 */
import type { Batch, ColumnEncoding, DecodedColumn } from '../src/data/types.ts'
import { hashInt64, hashInteger, hashString } from '../src/util/hash.ts'

/** One column to decode from the CSV: its header name, encoding, and for hash32 what it holds. */
export interface CsvColumnSpec {
  name: string
  encoding: ColumnEncoding
  /** hash32 only: 'integer' hashes the value as int64 (as the loader hashes ids), 'string' its UTF-8. */
  source?: 'string' | 'integer'
  /** fixed_list: elements per row. */
  length?: number
}

/** Incremental parser: feed text chunks, get full batches back; `end()` flushes the tail. */
export interface CsvBatcher {
  push(chunk: string): Batch[]
  end(): Batch[]
  /** Data rows parsed so far. */
  readonly rows: number
}

/** A column under construction: its spec, output array and write position. */
interface Builder {
  spec: CsvColumnSpec
  values: Float32Array | Int32Array | Uint32Array | Uint8Array
  /** var_list only. */
  offsets?: Uint32Array
  list?: number[]
}

const QUOTE = 34
const COMMA = 44
const LF = 10
const CR = 13

/**
 * A batcher for `columns` (each must appear in the CSV header; other CSV columns are skipped)
 * emitting batches of `batchSize` rows (the last may be shorter).
 */
export function createCsvBatcher(columns: readonly CsvColumnSpec[], batchSize: number): CsvBatcher {
  if (!(batchSize > 0)) throw new RangeError(`createCsvBatcher: batchSize must be > 0, got ${batchSize}`)
  let carry = ''
  let slots: number[] | undefined // CSV field index → column index (-1: skipped)
  let builders = newBuilders(columns, batchSize)
  let fill = 0
  let rows = 0
  const out: Batch[] = []
  const onRecord = (fields: string[], quoted: boolean[]): void => {
    if (!slots) {
      slots = mapHeader(fields, columns)
      return
    }
    for (let f = 0; f < slots.length; f++) {
      const c = slots[f]!
      if (c >= 0) writeField(builders[c]!, fill, fields[f] ?? '', quoted[f] ?? false)
    }
    fill++
    rows++
    if (fill === batchSize) {
      out.push(toBatch(builders, fill, rows - fill))
      builders = newBuilders(columns, batchSize)
      fill = 0
    }
  }
  const drain = (): Batch[] => out.splice(0, out.length)
  return {
    push(chunk) {
      carry = parseRecords(carry + chunk, onRecord, false)
      return drain()
    },
    end() {
      parseRecords(carry, onRecord, true)
      carry = ''
      if (!slots) throw new Error('CSV: no header line')
      if (fill > 0) {
        out.push(toBatch(builders, fill, rows - fill))
        fill = 0
      }
      return drain()
    },
    get rows() {
      return rows
    },
  }
}

/** Header names → column indices by position (-1: not requested); a requested column missing from the header throws naming it. */
function mapHeader(header: string[], columns: readonly CsvColumnSpec[]): number[] {
  for (const c of columns)
    if (!header.includes(c.name)) throw new Error(`CSV: no column '${c.name}' in the header (${header.join(', ')})`)
  return header.map(name => columns.findIndex(c => c.name === name))
}

/**
 * Parses every complete record of `text` (RFC 4180; CRLF or LF), calling `onRecord` with its
 * fields and whether each was quoted. Returns the unparsed tail (an incomplete last record),
 * or '' when `final` (the tail then counts as a record).
 */
export function parseRecords(
  text: string,
  onRecord: (fields: string[], quoted: boolean[]) => void,
  final: boolean,
): string {
  let i = 0
  const n = text.length
  while (i < n) {
    const start = i
    const fields: string[] = []
    const quoted: boolean[] = []
    let done = false
    while (!done) {
      if (i >= n) {
        if (!final) return text.slice(start)
        done = true
        break
      }
      let value: string
      if (text.charCodeAt(i) === QUOTE) {
        const close = closingQuote(text, i + 1)
        if (close < 0) {
          if (!final) return text.slice(start)
          throw new Error('CSV: unterminated quoted field at end of input')
        }
        value = text.slice(i + 1, close).replaceAll('""', '"')
        quoted.push(true)
        i = close + 1
      } else {
        let j = i
        while (j < n) {
          const c = text.charCodeAt(j)
          if (c === COMMA || c === LF || c === CR) break
          j++
        }
        value = text.slice(i, j)
        quoted.push(false)
        i = j
      }
      fields.push(value)
      if (i >= n) {
        if (!final) return text.slice(start)
        done = true
        break
      }
      const c = text.charCodeAt(i)
      if (c === COMMA) {
        i++
        continue
      }
      if (c === CR) i++
      if (i < n && text.charCodeAt(i) === LF) i++
      else if (i >= n && !final) return text.slice(start) // CR at the end: its LF may be in the next chunk
      done = true
    }
    onRecord(fields, quoted)
  }
  return ''
}

/** Index of the quote closing a field opened before `from` (doubled quotes skipped), or -1. */
function closingQuote(text: string, from: number): number {
  let j = from
  for (;;) {
    const q = text.indexOf('"', j)
    if (q < 0) return -1
    if (text.charCodeAt(q + 1) === QUOTE) {
      j = q + 2
      continue
    }
    // A quote that ends the text may be half of a doubled pair split across chunks; the caller
    // then finds the record incomplete and parses it again with the next chunk.
    return q
  }
}

function newBuilders(columns: readonly CsvColumnSpec[], n: number): Builder[] {
  return columns.map(spec => {
    switch (spec.encoding) {
      case 'float32':
        return { spec, values: new Float32Array(n) }
      case 'int32':
        return { spec, values: new Int32Array(n) }
      case 'uint32':
      case 'hash32':
        return { spec, values: new Uint32Array(n) }
      case 'bool':
        return { spec, values: new Uint8Array(n) }
      case 'fixed_list':
        return { spec, values: new Float32Array(n * listLength(spec)) }
      case 'var_list':
        return { spec, values: new Float32Array(0), offsets: new Uint32Array(n + 1), list: [] }
      case 'hash_list':
      case 'utf8':
        throw new Error(`CSV: column '${spec.name}': ${spec.encoding} has no CSV form`)
    }
  })
}

function listLength(spec: CsvColumnSpec): number {
  if (!spec.length || spec.length < 1) throw new Error(`CSV: fixed_list column '${spec.name}' needs a length`)
  return spec.length
}

/** Decodes one field into row `r` of its column. */
function writeField(b: Builder, r: number, text: string, quoted: boolean): void {
  const { spec } = b
  const isNull = text === '' && !quoted
  switch (spec.encoding) {
    case 'float32':
      b.values[r] = isNull ? NaN : Number(text)
      return
    case 'int32':
    case 'uint32':
      b.values[r] = notNull(spec, isNull, Number(text))
      return
    case 'bool':
      b.values[r] = notNull(spec, isNull, text === 'true' ? 1 : 0)
      return
    case 'hash32':
      b.values[r] = notNull(spec, isNull, spec.source === 'integer' ? hashIntegerText(text) : hashString(text))
      return
    case 'fixed_list':
      writeFixedList(b.values as Float32Array, r, spec.length!, isNull ? undefined : text)
      return
    case 'var_list':
      writeVarList(b, r, isNull ? undefined : text)
  }
}

/** int64 text → the loader's id hash; beyond 15 digits via BigInt, since Number() would round. */
function hashIntegerText(text: string): number {
  return text.length > 15 ? hashInt64(BigInt(text)) : hashInteger(Number(text))
}

function notNull(spec: CsvColumnSpec, isNull: boolean, v: number): number {
  if (isNull) throw new Error(`CSV: null in column '${spec.name}' (${spec.encoding} has no null)`)
  return v
}

/** JSON array text '[a,b,…]' → `length` floats at row `r` (null elements, missing or null list → NaN). */
function writeFixedList(out: Float32Array, r: number, length: number, text: string | undefined): void {
  const base = r * length
  const parts = text === undefined || text === 'null' ? [] : text.slice(1, -1).split(',')
  for (let k = 0; k < length; k++) {
    const p = parts[k]
    out[base + k] = p === undefined || p === 'null' ? NaN : Number(p)
  }
}

function writeVarList(b: Builder, r: number, text: string | undefined): void {
  const parts = text === undefined || text === 'null' || text === '[]' ? [] : text.slice(1, -1).split(',')
  for (const p of parts) b.list!.push(p === 'null' ? NaN : Number(p))
  b.offsets![r + 1] = b.list!.length
}

/** The first `size` rows of the builders as a Batch at stream `position`. */
function toBatch(builders: Builder[], size: number, position: number): Batch {
  const columns: Record<string, DecodedColumn> = {}
  for (const b of builders) {
    const { spec } = b
    if (spec.encoding === 'var_list') {
      columns[spec.name] = {
        name: spec.name,
        encoding: spec.encoding,
        values: Float32Array.from(b.list!),
        offsets: b.offsets!.slice(0, size + 1),
      }
    } else {
      const per = spec.encoding === 'fixed_list' ? spec.length! : 1
      const values = b.values.length === size * per ? b.values : b.values.slice(0, size * per)
      columns[spec.name] = {
        name: spec.name,
        encoding: spec.encoding,
        values,
        ...(per > 1 || spec.encoding === 'fixed_list' ? { length: per } : {}),
      }
    }
  }
  return { size, position, epoch: 0, columns }
}

/** Bytes of typed-array data in a batch (values + offsets) — the MB/s numerator. */
export function batchBytes(batch: Batch): number {
  let bytes = 0
  for (const c of Object.values(batch.columns)) bytes += c.values.byteLength + (c.offsets?.byteLength ?? 0)
  return bytes
}
