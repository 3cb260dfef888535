import { describe, expect, test } from 'vitest'
import { RefBackend, type ModelState } from '../../../src/models/recsys/backend.ts'
import { decodeCheckpoint, encodeCheckpoint, stateTensors } from '../../../src/models/recsys/checkpoint.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { inputWidth } from '../../../src/models/recsys/layout.ts'
import { GpuModel } from '../../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import type { ModelBatch, ModelShape, RecsysParams } from '../../../src/models/recsys/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'
import { memorySource } from '../../support/memory-source.ts'

/** B ≤ 16, S = 2, D = 4, R = 20 (tables of 7 and 13 rows), 3 dense inputs, layers [8, 4]. */
const SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8, 4] }

function randomBatch(rng: Rng, n: number): ModelBatch {
  const rows = new Uint32Array(n * 2)
  for (let b = 0; b < n; b++) {
    rows[2 * b] = rng.int(7)
    rows[2 * b + 1] = 7 + rng.int(13)
  }
  const labels = new Float32Array(n).map(() => (rng.next() < 0.3 ? 1 : 0))
  return { n, rows, dense: rng.floats(n * 3), labels }
}

/** Fresh state with weights large enough that every path (and every ReLU) matters. */
function startState(p: RecsysParams, seed: number, shape: ModelShape = SHAPE): ModelState {
  const rng = new Rng(seed)
  const weights = initWeights(shape, seed)
  weights.embeddings.set(rng.floats(weights.embeddings.length, -0.5, 0.5))
  return { weights, opt: initOptimizerState(shape, p) }
}

/**
 * Tolerance: the same f32 operations in the same order on both sides, except the GPU's
 * sqrt/division/exp ulps and possible FMA contraction; over 3 steps that stays near 1e-6.
 */
const ATOL = 1e-6,
  RTOL = 1e-4

describe('GPU recommender vs the CPU reference model', () => {
  test.each([
    ['adagrad + adam, tiled matmuls', { embedding_optimizer: 'adagrad', lr: 0.01, embedding_lr: 0.1 }, 'tiled'],
    [
      'rowwise_adam + adamw, naive matmuls',
      { embedding_optimizer: 'rowwise_adam', optimizer: 'adamw', weight_decay: 0.1, lr: 0.01 },
      'naive',
    ],
  ] as const)('3 steps (%s): losses and all state within atol 1e-6 + rtol 1e-4', async (_, extra, matmul) => {
    const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4, eval_every: 4, ...extra })
    const rng = new Rng(5)
    const batches = [randomBatch(rng, 16), randomBatch(rng, 16), randomBatch(rng, 11)]
    const cache = await gpuCache()
    const ref = new RefBackend(SHAPE, p, startState(p, 1))
    const gpu = await checked(cache.device, () => GpuModel.create(cache, SHAPE, p, startState(p, 1), { matmul }))
    try {
      for (const [k, batch] of batches.entries()) {
        const lr = { dense: (p.lr * (k + 1)) / 3, embedding: p.embedding_lr }
        await ref.step(batch, lr)
        await checked(cache.device, () => gpu.step(batch, lr))
      }
      const want = await ref.takeLosses(),
        got = await gpu.takeLosses()
      console.log(
        `recsys GPU vs ref (${matmul}): losses gpu ${got.map(x => x.toFixed(7)).join(' ')} ref ${want.map(x => x.toFixed(7)).join(' ')}`,
      )
      expectMatch(compareArrays(Float32Array.from(got), Float32Array.from(want), ATOL, RTOL), 'losses')
      const gs = await gpu.exportState(),
        rs = await ref.exportState()
      expect(gs.opt.step).toBe(3)
      const g = Object.fromEntries(stateTensors(SHAPE, gs)),
        r = Object.fromEntries(stateTensors(SHAPE, rs))
      for (const [name, a] of Object.entries(r)) {
        if (a instanceof Uint32Array) expect([...g[name]], name).toEqual([...a])
        else expectMatch(compareArrays(g[name] as Float32Array, a, ATOL, RTOL), name)
      }
      const probe = randomBatch(rng, 9)
      expectMatch(compareArrays(await gpu.predict(probe), await ref.predict(probe), ATOL, RTOL), 'predict')
    } finally {
      gpu.destroy()
    }
  })

  // C0 = 2·4 + 3 = 11: not a multiple of 4 or of the matmul tiles.
  test.each([
    ['full rank, 2 layers, tiled matmuls', { cross_layers: 2, cross_rank: 0 }, 'tiled'],
    ['rank 3, 2 layers, naive matmuls', { cross_layers: 2, cross_rank: 3 }, 'naive'],
    ['rank 1, 1 layer, tiled matmuls', { cross_layers: 1, cross_rank: 1 }, 'tiled'],
  ] as const)('dcn, 3 steps (%s): losses and all state within atol 1e-6 + rtol 1e-4', async (_, cross, matmul) => {
    const p = parseRecsysParams({
      batch_size: 16,
      layers: [8, 4],
      embedding_dim: 4,
      eval_every: 4,
      lr: 0.01,
      architecture: 'dcn',
      ...cross,
    })
    const shape: ModelShape = { ...SHAPE, cross: { layers: p.cross_layers, rank: p.cross_rank } }
    const rng = new Rng(6)
    const batches = [randomBatch(rng, 16), randomBatch(rng, 1), randomBatch(rng, 11)]
    const cache = await gpuCache()
    const ref = new RefBackend(shape, p, startState(p, 4, shape))
    const gpu = await checked(cache.device, () => GpuModel.create(cache, shape, p, startState(p, 4, shape), { matmul }))
    try {
      for (const [k, batch] of batches.entries()) {
        const lr = { dense: (p.lr * (k + 1)) / 3, embedding: p.embedding_lr }
        await ref.step(batch, lr)
        await checked(cache.device, () => gpu.step(batch, lr))
      }
      const want = await ref.takeLosses(),
        got = await gpu.takeLosses()
      console.log(
        `recsys dcn GPU vs ref (${_}): losses gpu ${got.map(x => x.toFixed(7)).join(' ')} ref ${want.map(x => x.toFixed(7)).join(' ')}`,
      )
      expectMatch(compareArrays(Float32Array.from(got), Float32Array.from(want), ATOL, RTOL), 'losses')
      const g = Object.fromEntries(stateTensors(shape, await gpu.exportState())),
        r = Object.fromEntries(stateTensors(shape, await ref.exportState()))
      expect(Object.keys(r).filter(n => n.startsWith('c'))).toHaveLength(
        cross.cross_rank === 0 ? 2 * cross.cross_layers : 3 * cross.cross_layers,
      )
      for (const [name, a] of Object.entries(r)) {
        if (a instanceof Uint32Array) expect([...g[name]], name).toEqual([...a])
        else expectMatch(compareArrays(g[name] as Float32Array, a, ATOL, RTOL), name)
      }
      const probe = randomBatch(rng, 9)
      expectMatch(compareArrays(await gpu.predict(probe), await ref.predict(probe), ATOL, RTOL), 'predict')
    } finally {
      gpu.destroy()
    }
  })

  test('GPU through trainLoop: stop at step 3, checkpoint, restore into a fresh GPU model ⇒ bit-identical to 7 uninterrupted steps; close to the reference', async () => {
    const p = parseRecsysParams({
      epochs: 1,
      batch_size: 16,
      layers: [8, 4],
      embedding_dim: 4,
      eval_every: 2,
      embedding_optimizer: 'rowwise_adam',
      optimizer: 'adamw',
      weight_decay: 0.01,
      lr: 0.01,
      schedule: 'cosine',
      warmup_steps: 2,
    })
    const rng = new Rng(21)
    const batches = [16, 16, 16, 16, 16, 16, 9].map(n => randomBatch(rng, n))
    const valid = randomBatch(rng, 40)
    const source = memorySource(batches, SHAPE)
    const cache = await gpuCache()
    const whole = await GpuModel.create(cache, SHAPE, p, startState(p, 3))
    const first = await GpuModel.create(cache, SHAPE, p, startState(p, 3))
    let second: GpuModel | undefined
    try {
      const a = await trainLoop({ params: p, backend: whole, source, valid })
      const r1 = await trainLoop({ params: p, backend: first, source, valid, stopAtStep: 3 })
      const ck = decodeCheckpoint(
        encodeCheckpoint({
          shape: SHAPE,
          params: p,
          layout: source.layout,
          loop: r1.state,
          state: await first.exportState(),
        }),
      )
      second = await GpuModel.create(cache, ck.shape, ck.params, ck.state)
      const r2 = await trainLoop({ params: p, backend: second, source, valid, resume: ck.loop })
      expect([a.state.step, r2.state.step]).toEqual([7, 7])
      const want = Object.fromEntries(stateTensors(SHAPE, await whole.exportState()))
      const got = Object.fromEntries(stateTensors(SHAPE, await second.exportState()))
      for (const [name, x] of Object.entries(want)) expect([...got[name]], name).toEqual([...x])
      const ref = new RefBackend(SHAPE, p, startState(p, 3))
      const rr = await trainLoop({ params: p, backend: ref, source, valid })
      const refState = Object.fromEntries(stateTensors(SHAPE, await ref.exportState()))
      let worst = 0
      for (const [name, x] of Object.entries(refState)) {
        if (x instanceof Uint32Array) {
          expect([...want[name]], name).toEqual([...x])
          continue
        }
        // Adam normalises tiny gradients, so ulp differences grow over steps: looser than the 3-step check.
        expectMatch(compareArrays(want[name] as Float32Array, x, 1e-5, 1e-3), `${name} after 7 steps`)
        x.forEach((v, i) => {
          worst = Math.max(worst, Math.abs(v - (want[name] as Float32Array)[i]))
        })
      }
      const [ga, ra] = [a.metrics.at(-1)!, rr.metrics.at(-1)!]
      console.log(
        `recsys GPU loop vs ref after 7 steps: max |Δweight| ${worst.toExponential(2)}, valid AUC gpu ${ga.validAuc} ref ${ra.validAuc}, train loss gpu ${ga.trainLoss} ref ${ra.trainLoss}`,
      )
      expect(Math.abs(ga.trainLoss - ra.trainLoss)).toBeLessThan(1e-4)
    } finally {
      whole.destroy()
      first.destroy()
      second?.destroy()
    }
  })

  test('a batch size beyond the adapter limit is refused naming batch_size and the limit', async () => {
    const cache = await gpuCache()
    const p = parseRecsysParams({ layers: [8, 4], embedding_dim: 4 })
    const limit = Math.min(cache.device.limits.maxStorageBufferBindingSize, cache.device.limits.maxBufferSize)
    const batch = Math.ceil(limit / (inputWidth(SHAPE) * 4)) + 1
    await expect(GpuModel.create(cache, SHAPE, p, startState(p, 1), { maxBatch: batch })).rejects.toThrow(
      new RegExp(`batch_size ${batch}.*limit of ${limit}`),
    )
  })

  // A NaN output bias makes the loss NaN; a NaN in w0 may be hidden from the loss by WGSL's
  // max(0, NaN) = 0 in the ReLU, so the loop also scans the dense weights at each evaluation.
  test.each([
    [5, 0, /diverged: loss is NaN.*lr = 5/],
    [0, 3, /diverged: dense weight w0 .*lr = 5/],
  ])('a NaN in dense tensor %i stops the loop with an error naming lr', async (tensor, at, message) => {
    const cache = await gpuCache()
    const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4, eval_every: 2, lr: 5 })
    const state = startState(p, 2)
    state.weights.dense[tensor][at] = NaN
    const gpu = await GpuModel.create(cache, SHAPE, p, state)
    const rng = new Rng(9)
    const source = memorySource(
      Array.from({ length: 4 }, () => randomBatch(rng, 16)),
      SHAPE,
    )
    try {
      await expect(trainLoop({ params: p, backend: gpu, source })).rejects.toThrow(message)
    } finally {
      gpu.destroy()
    }
  })
})
