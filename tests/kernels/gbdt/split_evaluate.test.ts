import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { splitEvaluateCall } from '../../../src/kernels/gbdt/split_evaluate.ts'
import { decodeSplit, SPLIT_WORDS } from '../../../src/kernels/gbdt/layout.ts'
import type { SplitParams } from '../../../src/kernels/gbdt/layout.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { checked, gpuCache } from '../bench/setup.ts'
import type { CaseOptions, SplitCase } from './split-fixture.ts'
import { checkSplits, checkSplitsExact, randomCase, referenceSplits } from './split-fixture.ts'

async function gpuSplits(c: SplitCase, p: SplitParams, WG?: number): Promise<Uint32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const b = {
    hist: uploadBuffer(device, c.hist),
    cutPtrs: uploadBuffer(device, c.cutPtrs),
    featureMask: uploadBuffer(device, c.featureMask),
    nodeSlots: uploadBuffer(device, c.nodeSlots),
    nodeSums: uploadBuffer(device, c.nodeSums),
    scales: uploadBuffer(device, c.scales),
    out: createBuffer(device, c.shape.nodes * SPLIT_WORDS * 4),
    featureKind: uploadBuffer(device, c.featureKind),
  }
  try {
    await checked(device, () => runKernel(cache, splitEvaluateCall(b, c.shape, p, { WG })))
    return await readBuffer(device, b.out, Uint32Array, c.shape.nodes * SPLIT_WORDS)
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

function check(seed: number, o: CaseOptions, p: SplitParams, WG?: number): Promise<{ exact: number; splits: number }> {
  return checkSplits(seed, o, p, (c, pp) => gpuSplits(c, pp, WG))
}

const P: SplitParams = { lambda: 1, alpha: 0, minChildWeight: 1 }

describe('split_evaluate matches its reference', () => {
  test.each([0, 1, 7, 33])('%i nodes, 9 features ≤ 256 bins', async nodes => {
    const r = await check(nodes + 100, { rows: 1500, nodes, features: 9, maxBins: 256 }, P)
    if (nodes > 0) expect(r.splits).toBeGreaterThan(0)
  })
  test('one feature with 256 bins', () => check(2, { rows: 800, nodes: 5, features: 1, maxBins: 256 }, P))
  test('features ≫ WG: 70 features, WG = 16, and WG = 1', async () => {
    await check(3, { rows: 600, nodes: 4, features: 70, maxBins: 40 }, P, 16)
    await check(3, { rows: 600, nodes: 4, features: 70, maxBins: 40 }, P, 1)
  })
  test('all-missing features', () => check(4, { rows: 700, nodes: 6, features: 5, maxBins: 255, missingRate: 1 }, P))
  test('per-node feature masks (colsample_bynode)', () =>
    check(5, { rows: 900, nodes: 8, features: 12, maxBins: 64, maskPerNode: true, maskRate: 0.5 }, P))
  test('lambda 0, alpha 5, min_child_weight 0', () =>
    check(6, { rows: 900, nodes: 6, features: 6, maxBins: 128 }, { lambda: 0, alpha: 5, minChildWeight: 0 }))
  test('large lambda and alpha', () =>
    check(7, { rows: 900, nodes: 6, features: 6, maxBins: 128 }, { lambda: 100, alpha: 50, minChildWeight: 0.5 }))
  test('min_child_weight above every node weight: no splits', async () => {
    const r = await check(
      8,
      { rows: 500, nodes: 5, features: 4, maxBins: 32 },
      { lambda: 1, alpha: 0, minChildWeight: 1e6 },
    )
    expect(r.splits).toBe(0)
  })
})

describe('split_evaluate: categorical features match the reference word for word', () => {
  const exact = (seed: number, o: CaseOptions, p: SplitParams = P, WG?: number) =>
    checkSplitsExact(seed, o, p, (c, pp) => gpuSplits(c, pp, WG))

  test('mixed numeric, one-hot and partition features; masks per node', async () => {
    const r = await exact(20, {
      rows: 1500,
      nodes: 9,
      features: 7,
      maxBins: 40,
      bins: [3, 40, 12, 4, 1, 5, 30],
      categorical: [0, 1, 3, 4, 6],
      maskPerNode: true,
      maskRate: 0.2,
    })
    expect(r.categorical).toBeGreaterThan(0)
  })
  test('one category, and the max_cat_to_onehot boundary (3 bins one-hot, 4 partition)', async () => {
    await exact(21, { rows: 600, nodes: 4, features: 3, maxBins: 4, bins: [1, 3, 4], categorical: [0, 1, 2] })
    await exact(22, {
      rows: 600,
      nodes: 4,
      features: 2,
      maxBins: 8,
      bins: [8, 7],
      categorical: [0, 1],
      maxCatToOnehot: 8,
    })
  })
  test('256 categories with empty bins, a small max_cat_threshold, WG 16 and 1', async () => {
    const o = { rows: 500, nodes: 3, features: 3, maxBins: 256, bins: [256, 255, 90], categorical: [0, 1, 2] }
    const r = await exact(23, o)
    expect(r.categorical).toBeGreaterThan(0)
    await exact(24, o, { ...P, maxCatThreshold: 5 }, 16)
    await exact(25, { ...o, bins: [200, 3, 17] }, { lambda: 0.5, alpha: 2, minChildWeight: 0, maxCatThreshold: 40 }, 1)
  })
  test('more partition features than WG, and nodes whose features are all missing', async () => {
    await exact(
      26,
      {
        rows: 700,
        nodes: 5,
        features: 20,
        maxBins: 30,
        categorical: Array.from({ length: 20 }, (_, f) => f).filter(f => f % 3 !== 2),
      },
      P,
      16,
    )
    const none = await exact(27, {
      rows: 400,
      nodes: 4,
      features: 4,
      maxBins: 20,
      missingRate: 1,
      categorical: [0, 1, 2, 3],
    })
    expect(none.splits).toBeGreaterThanOrEqual(0)
  })
})

describe('split_evaluate: monotone bounds and max_delta_step match the reference word for word', () => {
  const C: SplitParams = { ...P, constrained: true }
  const exact = (seed: number, o: CaseOptions, p: SplitParams = C, WG?: number) =>
    checkSplitsExact(seed, o, p, (c, pp) => gpuSplits(c, pp, WG))
  /** Nodes whose reference record changes when the case's constraints are dropped: the case exercises them. */
  const bound = (seed: number, o: CaseOptions, p: SplitParams = C): number => {
    const c = randomCase(seed, o),
      free = randomCase(seed, { ...o, monotone: undefined, bounds: false })
    const a = referenceSplits(c, p),
      b = referenceSplits(free, { ...p, constrained: false, maxDeltaStep: 0 })
    return Array.from({ length: o.nodes }, (_, m) => m).filter(
      m => decodeSplit(a, m).feature !== decodeSplit(b, m).feature || decodeSplit(a, m).gain !== decodeSplit(b, m).gain,
    ).length
  }
  const mono = (F: number) => Array.from({ length: F }, (_, f) => [1, -1, 0][f % 3])

  test.each([0, 1, 7, 33])('%i nodes, 9 monotone / free features ≤ 256 bins, bounds, masks per node', async nodes => {
    const o = { rows: 1500, nodes, features: 9, maxBins: 256, monotone: mono(9), bounds: true, maskPerNode: true }
    const r = await exact(nodes + 300, { ...o, maskRate: 0.3 })
    if (nodes > 7) expect(bound(nodes + 300, { ...o, maskRate: 0.3 })).toBeGreaterThan(0)
    if (nodes > 0) expect(r.splits).toBeGreaterThan(0)
  })
  test('one monotone feature with 256 bins; all-missing features', async () => {
    await exact(31, { rows: 800, nodes: 5, features: 1, maxBins: 256, monotone: [-1], bounds: true })
    await exact(32, { rows: 700, nodes: 6, features: 5, maxBins: 255, missingRate: 1, monotone: mono(5), bounds: true })
  })
  test('features ≫ WG: 70 features, WG = 16 and WG = 1', async () => {
    const o = { rows: 600, nodes: 4, features: 70, maxBins: 40, monotone: mono(70), bounds: true }
    await exact(33, o, C, 16)
    await exact(33, o, C, 1)
  })
  test('alpha, lambda 0, max_delta_step; max_delta_step alone (unbounded)', async () => {
    const o = { rows: 900, nodes: 8, features: 6, maxBins: 128, monotone: mono(6), bounds: true }
    await exact(34, o, { lambda: 0, alpha: 5, minChildWeight: 0, constrained: true, maxDeltaStep: 0.5 })
    const plain = { rows: 900, nodes: 8, features: 6, maxBins: 128 }
    await exact(35, plain, { ...P, maxDeltaStep: 0.3 })
    expect(bound(35, plain, { ...P, maxDeltaStep: 0.3 })).toBeGreaterThan(0)
  })
  test('categorical features beside monotone numeric ones; categories sorted by clipped weights', async () => {
    const o = {
      rows: 1500,
      nodes: 9,
      features: 6,
      maxBins: 40,
      bins: [3, 40, 12, 30, 20, 8],
      categorical: [0, 1, 2],
      monotone: [0, 0, 0, 1, -1, 1],
      bounds: true,
    }
    expect((await exact(36, o)).categorical).toBeGreaterThan(0)
    // max_delta_step clips the sort key too (XGBoost CalcWeightCat): many categories tie at ±0.3.
    const clipped = { rows: 3000, nodes: 4, features: 2, maxBins: 40, bins: [40, 30], categorical: [0, 1] }
    const r = await exact(37, clipped, {
      lambda: 1,
      alpha: 0,
      minChildWeight: 0,
      maxDeltaStep: 0.3,
      maxCatThreshold: 3,
    })
    expect(r.categorical).toBeGreaterThan(0)
  })
})
