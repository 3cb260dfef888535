/**
 * A recommender run stopped, checkpointed to a file, restored into a fresh model and continued ends
 * bit-identical to the uninterrupted run (whole CPU-reference training runs, two per case); the
 * checkpoint format alone: tests/unit/recsys/checkpoint.test.ts.
 */
import { describe, expect, test } from 'vitest'
import { createRefBackend, RefBackend } from '../../../src/models/recsys/backend.ts'
import {
  captureCheckpoint,
  decodeCheckpoint,
  encodeCheckpoint,
  restoreCheckpoint,
} from '../../../src/models/recsys/checkpoint.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { bytesOf, setup } from '../../unit/recsys/checkpoint-fixture.ts'

describe('recsys checkpoints: stop, restore, continue', () => {
  test.each([
    ['adagrad + adam', 5, { embedding_optimizer: 'adagrad' }],
    ['rowwise_adam + adamw', 17, { embedding_optimizer: 'rowwise_adam', optimizer: 'adamw', weight_decay: 0.01 }],
    ['rowwise_adam at the epoch boundary', 13, { embedding_optimizer: 'rowwise_adam' }],
    ['dcn, low-rank cross layers', 7, { architecture: 'dcn', cross_layers: 2, cross_rank: 3 }],
  ])(
    'stop, checkpoint, restore into a fresh model, continue ⇒ bit-identical to the uninterrupted run (%s, stop at step %i)',
    async (_, stopAt, extra) => {
      const { params, shape, data } = await setup(extra)
      expect(data.source.stepsPerEpoch).toBe(13)
      const a = createRefBackend(shape, params)
      const whole = await trainLoop({ params, backend: a, source: data.source, valid: data.valid })

      const b = createRefBackend(shape, params)
      const first = await trainLoop({ params, backend: b, source: data.source, valid: data.valid, stopAtStep: stopAt })
      expect(first.finished).toBe(false)
      expect(first.state.step).toBe(stopAt)
      // With early_stopping_rounds 50, restore_best is on: the checkpoint carries the kept best weights.
      const file = encodeCheckpoint(
        await captureCheckpoint(b, { shape, params, layout: data.source.layout, loop: first.state }),
      )
      b.destroy()

      const ck = decodeCheckpoint(file, 'test.ckpt')
      expect(ck.loop.cursor?.position).toBe(first.state.cursor?.position)
      expect(ck.best).toBeDefined()
      const c = new RefBackend(ck.shape, ck.params, ck.state)
      await restoreCheckpoint(c, ck)
      const rest = await trainLoop({
        params: ck.params,
        backend: c,
        source: data.source,
        valid: data.valid,
        resume: ck.loop,
      })
      expect(rest.finished).toBe(true)
      expect(rest.state.step).toBe(whole.state.step)
      expect(rest.state.bestAuc).toBe(whole.state.bestAuc)
      const want = bytesOf(shape, await a.exportState()),
        got = bytesOf(shape, await c.exportState())
      expect(Object.keys(got)).toEqual(Object.keys(want))
      for (const name of Object.keys(want)) expect(Buffer.compare(got[name], want[name]), `tensor ${name}`).toBe(0)
      expect((await c.exportState()).opt.step).toBe(whole.state.step)
    },
    30_000,
  )
})
