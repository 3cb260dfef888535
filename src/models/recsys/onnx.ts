/**
 * ONNX export of a recommender checkpoint: one graph for the whole scoring path from raw feature
 * values to the click probability, computing what featurize() (features.ts) and modelForward
 * (model-ref.ts) compute:
 * - inputs, one per feature column, named after it, batch dim 'N': int64 [N] for integer columns
 *   (byte, short, integer, long), bool [N], string [N] (strings; binary as byte strings),
 *   float32 [N] for dense columns (NaN = null), float32 [N, L] for fixed-length lists; a bag
 *   column `c` takes `c` (its non-null items, flat, 1-D [M]) and `c.offsets` (int64 [N + 1],
 *   offsets[0] = 0, row b's items are c[offsets[b] … offsets[b+1]), a null list is empty), like
 *   torch.nn.EmbeddingBag(input, offsets) with the last offset included;
 * - the training hash (src/util/hash.ts, MurmurHash3 x86_32, seed 0): integers and booleans over
 *   their 8 little-endian int64 bytes, written in standard int64 arithmetic ops (onnxruntime's
 *   hash op takes 32-bit keys only); strings over their UTF-8 bytes with onnxruntime's contrib op
 *   `com.microsoft.MurmurHash3` (seed 0, positive 1), which the standard opset has no
 *   equivalent of: the graph runs in onnxruntime, not in every ONNX runtime;
 * - bucket = hash mod buckets + the table's offset, a Gather from the embedding stack, bag
 *   pooling (sum or mean over each row's items; an empty bag gives zeros), dense normalisation
 *   (signed log1p where set, then (x − mean) / std, null → 0 and a missing indicator), lists with
 *   NaN → 0, the concatenation in the model's order, the cross layers (DCN-v2) and the MLP;
 * - outputs `logit` and `prediction` = σ(logit), float32 [N].
 * Legend: N = batch rows, S = sparse features, K = bag features, M = items of one bag column in the
 * batch, D = embedding dim, R = embedding rows, Cv = dense value columns, C0 = MLP input width.
 */
import type { Checkpoint } from './checkpoint.ts'
import { crossOf, denseTensors, mlpTensorOffset } from './layout.ts'
import {
  type AttrValue,
  DataType,
  type DataTypeCode,
  graphProto,
  type Message,
  modelProto,
  nodeProto,
  tensorProto,
  valueInfoProto,
} from './onnx-proto.ts'
import type { FeatureLayout, HashedType, ModelShape } from './types.ts'

/** File name of the export beside model.bin. */
export const ONNX_FILE = 'model.onnx'
/** ai.onnx opset (BitwiseAnd/Or/Xor need 18) and the IR version that goes with it. */
const OPSET = 18
const IR_VERSION = 8

/** One graph input: its name, element type and shape (symbolic: 'N' rows, 'N+1', '<bag>.M' a bag's items). */
export interface OnnxInput {
  name: string
  type: 'int64' | 'bool' | 'string' | 'float32'
  dims: (number | string)[]
}

/** The graph's inputs for `layout`, in graph order (sparse, bags, dense, lists). Throws like encodeOnnx. */
export function onnxInputs(layout: FeatureLayout): OnnxInput[] {
  const out: OnnxInput[] = []
  for (const f of layout.sparse) out.push({ name: f.name, type: hashedInput(f.name, f.type), dims: ['N'] })
  for (const f of layout.bags ?? []) {
    out.push({ name: f.name, type: hashedInput(f.name, f.type), dims: [`${f.name}.M`] })
    out.push({ name: `${f.name}.offsets`, type: 'int64', dims: ['N+1'] })
  }
  for (const f of layout.dense) out.push({ name: f.name, type: 'float32', dims: ['N'] })
  for (const f of layout.lists) out.push({ name: f.name, type: 'float32', dims: ['N', f.length] })
  const seen = new Set<string>(['logit', 'prediction'])
  for (const i of out) {
    if (seen.has(i.name))
      throw new RangeError(`ONNX export: input name '${i.name}' is taken (an output or another input)`)
    seen.add(i.name)
  }
  return out
}

/** Metadata stored in the model file: the label, the model shape and the feature layout as JSON. */
export function onnxMetadata(ck: Pick<Checkpoint, 'shape' | 'layout'>): Record<string, string> {
  return { label: ck.layout.label, shape: JSON.stringify(ck.shape), layout: JSON.stringify(ck.layout) }
}

/**
 * The ONNX ModelProto (opset 18 + com.microsoft 1, IR 8) of `ck`'s final weights (ck.state).
 * Throws RangeError naming a sparse or bag column whose value type the checkpoint does not record
 * (layouts written before types were stored), or an input name that collides.
 */
export function encodeOnnx(ck: Checkpoint): Uint8Array<ArrayBuffer> {
  const { shape, layout } = ck
  const inputs = onnxInputs(layout)
  const g = new Graph(new Set(inputs.map(i => i.name)))
  const parts: string[] = []
  if (layout.sparse.length) parts.push(sparseEmbeddings(g, ck))
  for (const [k, f] of (layout.bags ?? []).entries()) parts.push(bagEmbedding(g, ck, k, f.name))
  if (layout.dense.length) parts.push(denseInputs(g, layout))
  for (const f of layout.lists) parts.push(g.op('Where', [g.op('IsNaN', [f.name]), g.f32([0], []), f.name]))
  const x0 = parts.length > 1 ? g.op('Concat', parts, { axis: 1 }) : parts[0]
  const logit = network(g, shape, ck.state.weights.dense, x0)
  g.node('Squeeze', [logit, g.i64([1], [1])], 'logit')
  const bytes = g.initializers.reduce((s, t) => s + t.length, 0)
  if (bytes >= 2 ** 31)
    throw new RangeError(`ONNX export: the weights take ${bytes} bytes, over protobuf's 2 GiB limit of one model file`)
  g.node('Sigmoid', ['logit'], 'prediction')
  const graph = graphProto({
    name: 'snaptrain_recsys',
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: inputs.map(i => valueInfoProto(i.name, ELEM[i.type], i.dims)),
    outputs: ['logit', 'prediction'].map(o => valueInfoProto(o, DataType.FLOAT, ['N'])),
    doc: `click probability of the label '${layout.label}' from raw feature values`,
  })
  return modelProto({
    irVersion: IR_VERSION,
    opsets: { '': OPSET, 'com.microsoft': 1 },
    producer: 'snaptrain',
    doc: 'snaptrain recommender; strings hash with onnxruntime contrib op com.microsoft.MurmurHash3',
    graph,
    metadata: onnxMetadata(ck),
  }).finish()
}

const ELEM: Record<OnnxInput['type'], DataTypeCode> = {
  int64: DataType.INT64,
  bool: DataType.BOOL,
  string: DataType.STRING,
  float32: DataType.FLOAT,
}

function hashedInput(name: string, type: HashedType | undefined): OnnxInput['type'] {
  if (type === undefined)
    throw new RangeError(
      `ONNX export: column '${name}': the checkpoint does not record its value type (trained before types were stored); retrain to export it`,
    )
  return type === 'string' || type === 'binary' ? 'string' : type === 'boolean' ? 'bool' : 'int64'
}

/** Nodes and initializers under construction, with fresh value names that avoid the inputs'. */
class Graph {
  readonly nodes: Message[] = []
  readonly initializers: Message[] = []
  private next = 0
  private readonly consts = new Map<string, string>()

  constructor(private readonly taken: Set<string>) {}

  private fresh(hint: string): string {
    let name: string
    do name = `${hint}_${this.next++}`
    while (this.taken.has(name))
    return name
  }

  /** A node writing the value `out`. */
  node(op: string, inputs: string[], out: string, attrs?: Record<string, AttrValue>, domain?: string): string {
    this.nodes.push(nodeProto({ op, inputs, outputs: [out], name: out, attrs, domain }))
    return out
  }

  /** A node writing a fresh value; returns its name. */
  op(op: string, inputs: string[], attrs?: Record<string, AttrValue>, domain?: string): string {
    return this.node(op, inputs, this.fresh(op), attrs, domain)
  }

  /** A float32 initializer (named `name`, or a shared constant). */
  f32(values: ArrayLike<number>, dims: number[], name?: string): string {
    const a = values instanceof Float32Array ? values : Float32Array.from(values)
    return this.init(name, DataType.FLOAT, dims, new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
  }

  /** An int64 initializer (a shared constant). */
  i64(values: readonly number[], dims: number[]): string {
    const a = BigInt64Array.from(values, v => BigInt(v))
    return this.init(undefined, DataType.INT64, dims, new Uint8Array(a.buffer))
  }

  /** A bool initializer (a shared constant). */
  bool(values: readonly boolean[], dims: number[]): string {
    return this.init(
      undefined,
      DataType.BOOL,
      dims,
      Uint8Array.from(values, v => (v ? 1 : 0)),
    )
  }

  /** A named initializer is stored once (the embedding stack serves every lookup); small constants are shared. */
  private init(name: string | undefined, type: DataTypeCode, dims: number[], raw: Uint8Array): string {
    const key = name !== undefined ? `name:${name}` : raw.length <= 4096 ? `${type}:${dims}:${raw}` : undefined
    const known = key && this.consts.get(key)
    if (known) return known
    const n = name !== undefined && !this.taken.has(name) ? name : this.fresh(name ?? 'const')
    this.taken.add(n)
    this.initializers.push(tensorProto(n, type, dims, raw))
    if (key) this.consts.set(key, n)
    return n
  }
}

// ---- MurmurHash3 x86_32 of int64 values in int64 arithmetic: every value stays in [0, 2^32) and
// every product below 2^53, so nothing overflows; shifts are multiplies / divisions by 2^r.
const MASK = 0xffffffff

function and(g: Graph, x: string, m: number): string {
  return g.op('BitwiseAnd', [x, g.i64([m], [])])
}

/** (a · c) mod 2^32 for a in [0, 2^32), c a 32-bit constant: c split in 16-bit halves. */
function imul(g: Graph, a: string, c: number): string {
  const lo = g.op('Mul', [a, g.i64([c & 0xffff], [])])
  const hi = and(g, g.op('Mul', [a, g.i64([c >>> 16], [])]), 0xffff)
  return and(g, g.op('Add', [lo, g.op('Mul', [hi, g.i64([0x10000], [])])]), MASK)
}

function rotl(g: Graph, x: string, r: number): string {
  const left = and(g, g.op('Mul', [x, g.i64([2 ** r], [])]), MASK)
  return g.op('BitwiseOr', [left, shr(g, x, 32 - r)])
}

function shr(g: Graph, x: string, r: number): string {
  return g.op('Div', [x, g.i64([2 ** r], [])])
}

function xorShr(g: Graph, h: string, r: number): string {
  return g.op('BitwiseXor', [h, shr(g, h, r)])
}

/** hash.ts mixBlock: h (undefined = seed 0) mixed with the 4-byte block k. */
function mixBlock(g: Graph, h: string | undefined, k: string): string {
  k = imul(g, rotl(g, imul(g, k, 0xcc9e2d51), 15), 0x1b873593)
  h = rotl(g, h === undefined ? k : g.op('BitwiseXor', [h, k]), 13)
  return and(g, g.op('Add', [g.op('Mul', [h, g.i64([5], [])]), g.i64([0xe6546b64], [])]), MASK)
}

/** hash.ts hashInt64Words elementwise: int64 in → hash in [0, 2^32) as int64, same shape. */
function hashInt64(g: Graph, x: string): string {
  const lo = and(g, x, MASK)
  // (x − lo) / 2^32 is exact (a multiple of 2^32), so it is the arithmetic shift.
  const hi = and(g, g.op('Div', [g.op('Sub', [x, lo]), g.i64([2 ** 32], [])]), MASK)
  let h = g.op('BitwiseXor', [mixBlock(g, mixBlock(g, undefined, lo), hi), g.i64([8], [])])
  h = imul(g, xorShr(g, h, 16), 0x85ebca6b)
  h = imul(g, xorShr(g, h, 13), 0xc2b2ae35)
  return xorShr(g, h, 16)
}

/** The training hash of `x` (any shape) as int64 in [0, 2^32): bool/int64 as int64 bytes, strings by bytes. */
function hashValues(g: Graph, x: string, type: OnnxInput['type']): string {
  if (type === 'string')
    return g.op('Cast', [g.op('MurmurHash3', [x], { seed: 0, positive: 1 }, 'com.microsoft')], { to: DataType.INT64 })
  return hashInt64(g, type === 'bool' ? g.op('Cast', [x], { to: DataType.INT64 }) : x)
}

/** [N, S·D]: every sparse column hashed, bucketed and looked up, in layout order. */
function sparseEmbeddings(g: Graph, ck: Checkpoint): string {
  const { sparse } = ck.layout
  const S = sparse.length,
    D = ck.shape.dim
  const groups: Record<'int64' | 'string', number[]> = { int64: [], string: [] }
  sparse.forEach((f, s) => groups[hashedInput(f.name, f.type) === 'string' ? 'string' : 'int64'].push(s))
  const hashes: string[] = []
  const order: number[] = []
  for (const kind of ['int64', 'string'] as const) {
    const cols = groups[kind]
    if (!cols.length) continue
    const columns = cols.map(s => {
      const f = sparse[s]
      const x = hashedInput(f.name, f.type) === 'bool' ? g.op('Cast', [f.name], { to: DataType.INT64 }) : f.name
      return g.op('Unsqueeze', [x, g.i64([1], [1])])
    })
    hashes.push(hashValues(g, columns.length > 1 ? g.op('Concat', columns, { axis: 1 }) : columns[0], kind))
    order.push(...cols)
  }
  let h = hashes.length > 1 ? g.op('Concat', hashes, { axis: 1 }) : hashes[0]
  if (order.some((s, j) => s !== j))
    h = g.op(
      'Gather',
      [
        h,
        g.i64(
          sparse.map((_, s) => order.indexOf(s)),
          [S],
        ),
      ],
      { axis: 1 },
    )
  const bucket = g.op(
    'Mod',
    [
      h,
      g.i64(
        sparse.map(f => f.buckets),
        [S],
      ),
    ],
    { fmod: 0 },
  )
  const rows = g.op('Add', [
    bucket,
    g.i64(
      sparse.map(f => f.tableOffset),
      [S],
    ),
  ])
  const table = g.f32(ck.state.weights.embeddings, [ck.shape.totalRows, D], 'embeddings')
  return g.op('Reshape', [g.op('Gather', [table, rows]), g.i64([0, S * D], [2])])
}

/**
 * [N, D]: bag k's item embeddings pooled per row. Row b's items are offsets[b] … offsets[b+1]; each
 * item's row index comes from counting the row starts at or before it (scatter-add + cumulative
 * sum), then the embeddings are scatter-added into their rows (empty rows stay zero).
 */
function bagEmbedding(g: Graph, ck: Checkpoint, k: number, name: string): string {
  const f = ck.layout.bags![k],
    D = ck.shape.dim
  const offsets = `${name}.offsets`
  const h = hashValues(g, name, hashedInput(f.name, f.type))
  const rows = g.op('Add', [g.op('Mod', [h, g.i64([f.buckets], [])], { fmod: 0 }), g.i64([f.tableOffset], [])])
  const table = g.f32(ck.state.weights.embeddings, [ck.shape.totalRows, D], 'embeddings')
  const items = g.op('Gather', [table, rows]) // [M, D]
  const m = g.op('Shape', [name]) // [1] = M
  const n1 = g.op('Shape', [offsets]) // [1] = N + 1
  const n = g.op('Sub', [n1, g.i64([1], [1])])
  // starts of rows 1 … N−1 (and N: offsets[N] = M lands past the items) marked at their item.
  const starts = g.op('Slice', [offsets, g.i64([1], [1]), n1])
  const zerosM1 = g.op('ConstantOfShape', [g.op('Add', [m, g.i64([1], [1])])], { value: int64Tensor(0) })
  const ones = g.op('ConstantOfShape', [n], { value: int64Tensor(1) })
  const marks = g.op('ScatterElements', [zerosM1, starts, ones], { axis: 0, reduction: 'add' })
  const segment = g.op('Slice', [g.op('CumSum', [marks, g.i64([0], [])]), g.i64([0], [1]), m]) // [M] row of each item
  const index = g.op('Expand', [
    g.op('Unsqueeze', [segment, g.i64([1], [1])]),
    g.op('Concat', [m, g.i64([D], [1])], { axis: 0 }),
  ])
  const zeros = g.op('ConstantOfShape', [g.op('Concat', [n, g.i64([D], [1])], { axis: 0 })], { value: floatTensor(0) })
  const sum = g.op('ScatterElements', [zeros, index, items], { axis: 0, reduction: 'add' })
  if (f.pooling === 'sum') return sum
  const lo = g.op('Slice', [offsets, g.i64([0], [1]), n])
  const count = g.op('Cast', [g.op('Sub', [starts, lo])], { to: DataType.FLOAT })
  const denom = g.op('Max', [g.op('Unsqueeze', [count, g.i64([1], [1])]), g.f32([1], [])])
  return g.op('Div', [sum, denom])
}

function int64Tensor(v: number): { tensor: Message } {
  return { tensor: tensorProto('value', DataType.INT64, [1], new Uint8Array(BigInt64Array.of(BigInt(v)).buffer)) }
}

function floatTensor(v: number): { tensor: Message } {
  return { tensor: tensorProto('value', DataType.FLOAT, [1], new Uint8Array(Float32Array.of(v).buffer)) }
}

/** [N, Cd − list elements]: per dense column its normalised value, then its missing indicator if it has one. */
function denseInputs(g: Graph, layout: FeatureLayout): string {
  const { dense } = layout
  const Cv = dense.length
  const columns = dense.map(f => g.op('Unsqueeze', [f.name, g.i64([1], [1])]))
  const x = Cv > 1 ? g.op('Concat', columns, { axis: 1 }) : columns[0]
  const missing = g.op('IsNaN', [x])
  let t = x
  if (dense.some(f => f.log1p)) {
    // sign(x)·log(1 + |x|), only in the columns with log1p set.
    const log = g.op('Mul', [g.op('Sign', [x]), g.op('Log', [g.op('Add', [g.op('Abs', [x]), g.f32([1], [])])])])
    t = g.op('Where', [
      g.bool(
        dense.map(f => f.log1p),
        [Cv],
      ),
      log,
      x,
    ])
  }
  const norm = g.op('Div', [
    g.op('Sub', [
      t,
      g.f32(
        dense.map(f => f.mean),
        [Cv],
      ),
    ]),
    g.f32(
      dense.map(f => f.std),
      [Cv],
    ),
  ])
  const value = g.op('Where', [missing, g.f32([0], []), norm])
  if (!dense.some(f => f.indicator)) return value
  // [values | indicators] → per column value (j), then indicator (Cv + j) where present.
  const both = g.op('Concat', [value, g.op('Cast', [missing], { to: DataType.FLOAT })], { axis: 1 })
  const pick = dense.flatMap((f, j) => (f.indicator ? [j, Cv + j] : [j]))
  return g.op('Gather', [both, g.i64(pick, [pick.length])], { axis: 1 })
}

/** The cross layers then the MLP over x0 [N, C0]; returns the [N, 1] logits. */
function network(g: Graph, shape: ModelShape, weights: Float32Array[], x0: string): string {
  const tensors = denseTensors(shape)
  const w = (name: string): string => {
    const i = tensors.findIndex(t => t.name === name)
    const t = tensors[i]
    if (i < 0 || weights[i]?.length !== t.length)
      throw new RangeError(`ONNX export: weights: tensor ${name} is missing or has the wrong length`)
    return g.f32(weights[i], /^(b\d+|c\d+\.b)$/.test(name) ? [t.rows] : [t.rows, t.cols], name) // biases 1-D
  }
  const { layers: K, rank } = crossOf(shape)
  let x = x0
  for (let k = 0; k < K; k++) {
    // x_{k+1} = x0 ⊙ (W_k x_k + b_k) + x_k, W_k = c{k}.w or c{k}.u · c{k}.v.
    const lin =
      rank === 0
        ? g.op('Gemm', [x, w(`c${k}.w`), w(`c${k}.b`)], { transB: 1 })
        : g.op('Gemm', [g.op('Gemm', [x, w(`c${k}.v`)], { transB: 1 }), w(`c${k}.u`), w(`c${k}.b`)], { transB: 1 })
    x = g.op('Add', [g.op('Mul', [x0, lin]), x])
  }
  const L = (tensors.length - mlpTensorOffset(shape)) / 2 - 1
  for (let l = 0; l <= L; l++) {
    x = g.op('Gemm', [x, w(`w${l}`), w(`b${l}`)], { transB: 1 })
    if (l < L) x = g.op('Relu', [x])
  }
  return x
}
