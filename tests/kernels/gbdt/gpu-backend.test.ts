/**
 * GPU backend vs the CPU backend (the executable specification): same data and parameters ⇒
 * the same trees (split features, bins, default directions exactly; leaf values within 1e-6)
 * and margins within tolerance; the chunked path (tiny forced binding limit) ⇒ the same model;
 * edge shapes; the memory-budget refusal. Small shapes: SwiftShader is slow.
 */
import { describe, expect, test } from 'vitest'
import { train } from '../../../src/models/gbdt/driver.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { createGpuBackend, type GpuBackendOptions } from '../../../src/models/gbdt/gpu-backend.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from './setup.ts'
import { gbdtData } from './gpu-backend-data.ts'
import { categoricalData } from '../../unit/gbdt/categorical-data.ts'
import { makeMulticlass } from '../../unit/gbdt/synthetic.ts'
import { createChecked } from '../../../src/gpu/recorder.ts'

async function gpuTrain(data: TrainData, raw: Record<string, unknown>, opts: GpuBackendOptions = {}): Promise<Booster> {
  const cache = await gpuCache()
  return checked(cache.device, () => train(data, parseParams(raw), createGpuBackend(cache.device, cache, opts)))
}

/** Trees equal: structure, features, bins, directions exactly; values within 1e-6 (+1e-5 rel). */
function expectSameTrees(gpu: Booster, cpu: Booster): void {
  expect(gpu.trees.length).toBe(cpu.trees.length)
  gpu.trees.forEach((t, k) => {
    const c = cpu.trees[k],
      at = `tree ${k}`
    expect(Array.from(t.left), `${at} left`).toEqual(Array.from(c.left))
    expect(Array.from(t.splitIndex), `${at} split_indices`).toEqual(Array.from(c.splitIndex))
    expect(Array.from(t.splitBin), `${at} split bins`).toEqual(Array.from(c.splitBin))
    expect(Array.from(t.defaultLeft), `${at} default_left`).toEqual(Array.from(c.defaultLeft))
    expect(Array.from(t.splitType), `${at} split_type`).toEqual(Array.from(c.splitType))
    expect(Array.from(t.catSize), `${at} category set sizes`).toEqual(Array.from(c.catSize))
    expect(Array.from(t.categories), `${at} categories`).toEqual(Array.from(c.categories))
    expectMatch(compareArrays(t.splitCondition, c.splitCondition, 1e-6, 1e-5), `${at} split_conditions / leaf values`)
    expectMatch(compareArrays(t.sumHessian, c.sumHessian, 1e-6, 1e-5), `${at} sum_hessian`)
  })
}

/** Trains on both backends and compares trees, validation metrics and margins. */
async function expectParity(
  data: TrainData,
  raw: Record<string, unknown>,
  opts: GpuBackendOptions = {},
): Promise<Booster> {
  const cpu = await train(data, parseParams(raw), createCpuBackend)
  const gpu = await gpuTrain(data, raw, opts)
  expectSameTrees(gpu, cpu)
  gpu.history.forEach((h, r) => {
    for (const [m, v] of Object.entries(h)) expect(v, `round ${r} ${m}`).toBeCloseTo(cpu.history[r][m], 5)
  })
  if (data.valid) {
    expectMatch(
      compareArrays(predictMargins(gpu, data.valid.columns), predictMargins(cpu, data.valid.columns), 1e-5, 1e-5),
      'valid margins',
    )
  }
  return gpu
}

const binary = gbdtData(2000, 6, 7, 0.15, 'binary')
const regression = gbdtData(1500, 5, 8, 0.1, 'regression')

describe('GPU backend = CPU backend', () => {
  test('binary:logistic, depthwise, missing values, subsample, colsample, scale_pos_weight', async () => {
    const gpu = await expectParity(binary, {
      max_depth: 4,
      num_round: 6,
      eta: 0.3,
      subsample: 0.7,
      colsample_bytree: 0.8,
      colsample_bynode: 0.8,
      scale_pos_weight: 1.5,
      seed: 3,
      eval_metric: ['logloss', 'auc'],
    })
    expect(gpu.trees.some(t => t.left.length > 15)).toBe(true)
    expect(gpu.history[5].auc).toBeGreaterThan(0.85)
  })

  test('reg:squarederror with row weights, lossguide with max_leaves, colsample_bylevel', async () => {
    const weights = Float32Array.from(regression.labels, (_, i) => 0.5 + ((i * 37) % 11) / 10)
    const gpu = await expectParity(
      { ...regression, weights },
      {
        objective: 'reg:squarederror',
        grow_policy: 'lossguide',
        max_leaves: 7,
        max_depth: 0,
        num_round: 5,
        colsample_bylevel: 0.8,
        lambda: 2,
        alpha: 0.1,
        seed: 4,
      },
    )
    expect(gpu.trees.every(t => t.left.filter(c => c === -1).length <= 7)).toBe(true)
  })

  test('binary:logistic with fractional row weights (some 0) and base margins, also chunked', async () => {
    const d = gbdtData(600, 5, 11, 0.1, 'binary')
    const w = (n: number, k: number) =>
      Float32Array.from({ length: n }, (_, i) => (i % 7 === k ? 0 : 0.1 + ((i * 29) % 17) / 4))
    const m = (n: number) => Float32Array.from({ length: n }, (_, i) => (((i * 13) % 9) - 4) / 5)
    const N = d.labels.length,
      V = d.valid!.labels.length
    const data = {
      ...d,
      weights: w(N, 3),
      baseMargin: m(N),
      valid: { ...d.valid!, weights: w(V, 5), baseMargin: m(V) },
    }
    const raw = { max_depth: 3, num_round: 4, eta: 0.3, base_score: 0.5, eval_metric: ['logloss', 'auc'] }
    const gpu = await expectParity(data, raw)
    await expectParity(data, raw, { maxBindingBytes: 1024 })
    const plain = await expectParity(
      { ...data, baseMargin: undefined, valid: { ...data.valid, baseMargin: undefined } },
      raw,
    )
    expect(gpu.history[3].logloss).not.toBeCloseTo(plain.history[3].logloss, 5)
  })

  test('chunked path: a 1 KiB binding limit splits rows, features and validation rows: same model', async () => {
    // planChunks with 1024-byte bindings (pinned in tests/unit/gbdt/gpu-chunks.test.ts):
    // 490 rows × 5 features → 4 row chunks × 1 feature chunk, 210 validation rows → 5 chunks;
    // 280 rows × 20 features → 3 row chunks × 3 feature chunks, 120 validation rows → 10 chunks.
    await expectParity(
      gbdtData(700, 5, 9, 0.1, 'binary'),
      { max_depth: 3, num_round: 4, subsample: 0.8, seed: 2 },
      { maxBindingBytes: 1024 },
    )
    await expectParity(
      gbdtData(400, 20, 10, 0.1, 'binary'),
      { max_depth: 4, num_round: 3, colsample_bynode: 0.5 },
      { maxBindingBytes: 1024 },
    )
  })

  test('multiclass (K = 3 subsample/colsample with validation metrics; K = 5 lossguide, chunked): the same K trees per round', async () => {
    const withMissing = (d: { columns: Float32Array[]; labels: Float32Array }) => ({
      columns: d.columns.map((c, f) => (f === 3 ? c.map((v, i) => (i % 9 === 0 ? Number.NaN : v)) : c)),
      labels: d.labels,
    })
    const three = { ...withMissing(makeMulticlass(700, 5, 3, 12)), valid: withMissing(makeMulticlass(200, 5, 3, 13)) }
    const gpu = await expectParity(three, {
      objective: 'multi:softprob',
      max_depth: 4,
      num_round: 4,
      subsample: 0.8,
      colsample_bynode: 0.8,
      seed: 6,
      eval_metric: ['merror', 'mlogloss'],
    })
    expect(gpu.numClass).toBe(3)
    expect(gpu.trees).toHaveLength(12)
    const five = withMissing(makeMulticlass(500, 4, 5, 14))
    const raw = { objective: 'multi:softmax', grow_policy: 'lossguide', max_leaves: 6, max_depth: 0, num_round: 3 }
    await expectParity(five, raw)
    await expectParity(five, raw, { maxBindingBytes: 4096 })
  })

  test('workgroup histogram kernel gives the same trees, also chunked', async () => {
    await expectParity(
      gbdtData(600, 4, 11, 0.1, 'binary'),
      { max_depth: 3, num_round: 3 },
      { histogramKernel: 'workgroup' },
    )
    // 256-byte bindings: 84 rows × 12 features → 3 row chunks × 2 feature chunks.
    await expectParity(
      gbdtData(120, 12, 12, 0.1, 'binary'),
      { max_depth: 3, num_round: 2 },
      { histogramKernel: 'workgroup', maxBindingBytes: 256 },
    )
  })

  test('categorical splits (one-hot and partition), also chunked: the same trees and sets', async () => {
    const data = categoricalData(900, 3)
    const raw = { max_depth: 4, num_round: 4, enable_categorical: true, categorical: ['c3'], eval_metric: ['auc'] }
    const gpu = await expectParity(data, raw)
    expect(gpu.trees.some(t => t.splitType.some((x, k) => x === 1 && t.catSize[k] > 1))).toBe(true)
    expect(gpu.trees.some(t => t.splitType.some((x, k) => x === 1 && t.splitIndex[k] === 1))).toBe(true)
    await expectParity(
      data,
      { ...raw, num_round: 2, max_cat_to_onehot: 1, max_cat_threshold: 3, subsample: 0.8 },
      {
        maxBindingBytes: 1024,
      },
    )
  })

  test('monotone and interaction constraints, both grow policies, max_delta_step: the same trees', async () => {
    for (const extra of [
      { max_depth: 4 },
      { grow_policy: 'lossguide', max_leaves: 10, max_depth: 0, max_delta_step: 0.5 },
    ]) {
      const gpu = await expectParity(regression, {
        objective: 'reg:squarederror',
        num_round: 4,
        eta: 0.3,
        max_bin: 64,
        monotone_constraints: '(1,-1,0,0,1)',
        interaction_constraints: '[[0, 1, 4], [2, 3]]',
        ...extra,
      })
      const used = new Set(gpu.trees.flatMap(t => Array.from(t.splitIndex.filter((_, k) => t.left[k] >= 0))))
      expect([0, 1, 2].every(f => used.has(f))).toBe(true)
    }
  })

  test('regression objectives: absoluteerror (leaf refresh from GPU positions, subsample), poisson, tweedie', async () => {
    // Small: 700 rows × 5. Labels in each objective's domain, from the regression rows.
    const small = gbdtData(1000, 5, 12, 0.1, 'regression')
    const counts = (y: Float32Array) => y.map(v => Math.round(Math.exp(0.5 * v)))
    const count = {
      ...small,
      labels: counts(small.labels),
      valid: { ...small.valid!, labels: counts(small.valid!.labels) },
    }
    const p = { max_depth: 3, num_round: 3, eta: 0.5, base_score: 0.5 }
    await expectParity(small, { ...p, objective: 'reg:absoluteerror', subsample: 0.8, seed: 5 })
    await expectParity(count, { ...p, objective: 'count:poisson' })
    await expectParity(count, { ...p, objective: 'reg:tweedie', tweedie_variance_power: 1.3, eval_metric: 'rmse' })
  })

  test('edges: one row, one feature, an all-missing feature', async () => {
    const one = await gpuTrain(
      { columns: [Float32Array.of(3)], labels: Float32Array.of(1) },
      { num_round: 2, min_child_weight: 0 },
    )
    expect(one.trees.every(t => t.left.length === 1)).toBe(true)
    const n = 300,
      x = Float32Array.from({ length: n }, (_, i) => ((i * 7919) % n) / n)
    const y = x.map(v => (v > 0.2 ? 1 : 0)),
      allNaN = new Float32Array(n).fill(NaN)
    const data = {
      columns: [allNaN, x],
      labels: y,
      valid: { columns: [allNaN.slice(0, 50), x.slice(0, 50)], labels: y.slice(0, 50) },
    }
    const b = await expectParity(data, { num_round: 3, max_depth: 2 })
    for (const t of b.trees)
      for (let k = 0; k < t.left.length; k++) if (t.left[k] !== -1) expect(t.splitIndex[k]).toBe(1)
    await expectParity({ columns: [x], labels: y }, { num_round: 2, max_depth: 3 })
  })

  test('refuses a run above the memory budget, naming the size and what to change', async () => {
    await expect(gpuTrain(binary, { num_round: 1 }, { memoryBudgetBytes: 10_000 })).rejects.toThrow(
      /GPU memory: training needs about .*MiB.*fewer rows/,
    )
  })

  test('GPU errors during setup surface as exceptions, not garbage', async () => {
    const { device } = await gpuCache()
    let undone = false
    // MAP_READ may only be combined with COPY_DST: a validation error.
    const bad = createChecked(
      device,
      'making a buffer',
      () => device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE }),
      b => {
        undone = true
        b.destroy()
      },
    )
    await expect(bad).rejects.toThrow(/GPU backend: making a buffer failed \(validation error\)/)
    expect(undone).toBe(true)
  })
})
