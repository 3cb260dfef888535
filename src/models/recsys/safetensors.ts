/**
 * The recommender's weights as safetensors (`model.safetensors`) and its feature pipeline as
 * `features.json`, for PyTorch: the tensors are named after the state_dict of the module in the
 * "continue at scale" PyTorch job (src/continue/torch-module.ts TORCH_MODULE), so `load_state_dict` takes them
 * as they are. S = sparse features, K = bag features, D = embedding dim, Cd = dense inputs,
 * C0 = (S + K)·D + Cd, r = cross rank, OC/C = a layer's output/input width.
 * Tensors: `emb.{i}.weight` [buckets_i × D] and `bag.{k}.weight` [buckets_k × D] (each feature's
 * rows of the embedding stack); per cross layer k `cross.{k}.w.weight` [C0 × C0] and
 * `cross.{k}.w.bias` [C0] (full rank: one nn.Linear) or `cross.{k}.v.weight` [r × C0],
 * `cross.{k}.u.weight` [C0 × r], `cross.{k}.u.bias` [C0] (low rank: Linear V without bias, then U);
 * per MLP layer l `mlp.{2l}.weight` [OC × C] and `mlp.{2l}.bias` [OC] (nn.Sequential of Linear,
 * ReLU, …: the Linear layers sit at even indices).
 * File: u64 LE header length N, N bytes of JSON { name: { dtype, shape, data_offsets }, __metadata__ }
 * padded with spaces to a multiple of 8, then the raw little-endian data (offsets count from there).
 */
import type { Checkpoint } from './checkpoint.ts'
import { crossOf, denseTensors, inputWidth } from './layout.ts'

/** How values become buckets: src/util/hash.ts and src/data/decode-values.ts toHash, in words. */
export const HASHING = {
  algorithm: 'murmur3_x86_32',
  seed: 0,
  description: 'murmur3_x86_32 seed 0 of UTF-8 bytes / int64 LE bytes, mod buckets',
  strings: 'UTF-8 bytes',
  integers: 'the 8 little-endian bytes of the value as int64 (int32 and int64 columns hash alike)',
  booleans: 'as the integers 0 and 1',
  floats: 'an integer-valued float as that integer, any other as its 8 little-endian float64 bytes',
  binary: 'its bytes',
  bucket: 'unsigned 32-bit hash mod buckets, plus the table offset in the embedding stack',
} as const

/** One named tensor of the export: f32 values in row-major order. */
export interface ExportTensor {
  name: string
  shape: number[]
  data: Float32Array
}

/** The state_dict name of dense tensor `name` (c{k}.w/v/u/b, w{l}, b{l}; layout.ts) under cross rank `rank`. */
export function torchName(name: string, rank: number): string {
  const mlp = /^([wb])(\d+)$/.exec(name)
  if (mlp) return `mlp.${2 * Number(mlp[2])}.${mlp[1] === 'w' ? 'weight' : 'bias'}`
  const cross = /^c(\d+)\.([wvub])$/.exec(name)
  if (!cross) throw new RangeError(`safetensors: dense tensor '${name}' has no PyTorch name`)
  const [, k, part] = cross
  if (part === 'b') return `cross.${k}.${rank === 0 ? 'w' : 'u'}.bias`
  return `cross.${k}.${part}.weight`
}

/** The checkpoint's weights as PyTorch-named tensors (module comment), embeddings split per feature. */
export function exportTensors(ck: Checkpoint): ExportTensor[] {
  const { shape, layout } = ck
  const { weights } = ck.state
  const D = shape.dim
  const table = (name: string, f: { buckets: number; tableOffset: number }): ExportTensor => ({
    name,
    shape: [f.buckets, D],
    data: weights.embeddings.subarray(f.tableOffset * D, (f.tableOffset + f.buckets) * D),
  })
  const out = [
    ...layout.sparse.map((f, i) => table(`emb.${i}.weight`, f)),
    ...(layout.bags ?? []).map((f, k) => table(`bag.${k}.weight`, f)),
  ]
  const rank = crossOf(shape).rank
  denseTensors(shape).forEach((t, j) => {
    const bias = /^b\d+$|\.b$/.test(t.name)
    out.push({ name: torchName(t.name, rank), shape: bias ? [t.rows] : [t.rows, t.cols], data: weights.dense[j] })
  })
  return out
}

/** model.safetensors of `ck` (layout in the module comment); metadata holds features.json too. */
export function encodeSafetensors(ck: Checkpoint): Uint8Array<ArrayBuffer> {
  return writeSafetensors(exportTensors(ck), { features: JSON.stringify(featuresJson(ck)) })
}

/** One tensor of a safetensors file: F32 values, or I64 (counts: optimizer steps). */
export interface SafetensorsTensor {
  name: string
  shape: number[]
  data: Float32Array | BigInt64Array
}

/**
 * A safetensors file of `tensors` in order (module comment), `metadata` (string values) beside
 * format 'pt' and producer 'snaptrain' in __metadata__. The one writer of model.safetensors and
 * optimizer.safetensors (optimizer-safetensors.ts).
 */
export function writeSafetensors(
  tensors: readonly SafetensorsTensor[],
  metadata: Record<string, string>,
): Uint8Array<ArrayBuffer> {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
    throw new Error('safetensors export needs a little-endian platform')
  const header: Record<string, unknown> = { __metadata__: { format: 'pt', producer: 'snaptrain', ...metadata } }
  let offset = 0
  for (const t of tensors) {
    const dtype = t.data instanceof BigInt64Array ? 'I64' : 'F32'
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] }
    offset += t.data.byteLength
  }
  let json = JSON.stringify(header)
  const encoder = new TextEncoder()
  // Pad with spaces so the data starts 8-byte aligned (what the reference writer does).
  const n = encoder.encode(json).length
  json += ' '.repeat((8 - ((8 + n) % 8)) % 8)
  const head = encoder.encode(json)
  const bytes = new Uint8Array(8 + head.length + offset)
  const view = new DataView(bytes.buffer)
  view.setBigUint64(0, BigInt(head.length), true)
  bytes.set(head, 8)
  let at = 8 + head.length
  for (const t of tensors) {
    bytes.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at)
    at += t.data.byteLength
  }
  return bytes
}

/** features.json's text of `ck` (featuresJson, indented, one trailing newline): the file every export writes. */
export function featuresJsonText(ck: Checkpoint): string {
  return `${JSON.stringify(featuresJson(ck), null, 2)}\n`
}

/**
 * features.json of `ck`: everything needed to turn raw column values into the model's input x0
 * and to rebuild the module — the columns by kind in input order (sparse: buckets, table offset,
 * tensor; bags: the same and pooling; dense: signed log1p, mean, std, missing indicator; lists: length), the hashing, the
 * label, the model shape and the training parameters.
 */
export function featuresJson(ck: Checkpoint): Record<string, unknown> {
  const { shape, layout } = ck
  const D = shape.dim
  let at = 0
  const sparse = layout.sparse.map((f, i) => {
    const c = {
      name: f.name,
      kind: 'sparse',
      buckets: f.buckets,
      cardinality: f.cardinality,
      table_offset: f.tableOffset,
      tensor: `emb.${i}.weight`,
      input_offset: at,
      input_width: D,
    }
    at += D
    return c
  })
  const bags = (layout.bags ?? []).map((f, k) => {
    const c = {
      name: f.name,
      kind: 'bag',
      buckets: f.buckets,
      cardinality: f.cardinality,
      table_offset: f.tableOffset,
      pooling: f.pooling,
      tensor: `bag.${k}.weight`,
      input_offset: at,
      input_width: D,
    }
    at += D
    return c
  })
  const dense = layout.dense.map(f => {
    const c = {
      name: f.name,
      kind: 'dense',
      log1p: f.log1p,
      mean: f.mean,
      std: f.std,
      indicator: f.indicator,
      input_offset: at,
      input_width: f.indicator ? 2 : 1,
    }
    at += c.input_width
    return c
  })
  const lists = layout.lists.map(f => {
    const c = { name: f.name, kind: 'list', length: f.length, input_offset: at, input_width: f.length }
    at += f.length
    return c
  })
  return {
    format: 'snaptrain-recsys-features',
    version: 1,
    label: layout.label,
    hashing: HASHING,
    normalisation: {
      dense:
        "x' = (t(x) − mean) / std with t(x) = sign(x)·log1p(|x|) when log1p, else x; a null is 0, and with indicator a 0/1 input (1 = null) follows the value",
      list: 'the list elements as they are, a null element as 0',
    },
    input_order:
      'x0 = sparse embeddings (D each), bag embeddings (D each, pooled), dense values (+ indicator each), list elements',
    bags: "each item hashed as a scalar value; sum or mean of the items' embeddings; a null or empty list (and null items) add nothing",
    cross:
      'DCN-v2, stacked: x_{k+1} = x0 * (W_k x_k + b_k) + x_k for k < layers (W_k = U_k V_k when rank > 0); the MLP reads x_K',
    columns: [...sparse, ...bags, ...dense, ...lists],
    model: {
      embedding_dim: D,
      sparse: shape.sparse,
      bags: shape.bags ?? 0,
      cross: crossOf(shape),
      dense_inputs: shape.dense,
      input_width: inputWidth(shape),
      layers: [...shape.layers],
      activation: 'relu',
      output: 'one logit; prediction = sigmoid(logit)',
      total_rows: shape.totalRows,
    },
    params: ck.params,
  }
}
