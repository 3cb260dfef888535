/**
 * Column frames: row subsets by index list, the only reshaping the generator needs
 * (splitting a version into files, dropping deleted rows).
 */
import type { ColumnValues, FloatVectors, Frame } from './types.ts'

/** Number of rows held by a column. */
export function columnLength(values: ColumnValues): number {
  return isVectors(values) ? values.data.length / values.width : values.length
}

/** Whether a column is stored as flat fixed-width vectors. */
export function isVectors(values: ColumnValues): values is FloatVectors {
  return !ArrayBuffer.isView(values) && !Array.isArray(values)
}

/** The rows of `frame` at `rows` (indices into 0..numRows-1), in that order. */
export function takeRows(frame: Frame, rows: ArrayLike<number>): Frame {
  const columns: Record<string, ColumnValues> = {}
  for (const [name, values] of Object.entries(frame.columns)) columns[name] = takeValues(values, rows)
  return { numRows: rows.length, columns }
}

/** Rows `start` (inclusive) to `end` (exclusive) of `frame`. */
export function sliceRows(frame: Frame, start: number, end: number): Frame {
  const columns: Record<string, ColumnValues> = {}
  for (const [name, values] of Object.entries(frame.columns)) {
    columns[name] = isVectors(values)
      ? { width: values.width, data: values.data.slice(start * values.width, end * values.width) }
      : (values.slice(start, end) as ColumnValues)
  }
  return { numRows: end - start, columns }
}

/** Indices 0..n-1 of the rows where `keep(i)` is true. */
export function rowsWhere(n: number, keep: (i: number) => boolean): Int32Array {
  const out: number[] = []
  for (let i = 0; i < n; i++) if (keep(i)) out.push(i)
  return Int32Array.from(out)
}

/** Splits `n` rows into `parts` contiguous [start, end) ranges whose sizes differ by at most 1. */
export function splitRange(n: number, parts: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let p = 0; p < parts; p++) out.push([Math.floor((n * p) / parts), Math.floor((n * (p + 1)) / parts)])
  return out
}

function takeValues(values: ColumnValues, rows: ArrayLike<number>): ColumnValues {
  if (isVectors(values)) {
    const w = values.width
    const data = new Float32Array(rows.length * w)
    for (let i = 0; i < rows.length; i++) data.set(values.data.subarray(rows[i] * w, rows[i] * w + w), i * w)
    return { width: w, data }
  }
  if (ArrayBuffer.isView(values)) {
    const src = values as unknown as ArrayLike<unknown>
    const out = new (values.constructor as new (n: number) => Record<number, unknown>)(rows.length)
    for (let i = 0; i < rows.length; i++) out[i] = src[rows[i]]
    return out as ColumnValues
  }
  const src = values as unknown[]
  const out = new Array<unknown>(rows.length)
  for (let i = 0; i < rows.length; i++) out[i] = src[rows[i]]
  return out as ColumnValues
}
