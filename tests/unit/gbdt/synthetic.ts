/** Seeded synthetic binary-classification data for the GBDT unit tests. N = rows, F = features. */
import { Rng } from '../../../src/util/rng.ts'

/** Features x0..x{F−1} ~ N(0,1); y = 1 when x0 + 0.5·x1² − x2 + noise > 0.3. `missing` = NaN rate of x3. */
export function makeBinary(
  n: number,
  features: number,
  seed: number,
  missing = 0,
): { columns: Float32Array[]; labels: Float32Array } {
  const rng = new Rng(seed)
  const columns = Array.from({ length: features }, () => new Float32Array(n))
  const labels = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < features; f++) columns[f][i] = rng.normal()
    const z = columns[0][i] + 0.5 * columns[1][i] ** 2 - (features > 2 ? columns[2][i] : 0) + 0.5 * rng.normal()
    labels[i] = z > 0.3 ? 1 : 0
    if (features > 3 && rng.next() < missing) columns[3][i] = NaN
  }
  return { columns, labels }
}

/** Rows [start, end) of columns. */
export function sliceColumns(columns: Float32Array[], start: number, end: number): Float32Array[] {
  return columns.map(c => c.slice(start, end))
}

/**
 * Seeded synthetic K-class data: features x0..x{F−1} ~ N(0,1); class = argmax over k of
 * (x_{k mod F} · (1 + k/K) + noise), so every feature carries signal. Labels 0 … K−1.
 */
export function makeMulticlass(
  n: number,
  features: number,
  classes: number,
  seed: number,
): { columns: Float32Array[]; labels: Float32Array } {
  const rng = new Rng(seed)
  const columns = Array.from({ length: features }, () => new Float32Array(n))
  const labels = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < features; f++) columns[f][i] = rng.normal()
    let best = -Infinity
    for (let k = 0; k < classes; k++) {
      const z = columns[k % features][i] * (1 + k / classes) - 0.3 * columns[(k + 1) % features][i] + rng.normal()
      if (z > best) {
        best = z
        labels[i] = k
      }
    }
  }
  return { columns, labels }
}
