/**
 * Partial dependence (src/models/gbdt/partial-dependence.ts): the grid (quantiles of the feature's
 * finite values), each point the mean of a row-by-row prediction with the feature replaced, and
 * monotone curves for a model trained with monotone_constraints (CPU reference backend) — which
 * the same model trained without them does not have.
 */
import { describe, expect, it } from 'vitest'
import { monotoneDependence, partialDependence, pdGrid, PD_GRID } from '../../../src/models/gbdt/partial-dependence.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predict } from '../../../src/models/gbdt/predict.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { Rng } from '../../../src/util/rng.ts'

const NAMES = ['up', 'down', 'free']

/** y = x0 + sin(4·x0) − x1 + 0.6·sin(5·x1) + x2² + noise: up in x0 and down in x1 only on average. */
function data(n: number, seed: number): TrainData {
  const rng = new Rng(seed)
  const columns = [0, 1, 2].map(() => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
  const labels = Float32Array.from(
    { length: n },
    (_, i) =>
      columns[0][i] +
      Math.sin(4 * columns[0][i]) -
      columns[1][i] +
      0.6 * Math.sin(5 * columns[1][i]) +
      columns[2][i] ** 2 +
      0.1 * rng.normal(),
  )
  return { columns, labels, featureNames: NAMES }
}

/** Largest step of `ys` against `dir` (0: monotone). */
function against(ys: number[], dir: number): number {
  let worst = 0
  for (let i = 1; i < ys.length; i++) worst = Math.max(worst, -dir * (ys[i] - ys[i - 1]))
  return worst
}

describe('partial dependence', () => {
  const d = data(1500, 9)
  const base = { objective: 'reg:squarederror', max_depth: 4, eta: 0.3, num_round: 10, max_bin: 64, base_score: 0 }

  it('grid: quantiles of the finite values, lowest and highest included, distinct and ascending', () => {
    const g = pdGrid(d.columns[0])
    expect(g).toHaveLength(PD_GRID)
    expect(g[0]).toBe(Math.min(...d.columns[0]))
    expect(g[PD_GRID - 1]).toBe(Math.max(...d.columns[0]))
    expect(g.every((v, i) => i === 0 || v > g[i - 1])).toBe(true)
    expect(pdGrid([3, Number.NaN, 1, 1, 2, 3], 20)).toEqual([1, 2, 3])
    expect(pdGrid([Number.NaN])).toEqual([])
  })

  it('each point is the mean of every row predicted alone with the feature set to the grid value', async () => {
    const b = await train(d, parseParams(base))
    const rows = d.columns.map(c => c.subarray(0, 50))
    const grid = [-0.5, 0, 0.25, 0.9]
    const pd = partialDependence(b, rows, 1, grid)
    const want = grid.map(g => {
      let sum = 0
      for (let i = 0; i < 50; i++) sum += predict(b, [[rows[0][i]], [Math.fround(g)], [rows[2][i]]])[0]
      return sum / 50
    })
    pd.forEach((v, k) => expect(v).toBeCloseTo(want[k], 5))
    expect(() => partialDependence({ ...b, numClass: 3 }, rows, 0, grid)).toThrow('multiclass')
    expect(() => partialDependence(b, rows, 3, grid)).toThrow('no feature 3')
  })

  it('with monotone_constraints the curves keep their directions; without, they do not', async () => {
    const free = await train(d, parseParams(base))
    const [up, down] = [0, 1].map(f => partialDependence(free, d.columns, f, pdGrid(d.columns[f])))
    // The data is not monotone in x0 or x1: without constraints the check fails.
    expect(against(up, 1)).toBeGreaterThan(0.01)
    expect(against(down, -1)).toBeGreaterThan(0.01)
    const b = await train(d, parseParams({ ...base, monotone_constraints: '(1,-1,0)' }))
    const curves = monotoneDependence(b, d.columns, NAMES, Int8Array.from([1, -1, 0]))
    expect(curves.map(c => [c.feature, c.constraint, c.grid.length])).toEqual([
      ['up', 1, PD_GRID],
      ['down', -1, PD_GRID],
    ])
    expect(against(curves[0].mean, 1)).toBe(0)
    expect(against(curves[1].mean, -1)).toBe(0)
    // Not flat: the constrained features still move the prediction.
    expect(curves[0].mean[PD_GRID - 1] - curves[0].mean[0]).toBeGreaterThan(0.5)
    expect(curves[1].mean[0] - curves[1].mean[PD_GRID - 1]).toBeGreaterThan(0.5)
  })
})
