/**
 * The recommender checkpoint format: every tensor, header field and the cursor round-trip, dcn's
 * cross layers, old files without them, and bad files named. A run stopped, restored and continued
 * to the bit-identical end: tests/integration/recsys/checkpoint-resume.test.ts.
 */
import { describe, expect, test } from 'vitest'
import { createRefBackend, RefBackend } from '../../../src/models/recsys/backend.ts'
import { decodeCheckpoint, encodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import type { RecsysParams } from '../../../src/models/recsys/types.ts'
import { bytesOf, differing, setup } from './checkpoint-fixture.ts'

describe('recsys checkpoints', () => {
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
