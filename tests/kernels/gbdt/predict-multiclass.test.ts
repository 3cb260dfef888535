/**
 * The page's predict path for a multiclass model (predict-run.ts gpuPredict): each class's trees
 * run as one ensemble of the predict and tree_shap kernels, giving margins N × K and SHAP values
 * (N, K, F + 1) equal to the CPU references predictMargins / treeShap (margins: the same f32 sums
 * in the same order, so exactly; SHAP within the kernel's 1e-5), with and without rows' own base
 * margins; a one-output model keeps its layout.
 */
import { describe, expect, test } from 'vitest'
import { gpuPredict } from '../../../src/models/gbdt/predict-run.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { treeShap } from '../../../src/models/gbdt/shap.ts'
import { Rng } from '../../../src/util/rng.ts'
import { shapRows, toColumns } from '../../unit/gbdt/shap-fixture.ts'
import { multiclassBooster } from '../../unit/gbdt/multiclass-fixture.ts'

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]))
  return d
}

describe('gpuPredict of a multiclass model equals the CPU references', () => {
  test.each([
    [3, 1, 0],
    [3, 4, 65],
    [7, 3, 257],
  ])('K = %i, %i rounds, %i rows (categorical features, NaNs)', async (K, rounds, rows) => {
    const rng = new Rng(K * 100 + rows)
    const F = 5
    const b = multiclassBooster(rng, K, rounds, F, 2)
    const cols = toColumns(shapRows(rng, rows, F, 2), rows, F)
    const got = await gpuPredict(b, cols, true)
    expect(got.adapter).not.toMatch(/cpu/)
    expect(Array.from(got.margins)).toEqual(Array.from(predictMargins(b, cols)))
    expect(maxAbs(got.contribs!, treeShap(b, cols))).toBeLessThanOrEqual(1e-5)
    // Rows' own base margins (N × K): added after the trees, to the bias too.
    const start = Float32Array.from({ length: rows * K }, () => rng.uniform(-2, 2))
    const shifted = await gpuPredict(b, cols, true, start)
    expect(maxAbs(shifted.margins, predictMargins(b, cols, undefined, start))).toBeLessThanOrEqual(1e-5)
    const phi = shifted.contribs!
    for (let j = 0; j < rows * K; j++) {
      let s = 0
      for (let f = 0; f <= F; f++) s += phi[j * (F + 1) + f]
      expect(Math.abs(s - shifted.margins[j])).toBeLessThanOrEqual(1e-4)
    }
  })

  test('a one-output model: margins N and SHAP N × (F + 1) as before', async () => {
    const rng = new Rng(5)
    const m = multiclassBooster(rng, 2, 3, 4)
    const { numClass: _, ...one } = m
    const b = { ...one, params: { ...m.params, objective: 'binary:logistic' as const, num_class: 0 } }
    const cols = toColumns(shapRows(rng, 100, 4), 100, 4)
    const got = await gpuPredict(b, cols, true)
    expect(Array.from(got.margins)).toEqual(Array.from(predictMargins(b, cols)))
    expect(got.contribs).toHaveLength(100 * 5)
    expect(maxAbs(got.contribs!, treeShap(b, cols))).toBeLessThanOrEqual(1e-5)
  })
})
