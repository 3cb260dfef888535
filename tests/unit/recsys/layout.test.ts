import { describe, expect, test } from 'vitest'
import { initOptimizerState, initWeights, EMBEDDING_INIT_STD } from '../../../src/models/recsys/init.ts'
import {
  checkShape,
  denseTensors,
  inputWidth,
  layerDims,
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
    ).toEqual({ sparse: 2, dim: 4, totalRows: 40, dense: 7, layers: [8] })
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
