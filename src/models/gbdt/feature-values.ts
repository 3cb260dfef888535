/**
 * Feature values the booster accepts: NaN is a missing value (XGBoost's default `missing`), and
 * ±Infinity is refused, as XGBoost refuses it ("Input data contains `inf`"), because a bin
 * boundary at infinity makes the cuts and the exported model meaningless. N = rows.
 */
import type { TrainData } from '../../eval/dataset.ts'

/**
 * Throws RangeError naming the feature column, the value and the row (training or validation
 * row index, in table order) of the first ±Infinity.
 */
export function checkFeatureValues(data: TrainData): void {
  const names = data.featureNames ?? data.columns.map((_, f) => `f${f}`)
  const sets: Array<[string, Float32Array[]]> = [['training', data.columns]]
  if (data.valid) sets.push(['validation', data.valid.columns])
  for (const [set, columns] of sets) {
    columns.forEach((c, f) => {
      const at = firstInfinite(c)
      if (at >= 0) {
        throw new RangeError(
          `feature column ${names[f]}: ${c[at]} at ${set} row ${at}; ` +
            'infinite values are not allowed (NaN and null mean missing): filter the rows out (--filter) or drop the column (--features)',
        )
      }
    })
  }
}

/** Index of the first ±Infinity in `c` (N values), else −1. */
function firstInfinite(c: Float32Array): number {
  for (let i = 0; i < c.length; i++) if (c[i] === Infinity || c[i] === -Infinity) return i
  return -1
}
