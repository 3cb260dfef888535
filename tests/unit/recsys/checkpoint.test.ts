import { describe, expect, test } from 'vitest'
import { createRefBackend, RefBackend } from '../../../src/models/recsys/backend.ts'
import {
  captureCheckpoint,
  decodeCheckpoint,
  encodeCheckpoint,
  restoreCheckpoint,
  stateTensors,
} from '../../../src/models/recsys/checkpoint.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import type { ModelShape, RecsysParams } from '../../../src/models/recsys/types.ts'
import { clicksFixture } from './clicks-fixture.ts'

const BASE = {
  epochs: 2,
  batch_size: 256,
  embedding_dim: 4,
  layers: [8, 4],
  lr: 3e-3,
  eval_every: 4,
  early_stopping_rounds: 50,
  seed: 11,
  schedule: 'cosine',
  warmup_steps: 3,
}

async function setup(
  extra: object,
): Promise<{ params: RecsysParams; shape: ModelShape; data: Awaited<ReturnType<typeof openRecsysData>> }> {
  const fx = await clicksFixture()
  const params = parseRecsysParams({ ...BASE, ...extra })
  const data = await openRecsysData(
    { plan: fx.plan, label: 'label', validFraction: 0.1, workers: 0, http: { fetch: fx.fetch } },
    params,
  )
  return { params, shape: modelShapeOf(data.source.layout, params), data }
}

/** Names of the tensors whose bytes differ between two bytesOf() records (Buffer.compare: fast on large tables). */
function differing(got: Record<string, Uint8Array>, want: Record<string, Uint8Array>): string[] {
  const names = [...new Set([...Object.keys(got), ...Object.keys(want)])]
  return names.filter(n => !got[n] || !want[n] || Buffer.compare(got[n], want[n]) !== 0)
}

/** Every tensor of a state as bytes, by name. */
function bytesOf(shape: ModelShape, s: Awaited<ReturnType<RefBackend['exportState']>>): Record<string, Uint8Array> {
  return Object.fromEntries(
    stateTensors(shape, s).map(([n, a]) => [n, new Uint8Array(a.buffer, a.byteOffset, a.byteLength)]),
  )
}

describe('recsys checkpoints', () => {
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

  test('round trip keeps every tensor, header field and the cursor', async () => {
    const { params, shape, data } = await setup({ embedding_optimizer: 'rowwise_adam' })
    const backend = createRefBackend(shape, params)
    const r = await trainLoop({ params, backend, source: data.source, stopAtStep: 3 })
    const state = await backend.exportState()
    const ck = decodeCheckpoint(encodeCheckpoint({ shape, params, layout: data.source.layout, loop: r.state, state }))
    expect(ck.shape).toEqual(shape)
    expect(ck.params).toEqual(params)
    expect(ck.layout).toEqual(data.source.layout)
    expect(ck.loop).toEqual(r.state)
    expect(ck.state.opt.step).toBe(3)
    expect(ck.state.opt.rowStep).toEqual(state.opt.rowStep)
    expect(differing(bytesOf(shape, ck.state), bytesOf(shape, state))).toEqual([])
    // As read from disk in Node: a Buffer that is a view into a larger pool (readFileSync of a small file).
    const pooled = Buffer.concat([
      Buffer.from('padding'),
      Buffer.from(encodeCheckpoint({ shape, params, layout: data.source.layout, loop: r.state, state })),
    ]).subarray(7)
    expect(differing(bytesOf(shape, decodeCheckpoint(pooled).state), bytesOf(shape, state))).toEqual([])
  })

  test('dcn: the cross shape and tensors round-trip; a checkpoint without `cross` (written before it existed) loads as mlp', async () => {
    const dcn = await setup({ architecture: 'dcn', cross_layers: 2 })
    expect(dcn.shape.cross).toEqual({ layers: 2, rank: 0 })
    const loop = { epoch: 0, step: 0, bestAuc: null, bestStep: 0, badRounds: 0 }
    const state = await createRefBackend(dcn.shape, dcn.params).exportState()
    const ck = decodeCheckpoint(
      encodeCheckpoint({ shape: dcn.shape, params: dcn.params, layout: dcn.data.source.layout, loop, state }),
    )
    expect(ck.shape).toEqual(dcn.shape)
    expect(Object.keys(bytesOf(ck.shape, ck.state)).filter(n => n.startsWith('c'))).toEqual([
      'c0.w',
      'c0.b',
      'c1.w',
      'c1.b',
    ])
    expect(differing(bytesOf(ck.shape, ck.state), bytesOf(dcn.shape, state))).toEqual([])

    const mlp = await setup({})
    const { cross: _, ...oldShape } = mlp.shape
    const { architecture: _a, cross_layers: _l, cross_rank: _r, ...oldParams } = mlp.params
    const mlpState = await createRefBackend(mlp.shape, mlp.params).exportState()
    const old = decodeCheckpoint(
      encodeCheckpoint({
        shape: oldShape,
        params: oldParams as RecsysParams,
        layout: mlp.data.source.layout,
        loop,
        state: mlpState,
      }),
    )
    expect(old.shape.cross).toBeUndefined()
    const again = new RefBackend(old.shape, mlp.params, old.state)
    expect(await again.predict(mlp.data.valid)).toEqual(
      await createRefBackend(mlp.shape, mlp.params).predict(mlp.data.valid),
    )
  })

  test('bad files are refused naming the file and the problem', async () => {
    const { params, shape, data } = await setup({})
    const backend = createRefBackend(shape, params)
    const file = encodeCheckpoint({
      shape,
      params,
      layout: data.source.layout,
      loop: { epoch: 0, step: 0, bestAuc: null, bestStep: 0, badRounds: 0 },
      state: await backend.exportState(),
    })
    expect(() => decodeCheckpoint(new Uint8Array(20), 'x.ckpt')).toThrow(/x\.ckpt.*magic/)
    expect(() => decodeCheckpoint(file.slice(0, file.length - 8), 'short.ckpt')).toThrow(
      /short\.ckpt.*runs past the end/,
    )
    const bad = file.slice()
    bad[12] = 0x20 // '{' → ' ' keeps JSON valid? no: breaks the object
    bad[13] = 0x7d
    expect(() => decodeCheckpoint(bad, 'bad.ckpt')).toThrow(/bad\.ckpt/)
  })
})
