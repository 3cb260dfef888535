import { describe, expect, test } from 'vitest'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { denseTensors, layerDims } from '../../../src/models/recsys/layout.ts'
import { meanLoss, modelBackward, modelForward } from '../../../src/models/recsys/model-ref.ts'
import { applyOptimizers } from '../../../src/models/recsys/optimizer.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { ModelBatch, ModelShape, ModelWeights } from '../../../src/models/recsys/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { centralDiff } from './mlp-gradcheck.ts'

/** B = 3, S = 2, D = 2, dense 3, layers [4, 3]; tables of 3 and 4 rows (R = 7). */
const SHAPE: ModelShape = { sparse: 2, dim: 2, totalRows: 7, dense: 3, layers: [4, 3] }

function tinyProblem(seed: number): { w: ModelWeights; batch: ModelBatch } {
  const rng = new Rng(seed)
  const w = initWeights(SHAPE, seed)
  w.embeddings.set(rng.floats(w.embeddings.length)) // larger than the init so every path carries gradient
  w.dense.forEach(t => t.set(rng.floats(t.length)))
  // Row 1 appears twice (b = 0 and 2): its gradient must be the sum of both lookups.
  const batch: ModelBatch = {
    n: 3,
    rows: new Uint32Array([1, 3, 0, 5, 1, 6]),
    dense: rng.floats(9),
    labels: new Float32Array([1, 0, 1]),
  }
  return { w, batch }
}

/** The mean loss in f64 from the f32 per-row losses (finite differences need more than f32 sums). */
function loss64(w: ModelWeights, batch: ModelBatch): number {
  return modelForward(SHAPE, w, batch).loss.reduce((s, x) => s + x, 0) / batch.n
}

/** Independent f64 forward: logits by plain loops, for checking the composed forward. */
function logits64(w: ModelWeights, batch: ModelBatch): number[] {
  const out: number[] = []
  for (let b = 0; b < batch.n; b++) {
    let x: number[] = []
    for (let s = 0; s < SHAPE.sparse; s++)
      for (let d = 0; d < SHAPE.dim; d++) x.push(w.embeddings[batch.rows[b * SHAPE.sparse + s] * SHAPE.dim + d])
    for (let j = 0; j < SHAPE.dense; j++) x.push(batch.dense[b * SHAPE.dense + j])
    layerDims(SHAPE).forEach(([c, oc], l) => {
      const y = Array.from({ length: oc }, (_, o) =>
        x.reduce((s, v, k) => s + v * w.dense[2 * l][o * c + k], w.dense[2 * l + 1][o]),
      )
      x = l < SHAPE.layers.length ? y.map(v => Math.max(0, v)) : y
    })
    out.push(x[0])
  }
  return out
}

describe('reference model', () => {
  test('forward equals an independent f64 forward (atol 1e-5)', () => {
    const { w, batch } = tinyProblem(1)
    const a = modelForward(SHAPE, w, batch)
    const want = logits64(w, batch)
    want.forEach((z, b) => expect(Math.abs(a.act[a.act.length - 1][b] - z)).toBeLessThan(1e-5))
    expect(meanLoss(a)).toBeCloseTo(
      want.reduce((s, z, b) => s + Math.max(z, 0) - z * batch.labels[b] + Math.log1p(Math.exp(-Math.abs(z))), 0) / 3,
      5,
    )
  })

  test.each([1, 2, 3])('whole-model gradients match central differences (seed %i)', seed => {
    const { w, batch } = tinyProblem(seed)
    const g = modelBackward(SHAPE, w, batch, modelForward(SHAPE, w, batch))
    const f = (): number => loss64(w, batch)
    let worst = 0,
      worstAbs = 0
    const check = (analytic: number, x: Float32Array, i: number, what: string): void => {
      const fd = centralDiff(x, i, 1e-3, f)
      const err = Math.abs(analytic - fd)
      worst = Math.max(worst, err / (1e-4 + Math.abs(fd)))
      worstAbs = Math.max(worstAbs, err)
      expect(err, `${what}[${i}]: analytic ${analytic} vs finite difference ${fd}`).toBeLessThanOrEqual(
        2e-4 + 1e-2 * Math.abs(fd),
      )
    }
    // Embeddings: rows the batch did not touch have zero gradient.
    const dEmb = new Float32Array(w.embeddings.length)
    g.segments.uniq.forEach((row, u) => dEmb.set(g.dRows.subarray(u * SHAPE.dim, (u + 1) * SHAPE.dim), row * SHAPE.dim))
    for (let i = 0; i < dEmb.length; i++) check(dEmb[i], w.embeddings, i, 'embeddings')
    denseTensors(SHAPE).forEach((t, k) => {
      for (let i = 0; i < t.length; i++) check(g.dense[k][i], w.dense[k], i, t.name)
    })
    expect([...g.segments.uniq]).toEqual([0, 1, 3, 5, 6])
    console.log(
      `gradient check seed ${seed}: max |analytic − fd| = ${worstAbs.toExponential(2)}, max |analytic − fd| / (1e-4 + |fd|) = ${worst.toExponential(2)}`,
    )
  })

  test.each(['adagrad', 'rowwise_adam'] as const)('%s step lowers the loss and leaves untouched rows alone', opt => {
    const p = parseRecsysParams({ embedding_optimizer: opt, lr: 0.01, embedding_lr: 0.05 })
    const { w, batch } = tinyProblem(4)
    const s = initOptimizerState(SHAPE, p)
    const before = loss64(w, batch),
      untouched = [w.embeddings[4], w.embeddings[5]] // row 2
    for (let k = 0; k < 20; k++) {
      const g = modelBackward(SHAPE, w, batch, modelForward(SHAPE, w, batch))
      applyOptimizers(SHAPE, p, w, s, g, { dense: p.lr, embedding: p.embedding_lr })
    }
    expect(s.step).toBe(20)
    expect(loss64(w, batch)).toBeLessThan(before * 0.8)
    expect([w.embeddings[4], w.embeddings[5]]).toEqual(untouched)
    if (opt === 'rowwise_adam') expect([...s.rowStep!]).toEqual([20, 20, 0, 20, 0, 20, 20])
  })
})
