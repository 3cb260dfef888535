import { describe, expect, test } from 'vitest'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { RefBackend } from '../../../src/models/recsys/backend.ts'
import { lookupRows } from '../../../src/models/recsys/bags.ts'
import { RanksBackend, RefRank } from '../../../src/models/recsys/ranks.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { denseTensors, inputWidth, layerDims } from '../../../src/models/recsys/layout.ts'
import { modelBackward, modelForward } from '../../../src/models/recsys/model-ref.ts'
import { applyOptimizers } from '../../../src/models/recsys/optimizer.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { ModelBatch, ModelShape, ModelWeights } from '../../../src/models/recsys/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { centralDiff } from './mlp-gradcheck.ts'

/**
 * B = 4, S = 1 (table rows 0–2), K = 2 bags: bag 0 'mean' over rows 3–6, bag 1 'sum' over rows
 * 7–11 (R = 12); D = 3 (not a multiple of 4), dense 2, one hidden layer of 4.
 */
const SHAPE: ModelShape = { sparse: 1, bags: 2, pooling: ['mean', 'sum'], dim: 3, totalRows: 12, dense: 2, layers: [4] }

/** Row 2's bag 0 is empty and its bag 1 null (empty); row 0's bag 0 repeats row 4; row 9 is in three rows' bag 1. */
function tinyProblem(seed: number, shape = SHAPE): { w: ModelWeights; batch: ModelBatch } {
  const rng = new Rng(seed)
  const w = initWeights(shape, seed)
  w.embeddings.set(rng.floats(w.embeddings.length))
  w.dense.forEach(t => t.set(rng.floats(t.length)))
  const bags = [
    [[4, 4, 5], [9]],
    [[3], [9, 10, 11]],
    [[], []],
    [
      [6, 5],
      [7, 9],
    ],
  ]
  const bagOffsets = new Uint32Array(9)
  const bagRows: number[] = []
  bags.flat().forEach((items, j) => {
    bagRows.push(...items)
    bagOffsets[j + 1] = bagRows.length
  })
  const batch: ModelBatch = {
    n: 4,
    rows: new Uint32Array([0, 2, 1, 2]),
    dense: rng.floats(8),
    labels: new Float32Array([1, 0, 1, 0]),
    bagRows: Uint32Array.from(bagRows),
    bagOffsets,
  }
  return { w, batch }
}

/** Independent f64 logits: x0 = [sparse embedding][mean of bag 0][sum of bag 1][dense], then the MLP. */
function logits64(w: ModelWeights, batch: ModelBatch): number[] {
  const D = SHAPE.dim,
    K = 2
  const row = (r: number): number[] => Array.from({ length: D }, (_, d) => w.embeddings[r * D + d])
  return Array.from({ length: batch.n }, (_, b) => {
    let x = row(batch.rows[b])
    for (let k = 0; k < K; k++) {
      const items = [...batch.bagRows!.subarray(batch.bagOffsets![b * K + k], batch.bagOffsets![b * K + k + 1])]
      const sum = items.reduce((acc, r) => acc.map((v, d) => v + row(r)[d]), new Array<number>(D).fill(0))
      x = [...x, ...(SHAPE.pooling![k] === 'mean' && items.length ? sum.map(v => v / items.length) : sum)]
    }
    x = [...x, batch.dense[2 * b], batch.dense[2 * b + 1]]
    layerDims(SHAPE).forEach(([c, oc], l) => {
      const y = Array.from({ length: oc }, (_, o) =>
        x.reduce((s, v, i) => s + v * w.dense[2 * l][o * c + i], w.dense[2 * l + 1][o]),
      )
      x = l < SHAPE.layers.length ? y.map(v => Math.max(0, v)) : y
    })
    return x[0]
  })
}

function loss64(shape: ModelShape, w: ModelWeights, batch: ModelBatch): number {
  return modelForward(shape, w, batch).loss.reduce((s, x) => s + x, 0) / batch.n
}

/** Every analytic gradient (embedding rows scattered from dRows, dense tensors) against central differences. */
function gradientCheck(shape: ModelShape, seed: number): void {
  const { w, batch } = tinyProblem(seed, shape)
  const g = modelBackward(shape, w, batch, modelForward(shape, w, batch))
  const f = (): number => loss64(shape, w, batch)
  const check = (analytic: number, x: Float32Array, i: number, what: string): void => {
    const fd = centralDiff(x, i, 1e-3, f)
    expect(
      Math.abs(analytic - fd),
      `${what}[${i}]: analytic ${analytic} vs finite difference ${fd}`,
    ).toBeLessThanOrEqual(2e-4 + 1e-2 * Math.abs(fd))
  }
  const D = shape.dim
  const dEmb = new Float32Array(w.embeddings.length)
  g.segments.uniq.forEach((row, u) => dEmb.set(g.dRows.subarray(u * D, (u + 1) * D), row * D))
  for (let i = 0; i < dEmb.length; i++) check(dEmb[i], w.embeddings, i, 'embeddings')
  denseTensors(shape).forEach((t, k) => {
    for (let i = 0; i < t.length; i++) check(g.dense[k][i], w.dense[k], i, t.name)
  })
  // Rows 8 (in no bag) and none else are untouched: the sparse rows 0–2 and every bag item are in uniq.
  expect([...g.segments.uniq]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11])
}

describe('reference model with bags', () => {
  test('C0 = (S + K)·D + Cd; forward equals an independent f64 forward', () => {
    expect(inputWidth(SHAPE)).toBe((1 + 2) * 3 + 2)
    const { w, batch } = tinyProblem(1)
    const a = modelForward(SHAPE, w, batch)
    logits64(w, batch).forEach((z, b) => expect(Math.abs(a.act.at(-1)![b] - z)).toBeLessThan(1e-5))
  })

  test.each([1, 2, 3])('whole-model gradients (bags, mean and sum) match central differences (seed %i)', seed =>
    gradientCheck(SHAPE, seed),
  )

  test('whole-model gradients with bags and a cross layer match central differences', () =>
    gradientCheck({ ...SHAPE, cross: { layers: 1, rank: 2 } }, 4))

  test('bag items join the lookup positions after the sparse ones', () => {
    const { batch } = tinyProblem(1)
    expect([...lookupRows(SHAPE, batch)]).toEqual([0, 2, 1, 2, 4, 4, 5, 9, 3, 9, 10, 11, 6, 5, 7, 9])
    expect(() => lookupRows(SHAPE, { ...batch, bagOffsets: batch.bagOffsets!.subarray(1) })).toThrow(
      /bagOffsets has 8 values, expected B·K \+ 1 = 9/,
    )
  })

  test.each(['adagrad', 'rowwise_adam'] as const)('%s steps lower the loss and update bag rows, not others', opt => {
    const p = parseRecsysParams({ embedding_optimizer: opt, lr: 0.01, embedding_lr: 0.05 })
    const { w, batch } = tinyProblem(5)
    const s = initOptimizerState(SHAPE, p)
    const before = loss64(SHAPE, w, batch)
    const row = (r: number): number[] => [...w.embeddings.subarray(r * 3, r * 3 + 3)]
    const untouched = row(8),
      item = row(10)
    for (let k = 0; k < 20; k++) {
      const g = modelBackward(SHAPE, w, batch, modelForward(SHAPE, w, batch))
      applyOptimizers(SHAPE, p, w, s, g, { dense: p.lr, embedding: p.embedding_lr })
    }
    expect(loss64(SHAPE, w, batch)).toBeLessThan(before * 0.8)
    expect(row(8)).toEqual(untouched)
    expect(row(10)).not.toEqual(item)
  })
})

describe('bags across ranks', () => {
  /** `n` rows of SHAPE with random bags (a quarter empty, up to 4 items). */
  function randomBatch(rng: Rng, n: number): ModelBatch {
    const bagOffsets = new Uint32Array(2 * n + 1)
    const bagRows: number[] = []
    for (let j = 0; j < 2 * n; j++) {
      const len = rng.int(4) === 0 ? 0 : rng.int(5)
      for (let i = 0; i < len; i++) bagRows.push(j % 2 === 0 ? 3 + rng.int(4) : 7 + rng.int(5))
      bagOffsets[j + 1] = bagRows.length
    }
    return {
      n,
      rows: Uint32Array.from({ length: n }, () => rng.int(3)),
      dense: rng.floats(2 * n),
      labels: new Float32Array(n).map(() => (rng.next() < 0.4 ? 1 : 0)),
      bagRows: Uint32Array.from(bagRows),
      bagOffsets,
    }
  }

  test('R = 2 reference ranks train the same model as one with the whole batch (bag items combine like lookups)', async () => {
    const p = parseRecsysParams({ batch_size: 16, layers: [4], embedding_dim: 3, lr: 0.01, embedding_lr: 0.1 })
    const start = () => ({ weights: tinyProblem(7).w, opt: initOptimizerState(SHAPE, p) })
    const single = new RefBackend(SHAPE, p, start())
    const group = localGroup(2)
    const ranks = new RanksBackend(
      group.map(() => new RefRank(SHAPE, p, start())),
      group,
    )
    const rng = new Rng(11)
    for (let k = 0; k < 6; k++) {
      const batch = randomBatch(rng, 9)
      await single.step(batch, { dense: p.lr, embedding: p.embedding_lr })
      await ranks.step(batch, { dense: p.lr, embedding: p.embedding_lr })
    }
    const a = await single.exportState(),
      b = await ranks.exportState()
    const diff = (x: Float32Array, y: Float32Array) => x.reduce((m, v, i) => Math.max(m, Math.abs(v - y[i])), 0)
    expect(diff(b.weights.embeddings, a.weights.embeddings)).toBeLessThan(1e-5)
    a.weights.dense.forEach((t, i) => expect(diff(b.weights.dense[i], t)).toBeLessThan(1e-5))
  })
})
