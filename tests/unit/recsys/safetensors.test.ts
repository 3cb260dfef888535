/**
 * model.safetensors round trip: the file parsed back by a small reader written here from the
 * format's description (u64 LE header length, JSON header, raw little-endian data) holds every
 * weight of the checkpoint under the PyTorch snippet's state_dict names, with their shapes and
 * values; features.json describes the columns in input order. S = sparse, K = bags, D = dim.
 */
import { describe, expect, it } from 'vitest'
import type { Checkpoint } from '../../../src/models/recsys/checkpoint.ts'
import { initOptimizerState, initWeights } from '../../../src/models/recsys/init.ts'
import { denseTensors, inputWidth, modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { encodeSafetensors, featuresJson, torchName } from '../../../src/models/recsys/safetensors.ts'
import type { FeatureLayout } from '../../../src/models/recsys/types.ts'
import type { LoopState } from '../../../src/models/recsys/train-loop.ts'

interface Entry {
  dtype: string
  shape: number[]
  data_offsets: [number, number]
}

/** An independent safetensors reader: name → { shape, values }, and the metadata. */
function readSafetensors(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = Number(view.getBigUint64(0, true))
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, unknown>
  const base = 8 + n
  const tensors = new Map<string, { shape: number[]; values: Float32Array; begin: number; end: number }>()
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = e as Entry
    expect(dtype).toBe('F32')
    const values = new Float32Array((end - begin) / 4)
    for (let i = 0; i < values.length; i++) values[i] = view.getFloat32(base + begin + 4 * i, true)
    tensors.set(name, { shape, values, begin, end })
  }
  return { n, tensors, metadata: header.__metadata__ as Record<string, string> }
}

function layoutOf(withBags: boolean): FeatureLayout {
  const sparse = [
    { name: 'user', cardinality: 3, buckets: 5, tableOffset: 0, bytes: 0 },
    { name: 'item', cardinality: 4, buckets: 7, tableOffset: 5, bytes: 0 },
  ]
  const bags = withBags
    ? [{ name: 'history', cardinality: 9, buckets: 6, tableOffset: 12, bytes: 0, pooling: 'sum' as const }]
    : []
  return {
    label: 'y',
    sparse,
    dense: [
      { name: 'price', log1p: true, mean: 1.5, std: 2, indicator: true },
      { name: 'age', log1p: false, mean: 30, std: 9, indicator: false },
    ],
    lists: [{ name: 'vec', length: 3 }],
    ...(withBags ? { bags } : {}),
    totalRows: withBags ? 18 : 12,
    denseInputs: 2 + 1 + 3,
  }
}

function checkpointOf(raw: Record<string, unknown>, withBags = false): Checkpoint {
  const params = parseRecsysParams({ embedding_dim: 3, layers: [4, 2], ...raw })
  const layout = layoutOf(withBags)
  const shape = { ...modelShapeOf(layout, params), ...(withBags ? { bags: layout.bags!.length } : {}) }
  const weights = initWeights(shape, 7)
  // Distinct, non-trivial values everywhere (biases start at 0).
  for (const t of weights.dense) for (let i = 0; i < t.length; i++) t[i] = Math.fround(Math.sin(i * 1.7 + t.length))
  return {
    shape,
    params,
    layout,
    loop: { epoch: 0, step: 0, bestAuc: null, bestStep: 0 } as unknown as LoopState,
    state: { weights, opt: initOptimizerState(shape, params) },
  }
}

function roundTrip(ck: Checkpoint) {
  const bytes = encodeSafetensors(ck)
  const file = readSafetensors(bytes)
  expect((8 + file.n) % 8, 'data starts 8-byte aligned').toBe(0)
  // Offsets tile the data section exactly, in order.
  const spans = [...file.tensors.values()].sort((a, b) => a.begin - b.begin)
  spans.forEach((t, i) => expect(t.begin).toBe(i === 0 ? 0 : spans[i - 1].end))
  expect(8 + file.n + spans.at(-1)!.end).toBe(bytes.length)
  return file
}

describe('encodeSafetensors', () => {
  it('writes each table and MLP tensor under the snippet module names with its shape and values', () => {
    const ck = checkpointOf({})
    const { tensors, metadata } = roundTrip(ck)
    const D = ck.shape.dim
    const emb = ck.state.weights.embeddings
    expect(tensors.get('emb.0.weight')!.shape).toEqual([5, D])
    expect(tensors.get('emb.0.weight')!.values).toEqual(emb.slice(0, 5 * D))
    expect(tensors.get('emb.1.weight')!.shape).toEqual([7, D])
    expect(tensors.get('emb.1.weight')!.values).toEqual(emb.slice(5 * D, 12 * D))
    const C0 = 2 * D + 6
    const expected: [string, number[], number][] = [
      ['mlp.0.weight', [4, C0], 0],
      ['mlp.0.bias', [4], 1],
      ['mlp.2.weight', [2, 4], 2],
      ['mlp.2.bias', [2], 3],
      ['mlp.4.weight', [1, 2], 4],
      ['mlp.4.bias', [1], 5],
    ]
    for (const [name, shape, j] of expected) {
      expect(tensors.get(name)?.shape, name).toEqual(shape)
      expect(tensors.get(name)!.values, name).toEqual(ck.state.weights.dense[j])
    }
    expect(tensors.size).toBe(2 + expected.length)
    expect(metadata.format).toBe('pt')
    expect(JSON.parse(metadata.features)).toEqual(featuresJson(ck))
  })

  it('names cross layers as the snippet Cross modules: full rank one Linear, low rank V then U', () => {
    const full = checkpointOf({ architecture: 'dcn', cross_layers: 2, cross_rank: 0 })
    const C0 = inputWidth(full.shape)
    const t = roundTrip(full).tensors
    expect(t.get('cross.0.w.weight')!.shape).toEqual([C0, C0])
    expect(t.get('cross.1.w.bias')!.shape).toEqual([C0])
    const names = denseTensors(full.shape).map(d => d.name)
    expect(t.get('cross.1.w.weight')!.values).toEqual(full.state.weights.dense[names.indexOf('c1.w')])
    expect(t.get('cross.1.w.bias')!.values).toEqual(full.state.weights.dense[names.indexOf('c1.b')])
    expect(t.get('mlp.0.weight')!.values).toEqual(full.state.weights.dense[names.indexOf('w0')])

    const low = checkpointOf({ architecture: 'dcn', cross_layers: 1, cross_rank: 2 })
    const l = roundTrip(low).tensors
    const lowNames = denseTensors(low.shape).map(d => d.name)
    expect(l.get('cross.0.v.weight')!.shape).toEqual([2, C0])
    expect(l.get('cross.0.u.weight')!.shape).toEqual([C0, 2])
    expect(l.get('cross.0.u.bias')!.values).toEqual(low.state.weights.dense[lowNames.indexOf('c0.b')])
    expect(l.has('cross.0.w.weight')).toBe(false)
    expect(featuresJson(low).model).toMatchObject({ cross: { layers: 1, rank: 2 } })
    expect(() => torchName('z0', 0)).toThrow(/z0/)
  })

  it('writes bag tables after the sparse ones and lists the bag in features.json', () => {
    const ck = checkpointOf({ pooling: 'sum' }, true)
    const t = roundTrip(ck).tensors
    const D = ck.shape.dim
    expect(t.get('bag.0.weight')!.shape).toEqual([6, D])
    expect(t.get('bag.0.weight')!.values).toEqual(ck.state.weights.embeddings.slice(12 * D, 18 * D))
    const cols = featuresJson(ck).columns as Array<Record<string, unknown>>
    expect(cols.map(c => `${c.kind}:${c.name}`)).toEqual([
      'sparse:user',
      'sparse:item',
      'bag:history',
      'dense:price',
      'dense:age',
      'list:vec',
    ])
    expect(cols[2]).toMatchObject({
      pooling: 'sum',
      buckets: 6,
      table_offset: 12,
      input_offset: 2 * D,
      tensor: 'bag.0.weight',
    })
    expect(cols[3]).toMatchObject({ input_offset: 3 * D, input_width: 2, log1p: true, mean: 1.5, std: 2 })
    expect(cols[5]).toMatchObject({ input_offset: 3 * D + 3, input_width: 3 })
  })
})

describe('featuresJson', () => {
  it('states the hashing, the label and the model shape', () => {
    const ck = checkpointOf({})
    const f = featuresJson(ck) as Record<string, any>
    expect(f.label).toBe('y')
    expect(f.hashing.description).toBe('murmur3_x86_32 seed 0 of UTF-8 bytes / int64 LE bytes, mod buckets')
    expect(f.model).toMatchObject({ embedding_dim: 3, layers: [4, 2], input_width: 12, sparse: 2, bags: 0 })
    expect(f.model.cross).toEqual({ layers: 0, rank: 0 })
    expect(f.columns[0]).toMatchObject({ name: 'user', buckets: 5, table_offset: 0, tensor: 'emb.0.weight' })
  })
})
