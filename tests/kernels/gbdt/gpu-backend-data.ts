/** Seeded train/validation data for the GPU backend tests. N = rows, F = features. */
import type { TrainData } from '../../../src/eval/dataset.ts'
import { Rng } from '../../../src/util/rng.ts'

/**
 * N rows (70 % train, 30 % validation) × F ≥ 1 features ~ N(0, 1); feature F − 1 (when F > 1) is
 * NaN at rate `missing`. Binary: y = 1 when x0 + 0.5·x1² − x2 + noise > 0.3; regression: the
 * same score plus noise.
 */
export function gbdtData(
  n: number,
  features: number,
  seed: number,
  missing: number,
  kind: 'binary' | 'regression',
): TrainData {
  const rng = new Rng(seed)
  const columns = Array.from({ length: features }, () => new Float32Array(n))
  const labels = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < features; f++) columns[f][i] = rng.normal()
    const x = (f: number): number => (f < features ? columns[f][i] : 0)
    const z = x(0) + 0.5 * x(1) ** 2 - x(2) + 0.5 * rng.normal()
    labels[i] = kind === 'binary' ? (z > 0.3 ? 1 : 0) : z
    if (features > 1 && rng.next() < missing) columns[features - 1][i] = NaN
  }
  const cut = Math.floor(n * 0.7)
  return {
    columns: columns.map(c => c.slice(0, cut)),
    labels: labels.slice(0, cut),
    valid: { columns: columns.map(c => c.slice(cut)), labels: labels.slice(cut) },
  }
}
