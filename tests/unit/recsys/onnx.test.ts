/**
 * ONNX export (src/models/recsys/onnx.ts) run in onnxruntime-node against the reference model: a
 * layout with every feature kind (int64 ids beyond ±2^31 and negative, int32, strings with
 * non-ASCII, booleans, dense with nulls and log1p, a fixed-length list), decoded by the data
 * path's decodeColumn (so each Delta type is hashed as training hashes it), bags of int64 ids (mean)
 * and of strings (sum) with null and empty lists and null items, random weights, MLP and
 * DCN (full and low rank). Every row's prediction within 1e-5 of modelPredict on featurize().
 * N = rows, D = embedding dim.
 */
import { describe, expect, test } from 'vitest'
import * as ort from 'onnxruntime-node'
import { decodeColumn } from '../../../src/data/decode.ts'
import type { Batch, ColumnEncoding } from '../../../src/data/types.ts'
import type { Checkpoint } from '../../../src/models/recsys/checkpoint.ts'
import { classifyColumns, featurize, FeatureStats } from '../../../src/models/recsys/features.ts'
import { initOptimizerState } from '../../../src/models/recsys/init.ts'
import { denseTensors, modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { modelForward, modelPredict } from '../../../src/models/recsys/model-ref.ts'
import { encodeOnnx, type OnnxInput, onnxInputs } from '../../../src/models/recsys/onnx.ts'
import { DEFAULT_RECSYS_PARAMS } from '../../../src/models/recsys/params.ts'
import type { FeatureLayout, RecsysParams } from '../../../src/models/recsys/types.ts'
import type { StructField } from '../../../src/table/types.ts'
import { Rng } from '../../../src/util/rng.ts'

const N = 257
const field = (name: string, type: StructField['type']): StructField => ({ name, type, nullable: true, metadata: {} })
const FIELDS: StructField[] = [
  field('user_id', 'long'),
  field('city', 'string'),
  field('hour', 'integer'),
  field('is_new', 'boolean'),
  field('price', 'double'),
  field('score', 'float'),
  field('emb', { type: 'array', elementType: 'float', containsNull: true }),
  field('history', { type: 'array', elementType: 'long', containsNull: true }),
  field('tags', { type: 'array', elementType: 'string', containsNull: true }),
  field('label', 'integer'),
]
const CITIES = ['Berlin', 'München', '東京', 'São Paulo', '', 'Zürich 👍', 'a'.repeat(37), 'Kraków']
const EDGE_IDS = [
  2n ** 31n,
  2n ** 31n + 5n,
  2n ** 32n,
  2n ** 40n + 1n,
  -1n,
  -(2n ** 31n) - 1n,
  -(2n ** 63n),
  2n ** 63n - 1n,
  0n,
]

/** Raw column values as a Parquet reader delivers them (bigint ids, nulls), seeded. */
function rawColumns(seed: number): Record<string, ArrayLike<unknown>> {
  const rng = new Rng(seed)
  const pick = (k: number): number => Math.floor(rng.uniform(0, k))
  const ids = BigInt64Array.from({ length: N }, (_, i) =>
    i < EDGE_IDS.length ? EDGE_IDS[i] : BigInt(pick(2 ** 20)) * (pick(2) ? 4099n : -1n),
  )
  return {
    user_id: ids,
    city: Array.from({ length: N }, () => CITIES[pick(CITIES.length)]),
    hour: Int32Array.from({ length: N }, (_, i) => (i === 0 ? -(2 ** 31) : i === 1 ? 2 ** 31 - 1 : pick(48) - 24)),
    is_new: Array.from({ length: N }, () => rng.uniform(0, 1) < 0.3),
    price: Array.from({ length: N }, () => (rng.uniform(0, 1) < 0.2 ? null : rng.uniform(-5, 200))),
    score: Array.from({ length: N }, () => rng.normal()),
    emb: Array.from({ length: N }, () => [
      rng.normal(),
      rng.uniform(0, 1) < 0.2 ? null : rng.normal(),
      rng.uniform(0, 1),
    ]),
    // Bags: null lists, empty lists and null items (left out of the bag) among them.
    history: Array.from({ length: N }, (_, i) =>
      i % 17 === 3
        ? null
        : Array.from({ length: pick(5) }, (_, j) =>
            j === 2 && i % 3 === 0 ? null : EDGE_IDS[pick(EDGE_IDS.length)] + BigInt(pick(3)),
          ),
    ),
    tags: Array.from({ length: N }, (_, i) =>
      i % 11 === 0 ? [] : Array.from({ length: pick(4) }, () => CITIES[pick(CITIES.length)]),
    ),
    label: Int32Array.from({ length: N }, () => pick(2)),
  }
}

/** The batch the loader would deliver: each column decoded by the data path (hash32, float32, fixed_list). */
function decodeBatch(raw: Record<string, ArrayLike<unknown>>, spec: Record<string, ColumnEncoding>): Batch {
  const columns: Batch['columns'] = {}
  for (const [name, encoding] of Object.entries(spec))
    columns[name] = decodeColumn([{ rowStart: 0, data: raw[name] }], { start: 0, end: N }, encoding, {
      column: name,
      url: 'test.parquet',
    })
  return { size: N, position: 0, epoch: 0, columns }
}

/** ONNX feeds from the raw values: int32 ids widened to int64, nulls as NaN. */
function feeds(inputs: OnnxInput[], raw: Record<string, ArrayLike<unknown>>): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {}
  for (const i of inputs) {
    if (i.name.endsWith('.offsets')) continue
    if (inputs.some(j => j.name === `${i.name}.offsets`)) {
      // A bag: its non-null items flat, and N + 1 offsets.
      const lists = Array.from(raw[i.name] as (unknown[] | null)[], l => (l ?? []).filter(x => x !== null))
      const offsets = [0]
      for (const l of lists) offsets.push(offsets.at(-1)! + l.length)
      const items = lists.flat()
      out[i.name] =
        i.type === 'string'
          ? new ort.Tensor('string', items as string[], [items.length])
          : new ort.Tensor('int64', BigInt64Array.from(items as bigint[]), [items.length])
      out[`${i.name}.offsets`] = new ort.Tensor('int64', BigInt64Array.from(offsets, BigInt), [N + 1])
      continue
    }
    const v = raw[i.name]
    const dims = i.dims.map(d => (d === 'N' ? N : (d as number)))
    if (i.type === 'int64')
      out[i.name] = new ort.Tensor(
        'int64',
        v instanceof BigInt64Array ? v : BigInt64Array.from(v as ArrayLike<number>, BigInt),
        dims,
      )
    else if (i.type === 'bool')
      out[i.name] = new ort.Tensor(
        'bool',
        Uint8Array.from(v as boolean[], b => (b ? 1 : 0)),
        dims,
      )
    else if (i.type === 'string') out[i.name] = new ort.Tensor('string', [...(v as string[])], dims)
    else {
      const flat = (Array.from(v) as unknown[]).flat() as (number | null)[]
      out[i.name] = new ort.Tensor(
        'float32',
        Float32Array.from(flat, x => (x === null ? NaN : x)),
        dims,
      )
    }
  }
  return out
}

/** A checkpoint of `layout` with seeded weights large enough that a wrong bucket moves every prediction. */
function checkpoint(layout: FeatureLayout, p: Partial<RecsysParams>, seed: number): Checkpoint {
  const params = { ...DEFAULT_RECSYS_PARAMS, embedding_dim: 4, layers: [8, 4], ...p } as RecsysParams
  const shape = modelShapeOf(layout, params)
  const rng = new Rng(seed)
  const fill = (n: number, s: number): Float32Array<ArrayBuffer> =>
    Float32Array.from({ length: n }, () => rng.uniform(-s, s))
  const weights = {
    embeddings: fill(shape.totalRows * shape.dim, 1),
    // Weights ~ 1/√fan-in (full-rank cross weights smaller), biases in [0.1, 0.5): no dead layer.
    dense: denseTensors(shape).map(t =>
      t.cols === 1
        ? Float32Array.from({ length: t.length }, () => rng.uniform(0.1, 0.5))
        : fill(t.length, 1 / Math.sqrt(t.rows === t.cols ? 4 * t.cols : t.cols)),
    ),
  }
  return {
    shape,
    params,
    layout,
    loop: { epoch: 0, step: 0, bestAuc: null, bestStep: 0, badRounds: 0 },
    state: { weights, opt: initOptimizerState(shape, params) },
  }
}

async function onnxScores(
  ck: Checkpoint,
  raw: Record<string, ArrayLike<unknown>>,
): Promise<{ logit: Float32Array; prediction: Float32Array }> {
  const session = await ort.InferenceSession.create(encodeOnnx(ck))
  const out = await session.run(feeds(onnxInputs(ck.layout), raw))
  await session.release()
  return { logit: out.logit.data as Float32Array, prediction: out.prediction.data as Float32Array }
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]))
  return d
}

const kinds = classifyColumns(FIELDS, 'label')
const raw = rawColumns(17)
const batch = decodeBatch(raw, kinds.spec)
const stats = new FeatureStats(kinds, new Set(['price']))
stats.observe(batch)
// Small bucket counts, so the modulus decides rows (an unreduced hash would index out of range).
const layout = stats.finish({
  embedding_dim: 4,
  buckets: { user_id: 61, city: 5, hour: 7, is_new: 2, history: 13, tags: 6 },
  pooling: { history: 'mean', tags: 'sum' },
})

describe('encodeOnnx in onnxruntime-node', () => {
  test('the layout has every feature kind, types recorded', () => {
    expect(layout.sparse.map(f => [f.name, f.type])).toEqual([
      ['user_id', 'long'],
      ['city', 'string'],
      ['hour', 'integer'],
      ['is_new', 'boolean'],
    ])
    expect(layout.dense.map(f => [f.name, f.log1p, f.indicator])).toEqual([
      ['price', true, true],
      ['score', false, false],
    ])
    expect(layout.lists).toEqual([{ name: 'emb', length: 3 }])
    expect(layout.bags?.map(f => [f.name, f.type, f.pooling])).toEqual([
      ['history', 'long', 'mean'],
      ['tags', 'string', 'sum'],
    ])
  })

  for (const [what, p] of [
    ['MLP 8-4', {}],
    ['DCN full rank, 2 cross layers', { architecture: 'dcn', cross_layers: 2, cross_rank: 0 }],
    ['DCN rank 3, 1 cross layer, MLP 6', { architecture: 'dcn', cross_layers: 1, cross_rank: 3, layers: [6] }],
  ] as [string, Partial<RecsysParams>][]) {
    test(`${what}: every row's prediction within 1e-5 of modelPredict on featurize()`, async () => {
      const ck = checkpoint(layout, p, 6)
      const a = modelForward(ck.shape, ck.state.weights, featurize(layout, batch))
      const reference = a.probs
      const { logit, prediction } = await onnxScores(ck, raw)
      const d = maxDiff(prediction, reference)
      const dz = maxDiff(logit, a.act.at(-1)!)
      console.log(
        `onnx ${what}: max |Δ prediction| = ${d.toExponential(2)}, |Δ logit| = ${dz.toExponential(2)} over ${N} rows`,
      )
      expect(d).toBeLessThanOrEqual(1e-5)
      expect(dz).toBeLessThanOrEqual(1e-4)
      expect(
        maxDiff(
          prediction,
          Float32Array.from(logit, z => 1 / (1 + Math.exp(-z))),
        ),
      ).toBeLessThan(1e-6)
      // Scores that tell rows apart: a hash or bucket mismatch would move them far beyond 1e-5.
      expect(new Set(a.act.at(-1)).size).toBeGreaterThan(N / 2)
    })
  }

  test('every value lands in the data path bucket: logit = embedding row index, 100003 buckets', async () => {
    const R = 100_003
    for (const f of layout.sparse) {
      const one: FeatureLayout = { ...layout, sparse: [{ ...f, buckets: R, tableOffset: 0 }], dense: [], lists: [] }
      Object.assign(one, { bags: [], totalRows: R, denseInputs: 0 })
      const ck = checkpoint(one, { embedding_dim: 1, layers: [] }, 1)
      ck.state.weights.embeddings = Float32Array.from({ length: R }, (_, r) => r)
      ck.state.weights.dense = [Float32Array.of(1), Float32Array.of(0)]
      const rows = featurize(one, batch).rows
      const { logit } = await onnxScores(ck, raw)
      expect(Array.from(logit), f.name).toEqual(Array.from(rows))
      expect(new Set(rows).size, f.name).toBeGreaterThan(1)
    }
    for (const f of layout.bags ?? []) {
      // Summed bag: logit = Σ its items' rows (exact in f32 below 2^24).
      const one: FeatureLayout = { ...layout, sparse: [], dense: [], lists: [] }
      Object.assign(one, { bags: [{ ...f, buckets: R, tableOffset: 0, pooling: 'sum' }], totalRows: R, denseInputs: 0 })
      const ck = checkpoint(one, { embedding_dim: 1, layers: [] }, 1)
      ck.state.weights.embeddings = Float32Array.from({ length: R }, (_, r) => r)
      ck.state.weights.dense = [Float32Array.of(1), Float32Array.of(0)]
      const { bagRows, bagOffsets } = featurize(one, batch)
      const sums = Array.from({ length: N }, (_, b) =>
        bagRows!.subarray(bagOffsets![b], bagOffsets![b + 1]).reduce((x, y) => x + y, 0),
      )
      const { logit } = await onnxScores(ck, raw)
      expect(Array.from(logit), f.name).toEqual(sums)
    }
  })

  test('a mismatching hash is caught: ids hashed as int32 words instead of int64 give other scores', async () => {
    const ck = checkpoint(layout, {}, 5)
    const wrong = { ...raw, user_id: BigInt64Array.from(raw.user_id as BigInt64Array, v => BigInt.asIntN(32, v)) }
    const { prediction } = await onnxScores(ck, wrong)
    const reference = modelPredict(ck.shape, ck.state.weights, featurize(layout, batch))
    expect(maxDiff(prediction, reference)).toBeGreaterThan(1e-3)
  })

  test('inputs: one per column with its type; a layout without recorded types is refused naming the column', () => {
    expect(onnxInputs(layout).map(i => `${i.name}:${i.type}[${i.dims}]`)).toEqual([
      'user_id:int64[N]',
      'city:string[N]',
      'hour:int64[N]',
      'is_new:bool[N]',
      'history:int64[history.M]',
      'history.offsets:int64[N+1]',
      'tags:string[tags.M]',
      'tags.offsets:int64[N+1]',
      'price:float32[N]',
      'score:float32[N]',
      'emb:float32[N,3]',
    ])
    const old = { ...layout, sparse: layout.sparse.map(({ type: _t, ...f }) => f) }
    expect(() => encodeOnnx(checkpoint(old, {}, 1))).toThrow(/column 'user_id'.*value type/)
    const clash = { ...layout, dense: [{ ...layout.dense[0], name: 'prediction' }, layout.dense[1]] }
    expect(() => onnxInputs(clash)).toThrow(RangeError)
  })
})
