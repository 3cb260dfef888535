/** Seeded synthetic data with categorical columns for the GBDT tests. N = rows. */
import type { TrainData } from '../../../src/eval/dataset.ts'
import { Rng } from '../../../src/util/rng.ts'

/**
 * N rows (70 % train, 30 % validation): c12 (12 codes, 5 % missing) and c3 (3 codes), each code
 * with its own random effect on the log-odds, so no order of the codes carries the signal, and
 * numeric x0, x1. Feature types: 'c', 'int', 'float', 'float' (c3 is an integer column, made
 * categorical by listing it).
 */
export function categoricalData(n: number, seed: number): TrainData {
  const rng = new Rng(seed)
  const e12 = Array.from({ length: 12 }, () => rng.normal() * 1.2),
    e3 = [0.9, -1.1, 0.2]
  const c12 = new Float32Array(n),
    c3 = new Float32Array(n),
    x0 = new Float32Array(n),
    x1 = new Float32Array(n),
    y = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const a = rng.int(12),
      b = rng.int(3)
    x0[i] = rng.normal()
    x1[i] = rng.normal()
    const z = e12[a] + e3[b] + 0.7 * x0[i] - 0.4 * x1[i] * x1[i] + 0.8 * rng.normal()
    y[i] = z > 0 ? 1 : 0
    c12[i] = rng.next() < 0.05 ? NaN : a
    c3[i] = b
  }
  const cut = Math.floor(n * 0.7),
    columns = [c12, c3, x0, x1]
  return {
    columns: columns.map(c => c.slice(0, cut)),
    labels: y.slice(0, cut),
    featureNames: ['c12', 'c3', 'x0', 'x1'],
    featureTypes: ['c', 'int', 'float', 'float'],
    valid: { columns: columns.map(c => c.slice(cut)), labels: y.slice(cut) },
  }
}
