/**
 * The columns that give each training row something besides its label and features, for every
 * family that reads dense rows: a row weight (--weight, XGBoost's DMatrix `weight=`), a
 * starting margin (--base-margin, `base_margin=`) and a query group for ranking (--qid, `qid=`;
 * an integer column, read as float32, so ids must be integers below 2^24, or a string column,
 * whose values are coded by qidCodes). They are read through the same dense-rows
 * path as the label (dataset.ts), follow the validation split, and are refused here, naming the
 * column, the file and the row, when XGBoost could not use them. N = rows.
 */
import { buildDictionary, encodeCategorical, ROW_COLUMN_NAMES, type RowColumns } from './features.ts'

/** The row columns' values (float32, NaN = null), those that were read. */
export interface RowValues {
  /** Length N. */
  weights?: Float32Array
  /** Length N (one output per row). */
  baseMargin?: Float32Array
  /** Length N: each row's query id (integers below 2^24; a string column's qidCodes). */
  qid?: Float32Array
}

/**
 * A string query id column's values as group codes: each value's index in the sorted distinct
 * values (features.ts buildDictionary, the one dictionary path), null → NaN (refused by
 * checkRowValues naming its row). Only equality matters: groups keep their order of first appearance.
 */
export function qidCodes(text: ReadonlyArray<string | null>): Float32Array {
  return encodeCategorical(text, buildDictionary(text))
}

/** The row columns a config names (only the keys it sets). */
export function rowColumnsOf(cfg: RowColumns): RowColumns {
  return {
    ...(cfg.weight !== undefined ? { weight: cfg.weight } : {}),
    ...(cfg.baseMargin !== undefined ? { baseMargin: cfg.baseMargin } : {}),
    ...(cfg.qid !== undefined ? { qid: cfg.qid } : {}),
  }
}

/** The names of the row columns a config reads, weight first. */
export function rowColumnNames(cfg: RowColumns): string[] {
  return [cfg.weight, cfg.baseMargin, cfg.qid].filter((c): c is string => c !== undefined)
}

/**
 * The row values of a read table, checked: a weight must be finite and ≥ 0 (and not null), a
 * base margin finite; when `set` is given, the weights of its rows (all of `t`) must not all be
 * 0. Throws RangeError naming the column, the file and the row (`t.paths`, `t.rows`: each row's
 * file and file row).
 */
export function checkRowValues(
  cfg: RowColumns,
  t: { rowValues?: RowValues; paths: string[]; rows: Uint32Array },
  set?: 'training' | 'validation',
): RowValues {
  const v = t.rowValues ?? {}
  const at = (i: number) => `at ${t.paths[i]} row ${t.rows[i]}`
  const out: RowValues = {}
  if (cfg.weight !== undefined) {
    const w = v.weights
    if (!w) throw new Error(`${ROW_COLUMN_NAMES.weight} column ${cfg.weight}: not read`)
    for (let i = 0; i < w.length; i++) {
      const x = w[i]
      if (x >= 0 && x < Infinity) continue
      const what = Number.isNaN(x) ? 'null' : x < 0 ? `negative weight ${x}` : `weight ${x} is not finite`
      throw new RangeError(`${ROW_COLUMN_NAMES.weight} column ${cfg.weight}: ${what} ${at(i)}`)
    }
    if (set) checkWeightSum(cfg, w, set)
    out.weights = w
  }
  if (cfg.baseMargin !== undefined) {
    const m = v.baseMargin
    if (!m) throw new Error(`${ROW_COLUMN_NAMES.baseMargin} column ${cfg.baseMargin}: not read`)
    const bad = m.findIndex(x => !Number.isFinite(x))
    if (bad >= 0) {
      const what = Number.isNaN(m[bad]) ? 'null' : `${m[bad]} is not finite`
      throw new RangeError(`${ROW_COLUMN_NAMES.baseMargin} column ${cfg.baseMargin}: ${what} ${at(bad)}`)
    }
    out.baseMargin = m
  }
  if (cfg.qid !== undefined) {
    const q = v.qid
    if (!q) throw new Error(`${ROW_COLUMN_NAMES.qid} column ${cfg.qid}: not read`)
    const bad = q.findIndex(x => !(Number.isInteger(x) && Math.abs(x) < MAX_QID))
    if (bad >= 0) {
      const what = Number.isNaN(q[bad]) ? 'null' : `${q[bad]} is not an integer below 2^24`
      throw new RangeError(`${ROW_COLUMN_NAMES.qid} column ${cfg.qid}: ${what} ${at(bad)}`)
    }
    out.qid = q
  }
  return out
}

/** Query ids are read as float32: integers below 2^24 are exact, larger ones could merge groups. */
const MAX_QID = 2 ** 24

/** Refuses weights (when given) of which none is above 0: every `set` row would weigh nothing. */
export function checkWeightSum(
  cfg: RowColumns,
  weights: Float32Array | undefined,
  set: 'training' | 'validation' = 'training',
): void {
  if (!weights || weights.length === 0 || weights.some(x => x > 0)) return
  throw new RangeError(`${ROW_COLUMN_NAMES.weight} column ${cfg.weight}: every ${set} row has weight 0`)
}

/** `pick` (the rows of one side of a split) applied to each row column that is there. */
export function pickRowValues(v: RowValues, pick: (a: Float32Array) => Float32Array): RowValues {
  return {
    ...(v.weights ? { weights: pick(v.weights) } : {}),
    ...(v.baseMargin ? { baseMargin: pick(v.baseMargin) } : {}),
    ...(v.qid ? { qid: pick(v.qid) } : {}),
  }
}
