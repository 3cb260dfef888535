/**
 * Fixtures for the unit reader and loader tests: real tables served by the fake fetch, planned
 * with planScan (plus plan.schema), and an independent encoder of readRows' values, so decoded
 * columns are checked against the row reader rather than against the decoders themselves.
 */
import { resolve } from 'node:path'
import { openSnapshot, readRows, Timestamp, type Row, type Snapshot } from '../../../src/table/index.ts'
import { planScan } from '../../../src/data/plan.ts'
import type { ColumnEncoding, DecodedColumn, ScanPlan } from '../../../src/data/types.ts'
import type { FetchLike } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'
import { refInt64, refString } from './murmur-ref.ts'

export const CLICKS = resolve('public/tables/clicks')
export const GOLDEN = resolve('tests/conformance/golden')
export const BASE = 'http://table.test/'

/** A table opened over the fake fetch, its plan (with schema) and its rows in table order. */
export interface Fixture {
  fetch: FetchLike
  snapshot: Snapshot
  plan: ScanPlan
  rows: Row[]
}

/** Opens `dir`, plans all columns (or `columns`) and reads the rows with readRows (unless !withRows). */
export async function openFixture(
  dir: string,
  columns?: string[],
  withRows = true,
  maxUnitRows?: number,
): Promise<Fixture> {
  const fetch = fileFetch(dir, { baseUrl: BASE })
  const snapshot = await openSnapshot(BASE, { fetch })
  const plan = await planScan(snapshot, { fetch, columns, maxUnitRows })
  if (!plan.schema) throw new Error('planScan returned no plan.schema (the unit reader needs it for column mapping)')
  const rows = withRows ? inPlanOrder(await readRows(snapshot, { fetch, columns: plan.columns }), snapshot, plan) : []
  return { fetch, snapshot, plan, rows }
}

/**
 * readRows' rows (the log's files in path order) in the plan's table order (files by footer
 * fingerprint, plan.ts): cut per file by the plan's live row counts, then put in plan.files order.
 */
export function inPlanOrder(rows: Row[], snapshot: Snapshot, plan: ScanPlan): Row[] {
  const live = new Map<string, number>()
  for (const unit of plan.units) {
    const path = plan.files[unit.fileIndex].path
    live.set(path, (live.get(path) ?? 0) + unit.liveRows)
  }
  const byPath = new Map<string, Row[]>()
  let at = 0
  for (const file of snapshot.files) {
    const n = live.get(file.path) ?? 0
    byPath.set(file.path, rows.slice(at, at + n))
    at += n
  }
  if (at !== rows.length) throw new Error(`inPlanOrder: the plan has ${at} live rows, readRows gave ${rows.length}`)
  return plan.files.flatMap(f => byPath.get(f.path) ?? [])
}

/** Expected typed values of one column of `rows`, encoded independently of src/data/decode*. */
export function expectedColumn(rows: Row[], name: string, encoding: ColumnEncoding): number[] {
  const out: number[] = []
  const memo = new Map<unknown, number>() // the BigInt reference hash is slow; values repeat
  const hash = (x: unknown): number => {
    if (!memo.has(x))
      memo.set(
        x,
        typeof x === 'bigint' ? refInt64(x) : typeof x === 'number' ? refInt64(BigInt(x)) : refString(String(x)),
      )
    return memo.get(x)!
  }
  for (const row of rows) {
    const v = row[name]
    if (encoding === 'fixed_list') for (const x of v as unknown[]) out.push(x === null ? NaN : Math.fround(Number(x)))
    else if (encoding === 'hash_list') {
      // The items' hashes, null rows and null items left out (offsets: expectedLengths).
      for (const x of (v as unknown[] | null) ?? []) if (x !== null) out.push(hash(x))
    } else if (encoding === 'hash32') out.push(hash(v))
    else if (encoding === 'float32') out.push(v === null ? NaN : Math.fround(asNumber(v)))
    else if (encoding === 'bool') out.push(v ? 1 : 0)
    else out.push(Number(v))
  }
  return out
}

function asNumber(v: unknown): number {
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return Date.parse(v) / 86_400_000
  if (v instanceof Timestamp) return v.seconds()
  return Number(v)
}

/** Items per row of a hash_list column of `rows` (null rows and null items count 0). */
export function expectedLengths(rows: Row[], name: string): number[] {
  return rows.map(row => ((row[name] as unknown[] | null) ?? []).filter(x => x !== null).length)
}

/** Items per row of decoded hash_list / var_list columns (from their offsets), in order. */
export function concatLengths(columns: DecodedColumn[]): number[] {
  const out: number[] = []
  for (const c of columns)
    for (let i = 0; i + 1 < (c.offsets?.length ?? 0); i++) out.push(c.offsets![i + 1] - c.offsets![i])
  return out
}

/** Index of the first element that differs (NaN equals NaN), or -1. */
export function firstMismatch(got: ArrayLike<number>, want: ArrayLike<number>): number {
  if (got.length !== want.length) return Math.min(got.length, want.length)
  for (let i = 0; i < got.length; i++) if (!Object.is(got[i], want[i]) && got[i] !== want[i]) return i
  return -1
}

/** Concatenates decoded columns' values (units or batches) in order. */
export function concatValues(columns: DecodedColumn[]): number[] {
  const out: number[] = []
  for (const c of columns) for (let i = 0; i < c.values.length; i++) out.push(c.values[i])
  return out
}
