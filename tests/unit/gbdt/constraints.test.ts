/**
 * Monotone and interaction constraints (XGBoost 1.7.4 TreeEvaluator / FeatureInteractionConstraintHost):
 * the parameters and their refusals, the reference split search with bounds and monotone features
 * on hand-checked histograms, the bounds a split hands its children, and trained models (CPU
 * backend, both grow policies): predictions monotone in each constrained feature along random
 * grids, no root-to-leaf path mixing features of different interaction sets, and R = 2, 3 ranks
 * byte-identical to R = 1 with both constraints on.
 */
import { describe, expect, it } from 'vitest'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { resolveConstraints, TreeConstraints } from '../../../src/models/gbdt/constraints.ts'
import { splitEvaluate } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import {
  decodeSplit,
  featureKinds,
  MAX_WEIGHT_BOUND,
  SPLIT_WORDS,
  type SplitParams,
  type SplitResult,
} from '../../../src/kernels/gbdt/layout.ts'
import { putInt64 } from '../../../src/kernels/gbdt/fixed-point.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { shardOf, trainShard } from '../../../src/models/gbdt/ranks.ts'
import { localGroup } from '../../../src/ranks/local-group.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import type { Booster, Tree } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'

const NAMES = ['age', 'job', 'balance']

describe('constraint parameters', () => {
  it('reads XGBoost’s tuple string, arrays, objects by name and the interaction list forms', () => {
    expect(parseParams({ monotone_constraints: '(1,0,-1)' }).monotone_constraints).toEqual([1, 0, -1])
    expect(parseParams({ monotone_constraints: '(1,)' }).monotone_constraints).toEqual([1])
    expect(parseParams({ monotone_constraints: '[-1, 1]' }).monotone_constraints).toEqual([-1, 1])
    expect(parseParams({ monotone_constraints: [0, 1] }).monotone_constraints).toEqual([0, 1])
    expect(parseParams({ monotone_constraints: { age: 1 } }).monotone_constraints).toEqual({ age: 1 })
    expect(parseParams({ monotone_constraints: '()' }).monotone_constraints).toEqual([])
    expect(parseParams({}).monotone_constraints).toEqual([])
    expect(parseParams({ interaction_constraints: '[[0, 1], [2, 3, 4]]' }).interaction_constraints).toEqual([
      [0, 1],
      [2, 3, 4],
    ])
    expect(parseParams({ interaction_constraints: [['age', 'job'], ['balance']] }).interaction_constraints).toEqual([
      ['age', 'job'],
      ['balance'],
    ])
    expect(parseParams({}).interaction_constraints).toEqual([])
  })

  it.each([
    [{ monotone_constraints: '(1,2,0)' }, 'monotone_constraints: value 2 is "2", not -1, 0 or 1'],
    [{ monotone_constraints: [1, 0.5] }, 'monotone_constraints: value 2 is 0.5, not -1, 0 or 1'],
    [{ monotone_constraints: { age: 'up' } }, 'monotone_constraints: feature age is "up", not -1, 0 or 1'],
    [{ monotone_constraints: 7 }, 'monotone_constraints: got 7'],
    [{ interaction_constraints: '[[0, -1]]' }, 'interaction_constraints: set 1 has -1, not a feature index or name'],
    [{ interaction_constraints: '[0, 1]' }, 'interaction_constraints: set 1 is 0, not a list'],
    [{ interaction_constraints: 'age,job' }, 'interaction_constraints: "age,job" is not a list'],
  ])('refuses %j naming the parameter and the bad item', (raw, message) => {
    expect(() => parseParams(raw as Record<string, unknown>)).toThrow(RangeError)
    expect(() => parseParams(raw as Record<string, unknown>)).toThrow(message)
  })

  it('resolves names and indices against the features; refuses a wrong length, unknown names, bad indices', () => {
    const p = (raw: Record<string, unknown>) => parseParams(raw)
    expect(resolveConstraints(p({ monotone_constraints: { balance: -1 } }), NAMES).monotone).toEqual(
      Int8Array.of(0, 0, -1),
    )
    expect(resolveConstraints(p({ monotone_constraints: '(0,0,0)' }), NAMES).monotone).toBeUndefined()
    expect(resolveConstraints(p({ interaction_constraints: [['balance', 'age'], [1]] }), NAMES).interaction).toEqual([
      [2, 0],
      [1],
    ])
    expect(() => resolveConstraints(p({ monotone_constraints: '(1,0)' }), NAMES)).toThrow(
      'monotone_constraints: 2 values for 3 features (features: age, job, balance)',
    )
    expect(() => resolveConstraints(p({ monotone_constraints: { salary: 1 } }), NAMES)).toThrow(
      'monotone_constraints: no feature column salary (features: age, job, balance)',
    )
    expect(() => resolveConstraints(p({ interaction_constraints: '[[0, 3]]' }), NAMES)).toThrow(
      'interaction_constraints: feature index 3 is out of range: 3 features (features: age, job, balance)',
    )
    expect(() => resolveConstraints(p({ interaction_constraints: [['age', 'zip']] }), NAMES)).toThrow(
      'interaction_constraints: no feature column zip',
    )
    expect(() => resolveConstraints(p({ monotone_constraints: '(0,1,0)' }), NAMES, Uint8Array.of(0, 1, 0))).toThrow(
      'monotone_constraints: feature job is categorical; its categories have no order to be monotone in (give it 0)',
    )
  })

  it('train refuses constraints that do not fit the data, naming the parameter', async () => {
    const data = monotoneData(200, 1),
      objective = 'reg:squarederror'
    await expect(train(data, parseParams({ objective, monotone_constraints: '(1,-1)' }))).rejects.toThrow(
      'monotone_constraints: 2 values for 3 features',
    )
    await expect(train(data, parseParams({ objective, interaction_constraints: '[[0, 5]]' }))).rejects.toThrow(
      /interaction_constraints: feature index 5 is out of range/,
    )
  })
})

/**
 * One node, one numeric feature with bins [qg, qh] and scales 1: the reference's result, with
 * the feature's monotone constraint and the node's bounds [lower, upper, parentLower, parentUpper].
 */
function evaluate(
  bins: Array<[number, number]>,
  p: SplitParams,
  mono = 0,
  bounds = [-MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND, -MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND],
): SplitResult {
  const hist = new Uint32Array(bins.length * 4)
  let G = 0,
    H = 0
  bins.forEach(([g, h], b) => {
    putInt64(hist, b * 4, g)
    putInt64(hist, b * 4 + 2, h)
    G += g
    H += h
  })
  const sums = new Uint32Array(8)
  putInt64(sums, 0, G)
  putInt64(sums, 2, H)
  new Float32Array(sums.buffer, 16, 4).set(bounds)
  const cutPtrs = Uint32Array.of(0, bins.length),
    out = new Uint32Array(SPLIT_WORDS)
  splitEvaluate(
    hist,
    cutPtrs,
    Uint32Array.of(1),
    new Uint32Array(1),
    sums,
    Float32Array.of(0, 0, 1, 1),
    out,
    { nodes: 1, features: 1, maskPerNode: 0 },
    p,
    featureKinds(cutPtrs, undefined, 4, [mono]),
  )
  return decodeSplit(out, 0)
}

describe('the reference split search with constraints (hand-checked)', () => {
  const P: SplitParams = { lambda: 1, alpha: 0, minChildWeight: 0, constrained: true }
  // Left bin G = 4, H = 2 (weight −4/3); right bin G = −4, H = 2 (weight 4/3): an increasing split.
  const up: Array<[number, number]> = [
    [4, 2],
    [-4, 2],
  ]

  it('an increasing split passes an increasing constraint with gain Σ −(2Gw + (H + λ)w²) = 32/3', () => {
    for (const mono of [0, 1]) {
      const r = evaluate(up, P, mono)
      expect([r.feature, r.splitBin]).toEqual([0, 0])
      expect(r.gain).toBeCloseTo(32 / 3, 5)
      expect([r.leftWeight, r.rightWeight]).toEqual([Math.fround(-4 / 3), Math.fround(4 / 3)])
    }
  })

  it('a decreasing constraint refuses it: no split', () => {
    expect(evaluate(up, P, -1).feature).toBe(-1)
    // The mirror image is decreasing, so the decreasing constraint keeps it.
    const down = evaluate(
      up.map(([g, h]) => [-g, h]),
      P,
      -1,
    )
    expect([down.feature, down.leftWeight]).toEqual([0, Math.fround(4 / 3)])
  })

  it('weights are clamped to the node’s bounds: ±0.5 gives 2 × (4 − 0.75) = 6.5', () => {
    const r = evaluate(up, P, 1, [-0.5, 0.5, -MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND])
    expect([r.leftWeight, r.rightWeight]).toEqual([-0.5, 0.5])
    expect(r.gain).toBeCloseTo(6.5, 5)
  })

  it('the parent’s score takes its weight clamped to its own bounds', () => {
    // G = −4, H = 4: weight 0.8, score 3.2; clamped to 0.5: −(2·(−4)·0.5 + 5·0.25) = 2.75.
    const bins: Array<[number, number]> = [
      [4, 2],
      [-8, 2],
    ]
    const children = 16 / 3 + 64 / 3
    expect(evaluate(bins, P).gain).toBeCloseTo(children - 3.2, 4)
    expect(evaluate(bins, P, 0, [-MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND, -1, 0.5]).gain).toBeCloseTo(children - 2.75, 4)
  })

  it('max_delta_step clips the weights in the gain (XGBoost’s weight-based gain): 2 × (8 − 3) = 10', () => {
    const r = evaluate(up, { lambda: 1, alpha: 0, minChildWeight: 0, maxDeltaStep: 1 })
    expect([r.leftWeight, r.rightWeight]).toEqual([-1, 1])
    expect(r.gain).toBeCloseTo(10, 5)
  })
})

describe('bounds handed to the children (XGBoost AddSplit)', () => {
  it('cuts at the mid weight on the constrained side, inherits otherwise', () => {
    const t = new TreeConstraints({ monotone: Int8Array.of(1, -1, 0) })
    const M = MAX_WEIGHT_BOUND
    t.split(0, 1, 2, 0, -1, 3)
    expect([t.nodeBounds(1), t.nodeBounds(2)]).toEqual([
      [-M, 1, -M, M],
      [1, M, -M, M],
    ])
    t.split(2, 3, 4, 1, 2.5, 1.5)
    expect([t.nodeBounds(3), t.nodeBounds(4)]).toEqual([
      [2, M, 1, M],
      [1, 2, 1, M],
    ])
    t.split(4, 5, 6, 2, 1.2, 1.9)
    expect([t.nodeBounds(5), t.nodeBounds(6)]).toEqual([
      [1, 2, 1, 2],
      [1, 2, 1, 2],
    ])
  })

  it('interaction sets: any feature at the root, then the path’s features and every set holding them all', () => {
    const t = new TreeConstraints({ interaction: [[0, 1], [1, 2], [3]] })
    const all = new Uint8Array(5).fill(1)
    expect(Array.from(t.restrict(0, all))).toEqual([1, 1, 1, 1, 1])
    t.split(0, 1, 2, 1, 0, 0)
    expect(Array.from(t.restrict(1, all))).toEqual([1, 1, 1, 0, 0])
    t.split(1, 3, 4, 0, 0, 0)
    expect(Array.from(t.restrict(3, all))).toEqual([1, 1, 0, 0, 0])
    // A feature in no set: after it, only the path's own features (XGBoost always permits those).
    t.split(2, 5, 6, 4, 0, 0)
    expect(Array.from(t.restrict(5, all))).toEqual([0, 1, 0, 0, 1])
    const u = new TreeConstraints({ interaction: [[0, 1]] })
    u.split(0, 1, 2, 4, 0, 0)
    expect(Array.from(u.restrict(1, all))).toEqual([0, 0, 0, 0, 1])
    // The sampler's mask still applies.
    expect(Array.from(u.restrict(1, Uint8Array.of(1, 1, 1, 1, 0)))).toEqual([0, 0, 0, 0, 0])
  })
})

/** y = x0 + sin(4·x0) − x1 + 0.3·cos(5·x1) + x2² + noise: x0 up and x1 down only on average. */
function monotoneData(n: number, seed: number): TrainData {
  const rng = new Rng(seed)
  const columns = [0, 1, 2].map(() => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
  const labels = Float32Array.from(
    { length: n },
    (_, i) =>
      columns[0][i] +
      Math.sin(4 * columns[0][i]) -
      columns[1][i] +
      0.3 * Math.cos(5 * columns[1][i]) +
      columns[2][i] ** 2 +
      0.1 * rng.normal(),
  )
  return { columns, labels, featureNames: NAMES }
}

/**
 * Largest step against the constraint's direction `dir` over `grids` random rows, each with
 * feature f swept over an ascending grid (0 = monotone everywhere).
 */
function worstViolation(b: Booster, f: number, dir: number, rng: Rng, grids = 40, steps = 60): number {
  let worst = 0
  for (let k = 0; k < grids; k++) {
    const base = [0, 1, 2].map(() => rng.uniform(-1.2, 1.2))
    const cols = base.map((v, j) =>
      Float32Array.from({ length: steps }, (_, s) => (j === f ? -1.2 + (2.4 * s) / (steps - 1) : v)),
    )
    const m = predictMargins(b, cols)
    for (let s = 1; s < steps; s++) worst = Math.max(worst, -dir * (m[s] - m[s - 1]))
  }
  return worst
}

/** Features of every root-to-leaf path of `t`. */
function pathFeatures(t: Tree, n = 0, path: number[] = []): number[][] {
  if (t.left[n] < 0) return [path]
  const here = [...path, t.splitIndex[n]]
  return [...pathFeatures(t, t.left[n], here), ...pathFeatures(t, t.right[n], here)]
}

const POLICIES = [{}, { grow_policy: 'lossguide', max_leaves: 12, max_depth: 0 }]

describe('trained with constraints (CPU backend)', () => {
  const data = monotoneData(3000, 5)
  const base = { objective: 'reg:squarederror', max_depth: 5, eta: 0.3, num_round: 15, max_bin: 64, base_score: 0 }

  it.each(POLICIES)('predictions are monotone in each constrained feature along random grids (%j)', async extra => {
    const free = await train(data, parseParams({ ...base, ...extra }))
    // The data is not monotone in x0 or x1 without the constraints: the check can fail.
    expect(worstViolation(free, 0, 1, new Rng(1))).toBeGreaterThan(0.01)
    expect(worstViolation(free, 1, -1, new Rng(2))).toBeGreaterThan(0.01)
    for (const mc of ['(1,-1,0)', { age: 1, job: -1 }]) {
      const b = await train(data, parseParams({ ...base, ...extra, monotone_constraints: mc }))
      expect(worstViolation(b, 0, 1, new Rng(3))).toBe(0)
      expect(worstViolation(b, 1, -1, new Rng(4))).toBe(0)
      // The constrained features are still used.
      const used = new Set(b.trees.flatMap(t => Array.from(t.splitIndex.filter((_, k) => t.left[k] >= 0))))
      expect([used.has(0), used.has(1)]).toEqual([true, true])
    }
  })

  it.each(POLICIES)('no root-to-leaf path mixes features of different interaction sets (%j)', async extra => {
    const sets = [[0, 1], [2]]
    const mixes = (b: Booster) =>
      b.trees.some(t =>
        pathFeatures(t).some(path => path.length > 0 && !sets.some(s => path.every(f => s.includes(f)))),
      )
    const free = await train(data, parseParams({ ...base, ...extra }))
    expect(mixes(free)).toBe(true)
    const b = await train(data, parseParams({ ...base, ...extra, interaction_constraints: [['age', 'job'], [2]] }))
    expect(mixes(b)).toBe(false)
    expect(b.trees.some(t => pathFeatures(t).some(path => path.includes(2)))).toBe(true)
  })

  it('R = 2, 3 ranks give the R = 1 model byte for byte with both constraints (subsample, colsample_bynode)', async () => {
    const p = parseParams({
      ...base,
      num_round: 5,
      subsample: 0.8,
      colsample_bynode: 0.8,
      monotone_constraints: '(1,-1,0)',
      interaction_constraints: '[[0, 2], [1, 2]]',
    })
    const small = monotoneData(900, 8)
    const want = toXGBoostJsonString(await train(small, p, createCpuBackend))
    for (const world of [2, 3]) {
      const group = localGroup(world)
      const boosters = await Promise.all(
        group.map(c => trainShard(shardOf(small, world, c.rank), p, c, createCpuBackend)),
      )
      for (const b of boosters) expect(toXGBoostJsonString(b)).toBe(want)
    }
  })
})
