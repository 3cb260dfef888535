/**
 * `snaptrain scan --format npy`: rows as a stream of NumPy `.npy` (format 1.0) records that numpy
 * reads without pyarrow — the shard a Dask worker or a torchrun rank reads on the engine's side
 * (the bundle's snaptrain_continue.py `read_shard`). Per batch of rows:
 *
 *   1. a uint8 record holding UTF-8 JSON `{"format":"snaptrain-npy","version":1,"rows":n,
 *      "columns":[{"name","type","encoding"}…]}` (type: the Delta type, `array<…>` for lists);
 *   2. each column's arrays in column order, by encoding:
 *      - `float64`: values, float64 (null → NaN), then validity, uint8 1 = present (float, double,
 *        decimal; the validity tells a null from a NaN value, which the row-key hash keeps apart);
 *      - `int64`: values, int64 (null → 0), then validity, uint8 1 = present (byte, short,
 *        integer, long, boolean 0/1, date as days since 1970-01-01, timestamp as µs since the epoch);
 *      - `bytes`: offsets, int64 (n + 1), the UTF-8 (string) or raw (binary) bytes, uint8, validity;
 *      - `list`: offsets, int64 (n + 1) into the items, validity, then the items (offsets[n] of
 *        them) as one more column of the element type (its arrays as above, recursively).
 *
 * A reader loops "read one record" until end of stream; an empty scan still writes one batch of
 * 0 rows so the reader learns the columns. Structs and maps are refused naming the column.
 */
import type { DeltaType, Row, StructField } from '../table/types.ts'
import { Timestamp } from '../table/timestamp.ts'

/** Rows per batch: each batch is a few small records, and the reader's concatenation stays cheap. */
export const NPY_BATCH_ROWS = 65_536

/** How a column's values travel (see the module comment). */
type Encoding = 'float64' | 'int64' | 'bytes' | 'list'

const MS_PER_DAY = 86_400_000
const encoder = new TextEncoder()

/** The encoding of a Delta type; throws naming the column for a struct or map (or a list of them). */
export function npyEncoding(type: DeltaType, column: string): Encoding {
  if (typeof type !== 'string') {
    if (type.type === 'array') {
      npyEncoding(type.elementType, `${column}[]`)
      return 'list'
    }
    throw new Error(
      `--format npy: column '${column}' has type ${type.type}; npy carries scalar and array columns (use --columns, or --format jsonl)`,
    )
  }
  if (/^(float|double|decimal.*)$/.test(type)) return 'float64'
  if (/^(byte|short|integer|long|boolean|date|timestamp|timestamp_ntz)$/.test(type)) return 'int64'
  if (type === 'string' || type === 'binary') return 'bytes'
  throw new Error(`--format npy: column '${column}' has type ${type}, which npy does not carry`)
}

/** The type as the batch header names it: the Delta type string, `array<element>` for lists. */
function typeName(type: DeltaType): string {
  if (typeof type === 'string') return type
  return type.type === 'array' ? `array<${typeName(type.elementType)}>` : type.type
}

/**
 * Writes batches of rows as npy records to `sink`. `fields`: the columns in output order (checked
 * here, so a struct column fails before any row is read).
 */
export class NpyWriter {
  private pending: Row[] = []
  private batches = 0
  private readonly header: { name: string; type: string; encoding: Encoding }[]

  constructor(
    private readonly fields: readonly StructField[],
    private readonly sink: (chunk: Uint8Array) => void,
  ) {
    this.header = fields.map(f => ({ name: f.name, type: typeName(f.type), encoding: npyEncoding(f.type, f.name) }))
  }

  /** Adds rows; full batches are written as they fill. */
  push(rows: readonly Row[]): void {
    for (const row of rows) {
      this.pending.push(row)
      if (this.pending.length >= NPY_BATCH_ROWS) this.flush()
    }
  }

  /** Writes what is pending (or, when nothing was ever written, one batch of 0 rows). */
  end(): void {
    if (this.pending.length > 0 || this.batches === 0) this.flush()
  }

  private flush(): void {
    const rows = this.pending
    this.pending = []
    this.batches++
    const meta = { format: 'snaptrain-npy', version: 1, rows: rows.length, columns: this.header }
    const records = [npyRecord(encoder.encode(JSON.stringify(meta)))]
    for (const field of this.fields) {
      records.push(
        ...columnRecords(
          rows.map(r => r[field.name]),
          field.type,
          field.name,
        ),
      )
    }
    this.sink(concat(records))
  }
}

/** The npy records of one column's values (null/undefined = null). */
function columnRecords(values: readonly unknown[], type: DeltaType, column: string): Uint8Array[] {
  const n = values.length
  const encoding = npyEncoding(type, column)
  const valid = new Uint8Array(n)
  for (let i = 0; i < n; i++) valid[i] = values[i] === null || values[i] === undefined ? 0 : 1
  if (encoding === 'float64') {
    const out = new Float64Array(n)
    for (let i = 0; i < n; i++) out[i] = valid[i] ? Number(values[i]) : NaN
    return [npyRecord(out), npyRecord(valid)]
  }
  if (encoding === 'int64') {
    const out = new BigInt64Array(n)
    for (let i = 0; i < n; i++) if (valid[i]) out[i] = toInt64(values[i], type as string, column)
    return [npyRecord(out), npyRecord(valid)]
  }
  const offsets = new BigInt64Array(n + 1)
  if (encoding === 'bytes') {
    const parts: Uint8Array[] = []
    let at = 0
    for (let i = 0; i < n; i++) {
      if (valid[i]) {
        const v = values[i]
        const bytes = v instanceof Uint8Array ? v : encoder.encode(String(v))
        parts.push(bytes)
        at += bytes.length
      }
      offsets[i + 1] = BigInt(at)
    }
    return [npyRecord(offsets), npyRecord(concat(parts)), npyRecord(valid)]
  }
  const items: unknown[] = []
  for (let i = 0; i < n; i++) {
    if (valid[i]) for (const item of Array.from(values[i] as ArrayLike<unknown>)) items.push(item)
    offsets[i + 1] = BigInt(items.length)
  }
  const element = (type as { elementType: DeltaType }).elementType
  return [npyRecord(offsets), npyRecord(valid), ...columnRecords(items, element, `${column}[]`)]
}

/** A non-null value of an int64-encoded type as the integer the module comment names. */
function toInt64(v: unknown, type: string, column: string): bigint {
  if (typeof v === 'bigint') return v
  if (typeof v === 'boolean') return v ? 1n : 0n
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
  const ts = Timestamp.from(v)
  if (ts) return ts.micros
  // Dates are 'YYYY-MM-DD' in rows (values.ts), partition values too.
  if (typeof v === 'string' && type === 'date') {
    const ms = Date.parse(`${v}T00:00:00Z`)
    if (!Number.isNaN(ms)) return BigInt(Math.floor(ms / MS_PER_DAY))
  }
  throw new Error(`--format npy: column '${column}' (${type}): cannot write ${String(v)} as int64`)
}

/** One .npy (format 1.0) record of a 1-d little-endian array. */
export function npyRecord(data: Float64Array | BigInt64Array | Uint8Array): Uint8Array {
  const descr = data instanceof Float64Array ? '<f8' : data instanceof BigInt64Array ? '<i8' : '|u1'
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${data.length},), }`
  // Header padded with spaces to a multiple of 64 bytes (magic, version, length included), ending in \n.
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64
  dict = dict.padEnd(total - 10 - 1, ' ') + '\n'
  const out = new Uint8Array(total + data.byteLength)
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0) // \x93NUMPY, version 1.0
  new DataView(out.buffer).setUint16(8, dict.length, true)
  out.set(encoder.encode(dict), 10)
  // Typed arrays are little-endian on every platform Node runs on.
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), total)
  return out
}

/**
 * Binary data to the process's stdout. The io's data channel carries text lines; npy records go
 * straight to the stream (synchronous for pipes and files on Linux, so memory stays bounded).
 */
export function stdoutSink(stdout: { readonly closed: boolean }): (chunk: Uint8Array) => void {
  return chunk => {
    if (!stdout.closed) process.stdout.write(chunk)
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0
  for (const p of parts) n += p.length
  const out = new Uint8Array(n)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
