/** The recsys bench's pipelined run (recsys-pipelined.ts: the product's trainLoop) on a tiny in-memory stream. */
import { describe, expect, test } from 'vitest'
import { runPipelined } from '../../bench/recsys-pipelined.ts'
import type { Cursor } from '../../src/data/types.ts'
import type { EpochStream } from '../../src/models/recsys/data.ts'
import { initWeights } from '../../src/models/recsys/init.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import type { ModelBatch, ModelShape } from '../../src/models/recsys/types.ts'
import { Rng } from '../../src/util/rng.ts'
import { gpuCache } from '../kernels/bench/setup.ts'

const SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8, 4] }

/** A stream of `sizes` random batches that counts what was taken and whether it was closed. */
function stream(sizes: number[]): EpochStream & { taken: number; closed: boolean } {
  const rng = new Rng(3)
  const batches: ModelBatch[] = sizes.map(n => ({
    n,
    rows: Uint32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? 7 + rng.int(13) : rng.int(7))),
    dense: rng.floats(3 * n),
    labels: Float32Array.from({ length: n }, () => rng.int(2)),
  }))
  const s = {
    taken: 0,
    closed: false,
    batches: async function* () {
      while (s.taken < batches.length) yield batches[s.taken++]
    },
    cursor: () => ({}) as Cursor,
    close: async () => {
      s.closed = true
    },
  }
  return s
}

describe('recsys bench: pipelined run', () => {
  const p = parseRecsysParams({ batch_size: 16, layers: [8, 4], embedding_dim: 4 })
  const base = { shape: SHAPE, params: p, init: initWeights(SHAPE, 1) }

  test('times exactly the steps after the warm-up, reads losses every readEvery steps, closes the stream', async () => {
    const cache = await gpuCache()
    const s = stream([16, 16, 9, 16, 16, 16, 12, 16])
    const r = await runPipelined({ ...base, cache, stream: s, warmup: 2, steps: 5, readEvery: 2 })
    expect(r.steps).toBe(5)
    expect(r.rows).toBe(9 + 16 + 16 + 16 + 12)
    expect(s.taken).toBe(7)
    expect(s.closed).toBe(true)
    expect(r.inputMs).toBeLessThanOrEqual(r.wallMs)
  })

  test('an epoch shorter than warm-up + steps is an error naming the batches, and the stream is still closed', async () => {
    const cache = await gpuCache()
    const s = stream([16, 16, 16])
    await expect(runPipelined({ ...base, cache, stream: s, warmup: 1, steps: 5, readEvery: 2 })).rejects.toThrow(
      /epoch ended after 3 batches/,
    )
    expect(s.closed).toBe(true)
  })
})
