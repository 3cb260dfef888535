/**
 * The clicks table's "learnable ceiling" (bench/README.md, recommender quality): the hidden
 * logit is b + u·v + user bias + item/context/dense/history terms. With ~2 rows per user on average, a
 * model cannot learn most users' vector u or bias, so beside the Bayes-optimal AUC (true
 * probabilities) we report the AUC of probabilities without the per-user terms:
 *   learnable: σ(logit − user terms + b), the terms replaced by their mean 0;
 *   marginal:  E[σ(logit − user terms + b + s·Z)], Z ~ N(0, 1), s² = σ_u²·|v_item|² + σ_b²
 *              (the terms integrated out over a random user; the Bayes rule without user identity).
 * Not a strict upper bound: users are Zipf-distributed, so the frequent users' terms are learnable.
 */
import { toKeyHash } from '../../src/data/decode-values.ts'
import { combineKeys, isValidKey, NULL_KEY_HASH, rowKeyFields } from '../../src/data/row-key.ts'
import { auc } from '../../src/eval/metrics.ts'
import { sigmoid } from './logistic.ts'
import type { CeilingAucs, ColumnSpec, Frame, LearnableCeiling } from './types.ts'

/** Per row (frame order): the three probabilities the ceiling compares. */
export interface CeilingProbs {
  bayes: Float64Array
  learnable: Float64Array
  marginal: Float64Array
}

/** Rows of the final table version: frame row indices per live data file, in file row order. */
export interface LiveRows {
  path: string
  rows: Int32Array
}

/** Splits reported by default: the recommender's `--valid-fraction 0.1` and the GBDT quality runner's 0.2, seed 0. */
export const CEILING_SPLITS: ReadonlyArray<{ seed: number; fraction: number }> = [
  { seed: 0, fraction: 0.1 },
  { seed: 0, fraction: 0.2 },
]

/** Grid of the N(0, 1) integral: z in [−6, 6] step 0.25, weights ∝ φ(z), summing to 1. */
const Z = Array.from({ length: 49 }, (_, k) => -6 + 0.25 * k)
const ZW = (() => {
  const w = Z.map(z => Math.exp((-z * z) / 2))
  const s = w.reduce((a, b) => a + b, 0)
  return w.map(x => x / s)
})()

/**
 * The probabilities of every row: `logit` and `userLogit` exclude the intercept `b`; `userVar` is
 * the per-user terms' variance given the row's item.
 */
export function ceilingProbs(
  logit: Float64Array,
  userLogit: Float64Array,
  userVar: Float64Array,
  b: number,
): CeilingProbs {
  const n = logit.length
  const out: CeilingProbs = {
    bayes: new Float64Array(n),
    learnable: new Float64Array(n),
    marginal: new Float64Array(n),
  }
  for (let i = 0; i < n; i++) {
    const rest = logit[i] - userLogit[i] + b,
      s = Math.sqrt(userVar[i])
    out.bayes[i] = sigmoid(logit[i] + b)
    out.learnable[i] = sigmoid(rest)
    let m = 0
    for (let k = 0; k < Z.length; k++) m += ZW[k] * sigmoid(rest + s * Z[k])
    out.marginal[i] = m
  }
  return out
}

/** AUCs of `rows` (frame indices) against `label`. */
export function ceilingAucs(p: CeilingProbs, label: ArrayLike<number>, rows: ArrayLike<number>): CeilingAucs {
  const pick = (a: Float64Array): Float64Array => Float64Array.from(rows, i => a[i])
  const y = Int32Array.from(rows, i => label[i])
  return {
    rows: rows.length,
    bayesAuc: auc(pick(p.bayes), y),
    learnableAuc: auc(pick(p.learnable), y),
    learnableAucMarginal: auc(pick(p.marginal), y),
  }
}

/**
 * The row key (src/data/row-key.ts) of every frame row with the trainers' default key columns:
 * the scalar columns of `specs` (every column is the label or a feature), sorted by name.
 */
export function frameRowKeys(frame: Frame, specs: readonly ColumnSpec[]): Uint32Array {
  const fields = specs.map(s => ({ name: s.name, type: s.type, nullable: s.nullable, metadata: {} }))
  const keyFields = rowKeyFields(
    { type: 'struct', fields },
    fields.map(f => f.name),
  )
  const hashes = keyFields.map(f => {
    const values = frame.columns[f.name] as ArrayLike<unknown>
    // The writer stores a float column's NaN markers as nulls (parquet.ts), so they key as nulls.
    return Uint32Array.from({ length: frame.numRows }, (_, i) =>
      toKeyHash(Number.isNaN(values[i]) ? null : values[i], NULL_KEY_HASH),
    )
  })
  return combineKeys(hashes, frame.numRows)
}

/** The ceiling over all live rows and over each split's validation rows (isValidKey of each row's key). */
export function learnableCeiling(
  p: CeilingProbs,
  label: ArrayLike<number>,
  live: LiveRows[],
  keys: Uint32Array,
  splits = CEILING_SPLITS,
): LearnableCeiling {
  const all = Int32Array.from(live.flatMap(f => Array.from(f.rows)))
  return {
    ...ceilingAucs(p, label, all),
    splits: splits.map(s => {
      const valid = all.filter(i => isValidKey(s.seed, keys[i], s.fraction))
      return { ...s, ...ceilingAucs(p, label, valid) }
    }),
  }
}
