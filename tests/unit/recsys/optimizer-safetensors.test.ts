/**
 * optimizer.safetensors: parsed back by a reader written here from the format (u64 LE header length,
 * JSON header, raw little-endian data), it holds every dense tensor's Adam moments and step and every
 * embedding table's Adagrad sums or row-wise Adam moments and row steps, under the parameter's
 * state_dict name + torch.optim's state key, split per table like model.safetensors' weights; its
 * metadata carries the step and the hyperparameters. D = embedding dim.
 */
import { describe, expect, it } from 'vitest'
import type { Checkpoint } from '../../../src/models/recsys/checkpoint.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { encodeOptimizerSafetensors, optimizerMeta } from '../../../src/models/recsys/optimizer-safetensors.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { FeatureLayout } from '../../../src/models/recsys/types.ts'
import type { LoopState } from '../../../src/models/recsys/train-loop.ts'

/** name → { dtype, shape, values as numbers }, and the metadata. */
function read(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = Number(view.getBigUint64(0, true))
  expect((8 + n) % 8, 'data 8-byte aligned').toBe(0)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<
    string,
    Record<string, unknown>
  >
  const out = new Map<string, { dtype: string; shape: number[]; values: number[] }>()
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue
    const [begin, end] = e.data_offsets as number[]
    const size = e.dtype === 'I64' ? 8 : 4
    const values = Array.from({ length: (end - begin) / size }, (_, i) =>
      e.dtype === 'I64'
        ? Number(view.getBigInt64(8 + n + begin + 8 * i, true))
        : view.getFloat32(8 + n + begin + 4 * i, true),
    )
    out.set(name, { dtype: e.dtype as string, shape: e.shape as number[], values })
  }
  return { tensors: out, metadata: header.__metadata__ as Record<string, string> }
}

const layout: FeatureLayout = {
  label: 'y',
  sparse: [
    { name: 'user', cardinality: 3, buckets: 5, tableOffset: 0, bytes: 0 },
    { name: 'item', cardinality: 4, buckets: 7, tableOffset: 5, bytes: 0 },
  ],
  dense: [{ name: 'price', log1p: false, mean: 0, std: 1, indicator: false }],
  lists: [],
  bags: [{ name: 'history', cardinality: 9, buckets: 6, tableOffset: 12, bytes: 0, pooling: 'mean' }],
  totalRows: 18,
  denseInputs: 1,
}

/** A checkpoint at step 9 whose every optimizer value is distinct (value = a tensor's index·1000 + i). */
function checkpoint(raw: Record<string, unknown>): Checkpoint {
  const params = parseRecsysParams({ embedding_dim: 3, layers: [4], ...raw })
  const shape = modelShapeOf(layout, params)
  const opt = { ...initOptimizerState(shape, params), step: 9 }
  const fill = (a: Float32Array | Uint32Array, k: number) => a.forEach((_, i) => (a[i] = k * 1000 + i))
  opt.m.forEach((a, j) => fill(a, j + 1))
  opt.v.forEach((a, j) => fill(a, j + 50))
  for (const [k, a] of [opt.accum, opt.embM, opt.embV, opt.rowStep].entries()) if (a) fill(a, 100 + k)
  const loop = { epoch: 1, step: 9, bestAuc: null, bestStep: 0, badRounds: 0 } as LoopState
  return { shape, params, layout, loop, state: { weights: initWeights(shape, 1), opt } }
}

describe('encodeOptimizerSafetensors', () => {
  it('writes Adam moments and step per dense tensor and Adagrad sums per table, split like the weights', () => {
    const ck = checkpoint({})
    const { tensors, metadata } = read(encodeOptimizerSafetensors(ck))
    const o = ck.state.opt
    const D = 3
    expect(tensors.get('mlp.0.weight.exp_avg')).toEqual({
      dtype: 'F32',
      shape: [4, 2 * D + D + 1],
      values: [...o.m[0]],
    })
    expect(tensors.get('mlp.0.bias.exp_avg_sq')).toEqual({ dtype: 'F32', shape: [4], values: [...o.v[1]] })
    expect(tensors.get('mlp.2.weight.exp_avg')?.values).toEqual([...o.m[2]])
    expect(tensors.get('mlp.2.bias.step')).toEqual({ dtype: 'I64', shape: [], values: [9] })
    expect(tensors.get('emb.0.weight.sum')).toEqual({
      dtype: 'F32',
      shape: [5, D],
      values: [...o.accum!.slice(0, 5 * D)],
    })
    expect(tensors.get('emb.1.weight.sum')?.values).toEqual([...o.accum!.slice(5 * D, 12 * D)])
    expect(tensors.get('bag.0.weight.sum')).toEqual({
      dtype: 'F32',
      shape: [6, D],
      values: [...o.accum!.slice(12 * D)],
    })
    expect(tensors.size).toBe(4 * 3 + 3)
    const meta = JSON.parse(metadata.optimizer)
    expect(meta).toEqual(optimizerMeta(ck))
    expect(meta.step).toBe(9)
    expect(meta.embedding).toMatchObject({ optimizer: 'adagrad', lr: 0.05, eps: 1e-10 })
    expect(meta.dense).toMatchObject({
      optimizer: 'adam',
      lr: 1e-3,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weight_decay: 0,
    })
  })

  it('writes row-wise Adam moments and each row’s step per table, and AdamW with a low-rank cross layer', () => {
    const ck = checkpoint({
      embedding_optimizer: 'rowwise_adam',
      optimizer: 'adamw',
      weight_decay: 0.02,
      architecture: 'dcn',
      cross_layers: 1,
      cross_rank: 2,
    })
    const { tensors, metadata } = read(encodeOptimizerSafetensors(ck))
    const o = ck.state.opt
    const D = 3
    const C0 = 3 * D + 1
    expect(tensors.get('cross.0.v.weight.exp_avg')).toEqual({ dtype: 'F32', shape: [2, C0], values: [...o.m[0]] })
    expect(tensors.get('cross.0.u.weight.exp_avg_sq')?.shape).toEqual([C0, 2])
    expect(tensors.get('cross.0.u.bias.step')?.values).toEqual([9])
    expect(tensors.get('emb.1.weight.exp_avg')?.values).toEqual([...o.embM!.slice(5 * D, 12 * D)])
    expect(tensors.get('bag.0.weight.exp_avg_sq')?.values).toEqual([...o.embV!.slice(12 * D)])
    expect(tensors.get('bag.0.weight.step')).toEqual({ dtype: 'I64', shape: [6], values: [...o.rowStep!.slice(12)] })
    expect(tensors.has('emb.0.weight.sum')).toBe(false)
    expect(JSON.parse(metadata.optimizer).dense).toMatchObject({ optimizer: 'adamw', weight_decay: 0.02 })
    expect(JSON.parse(metadata.optimizer).embedding).toMatchObject({ optimizer: 'rowwise_adam', eps: 1e-8 })
  })
})
