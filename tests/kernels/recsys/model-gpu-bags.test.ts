import { describe, expect, test } from 'vitest'
import { RefBackend, type ModelState } from '../../../src/models/recsys/backend.ts'
import { stateTensors } from '../../../src/models/recsys/checkpoint.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { GpuModel } from '../../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { ModelBatch, ModelShape, RecsysParams } from '../../../src/models/recsys/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/**
 * B ≤ 16, S = 1 (7 rows), K = 2 bags (mean over 11 rows, sum over 9 rows), D = 5, R = 27,
 * 2 dense inputs, layers [8].
 */
const SHAPE: ModelShape = { sparse: 1, bags: 2, pooling: ['mean', 'sum'], dim: 5, totalRows: 27, dense: 2, layers: [8] }

/** Bag lengths 0 … maxLen (a quarter empty); `huge` items in row 0's first bag when given. */
function randomBatch(rng: Rng, n: number, maxLen: number, huge = 0): ModelBatch {
  const rows = Uint32Array.from({ length: n }, () => rng.int(7))
  const bagOffsets = new Uint32Array(2 * n + 1)
  const bagRows: number[] = []
  for (let j = 0; j < 2 * n; j++) {
    const len = j === 0 && huge ? huge : rng.int(4) === 0 ? 0 : rng.int(maxLen + 1)
    for (let i = 0; i < len; i++) bagRows.push(j % 2 === 0 ? 7 + rng.int(11) : 18 + rng.int(9))
    bagOffsets[j + 1] = bagRows.length
  }
  const labels = new Float32Array(n).map(() => (rng.next() < 0.4 ? 1 : 0))
  return { n, rows, dense: rng.floats(n * 2), labels, bagRows: Uint32Array.from(bagRows), bagOffsets }
}

function startState(p: RecsysParams, seed: number): ModelState {
  const rng = new Rng(seed)
  const weights = initWeights(SHAPE, seed)
  weights.embeddings.set(rng.floats(weights.embeddings.length, -0.5, 0.5))
  return { weights, opt: initOptimizerState(SHAPE, p) }
}

const ATOL = 1e-6,
  RTOL = 1e-4

describe('GPU recommender with bags vs the CPU reference model', () => {
  test.each([
    ['adagrad', { embedding_optimizer: 'adagrad', lr: 0.01, embedding_lr: 0.1 }],
    ['rowwise_adam', { embedding_optimizer: 'rowwise_adam', lr: 0.01 }],
  ] as const)(
    '4 steps (%s, one all-empty batch, one that grows the item buffers): state within atol 1e-6 + rtol 1e-4',
    async (_, extra) => {
      const p = parseRecsysParams({ batch_size: 16, layers: [8], embedding_dim: 5, eval_every: 8, ...extra })
      const rng = new Rng(9)
      const batches = [
        randomBatch(rng, 16, 3),
        randomBatch(rng, 16, 0),
        randomBatch(rng, 1, 2),
        randomBatch(rng, 13, 4, 300),
      ]
      const cache = await gpuCache()
      const ref = new RefBackend(SHAPE, p, startState(p, 2))
      const gpu = await checked(cache.device, () => GpuModel.create(cache, SHAPE, p, startState(p, 2)))
      try {
        for (const batch of batches) {
          const lr = { dense: p.lr, embedding: p.embedding_lr }
          await ref.step(batch, lr)
          await checked(cache.device, () => gpu.step(batch, lr))
        }
        expectMatch(
          compareArrays(
            Float32Array.from(await gpu.takeLosses()),
            Float32Array.from(await ref.takeLosses()),
            ATOL,
            RTOL,
          ),
          'losses',
        )
        const g = Object.fromEntries(stateTensors(SHAPE, await gpu.exportState())),
          r = Object.fromEntries(stateTensors(SHAPE, await ref.exportState()))
        for (const [name, a] of Object.entries(r)) {
          if (a instanceof Uint32Array) expect([...g[name]], name).toEqual([...a])
          else expectMatch(compareArrays(g[name] as Float32Array, a, ATOL, RTOL), name)
        }
        const probe = randomBatch(rng, 9, 20)
        expectMatch(compareArrays(await gpu.predict(probe), await ref.predict(probe), ATOL, RTOL), 'predict')
      } finally {
        gpu.destroy()
      }
    },
  )
})
