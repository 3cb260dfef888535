import { describe, expect, it } from 'vitest'
import { ColumnSampler, rowSampled } from '../../../src/models/gbdt/sampling.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { makeBinary } from './synthetic.ts'

const ones = (m: Uint8Array): number[] => Array.from(m).flatMap((v, f) => (v ? [f] : []))

describe('column sampling', () => {
  it('draws floor(fraction · n) features, seeded, nested bytree ⊇ bylevel ⊇ bynode', () => {
    const p = { colsample_bytree: 0.5, colsample_bylevel: 1, colsample_bynode: 1 }
    const s = new ColumnSampler(10, p, 3)
    s.beginTree(0)
    const tree0 = ones(s.mask(0, 0))
    expect(tree0).toHaveLength(5)
    expect(ones(s.mask(2, 5))).toEqual(tree0) // bylevel = bynode = 1: the tree's set everywhere
    const again = new ColumnSampler(10, p, 3)
    again.beginTree(0)
    expect(ones(again.mask(0, 0))).toEqual(tree0)
    const nested = new ColumnSampler(12, { colsample_bytree: 0.5, colsample_bylevel: 0.5, colsample_bynode: 0.5 }, 9)
    nested.beginTree(4)
    const node = ones(nested.mask(1, 2))
    expect(node).toHaveLength(1) // floor(0.5 · floor(0.5 · 6)) = 1
  })

  it('every tree of a colsample_bytree model splits only on its drawn features', async () => {
    const d = makeBinary(800, 8, 2)
    const b = await train(
      { columns: d.columns, labels: d.labels },
      parseParams({ colsample_bytree: 0.25, num_round: 6, max_depth: 3, seed: 1 }),
    )
    const trees = b.trees.map(t => new Set(Array.from(t.splitIndex).filter((_, k) => t.left[k] !== -1)))
    for (const used of trees) expect(used.size).toBeLessThanOrEqual(2)
    expect(new Set(trees.flatMap(u => [...u])).size).toBeGreaterThan(2) // different trees draw differently
  })

  it('subsample changes the trees and stays reproducible', async () => {
    const d = makeBinary(800, 4, 5)
    const full = await train({ columns: d.columns, labels: d.labels }, parseParams({ num_round: 2 }))
    const half = await train({ columns: d.columns, labels: d.labels }, parseParams({ num_round: 2, subsample: 0.5 }))
    expect(half.trees[0].sumHessian[0]).toBeLessThan(full.trees[0].sumHessian[0] * 0.6)
    expect(half.trees[0].sumHessian[0]).toBeGreaterThan(full.trees[0].sumHessian[0] * 0.4)
    const sampled = Array.from({ length: 800 }, (_, i) => rowSampled(0, 0, i, 0.5)).filter(Boolean).length
    expect(half.trees[0].sumHessian[0]).toBeCloseTo((full.trees[0].sumHessian[0] * sampled) / 800, 1)
  })
})
