import { describe, expect, test } from 'vitest'
import { initOptimizerState, initWeights, EMBEDDING_INIT_STD } from '../../../src/models/recsys/init.ts'
import {
  checkShape,
  denseTensors,
  inputWidth,
  layerDims,
  mlpTensorOffset,
  modelShapeOf,
  parameterCount,
} from '../../../src/models/recsys/layout.ts'
import type { ModelShape } from '../../../src/models/recsys/types.ts'

const SHAPE: ModelShape = { sparse: 3, dim: 16, totalRows: 1000, dense: 5, layers: [64, 32] }

describe('parameter layout', () => {
  test('layer dims and tensors follow llm.c: w{l} [OC × C], b{l} [OC], output width 1', () => {
    expect(inputWidth(SHAPE)).toBe(53)
    expect(layerDims(SHAPE)).toEqual([
      [53, 64],
      [64, 32],
      [32, 1],
    ])
    expect(denseTensors(SHAPE).map(t => [t.name, t.rows, t.cols, t.length])).toEqual([
      ['w0', 64, 53, 3392],
      ['b0', 64, 1, 64],
      ['w1', 32, 64, 2048],
      ['b1', 32, 1, 32],
      ['w2', 1, 32, 32],
      ['b2', 1, 1, 1],
    ])
    expect(parameterCount(SHAPE)).toEqual({ embedding: 16_000, dense: 3392 + 64 + 2048 + 32 + 32 + 1 })
  })

  test('no hidden layers: logistic regression on the concatenated inputs', () => {
    expect(layerDims({ ...SHAPE, layers: [] })).toEqual([[53, 1]])
  })

  test.each([
    [{ dim: 0 }, /dim must be an integer ≥ 1/],
    [{ layers: [8, 0] }, /layers\[1\]/],
    [{ sparse: 0, dense: 0, totalRows: 0 }, /no inputs/],
    [{ totalRows: 0 }, /totalRows/],
  ])('bad shape %j is refused', (bad, message) => {
    expect(() => checkShape({ ...SHAPE, ...bad })).toThrow(message)
  })

  test('modelShapeOf takes S, R and Cd from the feature layout', () => {
    expect(
      modelShapeOf({ sparse: [1, 2], totalRows: 40, denseInputs: 7 } as never, { embedding_dim: 4, layers: [8] }),
    ).toMatchObject({ sparse: 2, dim: 4, totalRows: 40, dense: 7, layers: [8], cross: { layers: 0, rank: 0 } })
    const dcn = { embedding_dim: 4, layers: [8], architecture: 'dcn' as const, cross_layers: 3, cross_rank: 5 }
    expect(modelShapeOf({ sparse: [1, 2], totalRows: 40, denseInputs: 7 } as never, dcn).cross).toEqual({
      layers: 3,
      rank: 5,
    })
  })

  test('cross tensors come first: c{k}.w [C0 × C0] + c{k}.b (full), c{k}.v [r × C0] + c{k}.u [C0 × r] + c{k}.b (low rank)', () => {
    const full = { ...SHAPE, layers: [8], cross: { layers: 2, rank: 0 } }
    expect(denseTensors(full).map(t => [t.name, t.rows, t.cols])).toEqual([
      ['c0.w', 53, 53],
      ['c0.b', 53, 1],
      ['c1.w', 53, 53],
      ['c1.b', 53, 1],
      ['w0', 8, 53],
      ['b0', 8, 1],
      ['w1', 1, 8],
      ['b1', 1, 1],
    ])
    expect(mlpTensorOffset(full)).toBe(4)
    expect(parameterCount(full).dense).toBe(2 * (53 * 53 + 53) + 8 * 53 + 8 + 8 + 1)
    const low = { ...full, cross: { layers: 1, rank: 3 } }
    expect(denseTensors(low).map(t => [t.name, t.rows, t.cols])).toEqual([
      ['c0.v', 3, 53],
      ['c0.u', 53, 3],
      ['c0.b', 53, 1],
      ['w0', 8, 53],
      ['b0', 8, 1],
      ['w1', 1, 8],
      ['b1', 1, 1],
    ])
    expect(mlpTensorOffset(low)).toBe(3)
    // No cross (absent, as in checkpoints written before it, or K = 0): the MLP's tensors only.
    expect(denseTensors({ ...SHAPE, cross: { layers: 0, rank: 0 } })).toEqual(denseTensors(SHAPE))
  })

  test.each([
    [{ layers: 1, rank: 54 }, /cross_rank must be 0 \(full rank\) or an integer in \[1, C0 = 53\].*got 54/],
    [{ layers: 1, rank: 1.5 }, /cross_rank/],
    [{ layers: -1, rank: 0 }, /cross_layers/],
  ])('bad cross %j is refused naming the parameter', (cross, message) => {
    expect(() => checkShape({ ...SHAPE, cross })).toThrow(RangeError)
    expect(() => checkShape({ ...SHAPE, cross })).toThrow(message)
  })
})

describe('seeded init', () => {
  test('same seed → same weights; another seed differs', () => {
    const a = initWeights(SHAPE, 3),
      b = initWeights(SHAPE, 3),
      c = initWeights(SHAPE, 4)
    expect(a).toEqual(b)
    expect(a.embeddings).not.toEqual(c.embeddings)
  })

  test('embeddings ~ N(0, 0.01²), weights ~ U(±1/√C), biases 0', () => {
    const w = initWeights(SHAPE, 1)
    const e = w.embeddings
    const mean = e.reduce((s, x) => s + x, 0) / e.length
    const std = Math.sqrt(e.reduce((s, x) => s + (x - mean) ** 2, 0) / e.length)
    expect(Math.abs(mean)).toBeLessThan(3e-4)
    expect(std).toBeGreaterThan(EMBEDDING_INIT_STD * 0.95)
    expect(std).toBeLessThan(EMBEDDING_INIT_STD * 1.05)
    denseTensors(SHAPE).forEach((t, k) => {
      const a = w.dense[k]
      if (t.name.startsWith('b')) expect(a.every(x => x === 0)).toBe(true)
      else {
        const bound = 1 / Math.sqrt(t.cols)
        expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(bound)
        expect(Math.max(...a.map(Math.abs))).toBeGreaterThan(bound * 0.9) // spread over the whole range
      }
    })
  })

  test('cross kernels ~ Glorot uniform U(±√(6 / (fan_in + fan_out))), cross biases 0; embeddings draw as without them', () => {
    const shape = { ...SHAPE, cross: { layers: 2, rank: 4 } }
    const w = initWeights(shape, 1)
    denseTensors(shape).forEach((t, k) => {
      const a = w.dense[k]
      if (t.name.endsWith('.b')) expect(a.every(x => x === 0)).toBe(true)
      else if (t.name.startsWith('c')) {
        const bound = Math.sqrt(6 / (t.rows + t.cols))
        expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(bound)
        expect(Math.max(...a.map(Math.abs))).toBeGreaterThan(bound * 0.9)
      }
    })
    expect(w.embeddings).toEqual(initWeights(SHAPE, 1).embeddings)
  })

  test('optimizer state: zeros of the chosen optimizers only', () => {
    const ada = initOptimizerState(SHAPE, { embedding_optimizer: 'adagrad' })
    expect(ada.accum!.length).toBe(16_000)
    expect(ada.embM).toBeUndefined()
    const row = initOptimizerState(SHAPE, { embedding_optimizer: 'rowwise_adam' })
    expect([row.embM!.length, row.embV!.length, row.rowStep!.length, row.accum]).toEqual([
      16_000,
      16_000,
      1000,
      undefined,
    ])
    expect(row.m.map(t => t.length)).toEqual(denseTensors(SHAPE).map(t => t.length))
    expect(row.step).toBe(0)
  })
})
