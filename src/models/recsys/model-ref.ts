/**
 * The plain-TS reference of the whole recommender (llm.c's train_gpt2.c role): composes the
 * kernels' .ref.ts functions in the order the GPU model dispatches them, so both agree up to
 * the GPU's rounding. B = batch, S = sparse features, K = bag features (M items), D = embedding
 * dim, Cd = dense inputs, C0 = (S + K)·D + Cd, P = B·S + M lookup positions, H_l = width of hidden layer l, U = distinct embedding rows in the batch,
 * Kc = cross layers, r = cross rank.
 * forward: embedding_forward [→ embedding_bag_forward → concat] → concat → [matmul_forward (×2 low-rank) → cross_forward]×Kc
 *   → [matmul_forward → bias_relu_forward]×L → matmul + bias → bce
 */
import { bceLossBackward } from '../../kernels/recsys/bce_loss_backward.ref.ts'
import { bceLossForward } from '../../kernels/recsys/bce_loss_forward.ref.ts'
import { biasReluBackward } from '../../kernels/recsys/bias_relu_backward.ref.ts'
import { biasReluForward } from '../../kernels/recsys/bias_relu_forward.ref.ts'
import { concatBackward } from '../../kernels/recsys/concat_backward.ref.ts'
import { concatForward } from '../../kernels/recsys/concat_forward.ref.ts'
import { crossBackward } from '../../kernels/recsys/cross_backward.ref.ts'
import { crossForward } from '../../kernels/recsys/cross_forward.ref.ts'
import { embeddingBackward } from '../../kernels/recsys/embedding_backward.ref.ts'
import { embeddingBagBackward } from '../../kernels/recsys/embedding_bag_backward.ref.ts'
import { embeddingBagForward } from '../../kernels/recsys/embedding_bag_forward.ref.ts'
import { embeddingForward } from '../../kernels/recsys/embedding_forward.ref.ts'
import { matmulBackwardDinp } from '../../kernels/recsys/matmul_backward_dinp.ref.ts'
import { matmulBackwardDweight } from '../../kernels/recsys/matmul_backward_dweight.ref.ts'
import { matmulForward } from '../../kernels/recsys/matmul_forward.ref.ts'
import { reduceSum } from '../../kernels/recsys/reduce_sum.ref.ts'
import { bagCount, bagItems, lookupRows, poolingCodes } from './bags.ts'
import { crossOf, denseTensors, inputWidth, layerDims, mlpTensorOffset } from './layout.ts'
import { embeddingSegments, type EmbeddingSegments } from './segments.ts'
import type { ModelBatch, ModelShape, ModelWeights } from './types.ts'

/** Workgroup width of the GPU's loss reduction; the reference sums in the same tree order. */
export const LOSS_REDUCE_WG = 256

/** Forward activations kept for the backward pass. */
export interface Activations {
  n: number
  /** f32 [B × C0] concatenated input x0 (the MLP's input without a cross network). */
  inp: Float32Array
  /** Cross layer k: x_{k+1} f32 [B × C0] (x_Kc is the MLP's input), z_k = W_k x_k [B × C0], t_k = V_k x_k [B × r] (low rank). */
  cross: { x: Float32Array[]; z: Float32Array[]; t: Float32Array[] }
  /** Per layer l (hidden then output): matmul output [B × OC] and bias(+ReLU) output [B × OC]. */
  pre: Float32Array[]
  act: Float32Array[]
  /** f32 [B] per-row BCE loss and σ(logit). */
  loss: Float32Array
  probs: Float32Array
}

/** Gradients of the mean batch loss. */
export interface Gradients {
  /** Batch lookups grouped by row (uniq rows, segments). */
  segments: EmbeddingSegments
  /** f32 [U × D], gradient of row segments.uniq[u]. */
  dRows: Float32Array<ArrayBuffer>
  /** Per dense tensor in layout order (w0, b0, …). */
  dense: Float32Array<ArrayBuffer>[]
}

/** Runs the forward pass of `batch` (labels used for the loss). */
export function modelForward(shape: ModelShape, w: ModelWeights, batch: ModelBatch): Activations {
  const { n } = batch
  const e = shape.sparse * shape.dim
  const emb = new Float32Array(n * e)
  embeddingForward(w.embeddings, batch.rows, emb, {
    positions: n * shape.sparse,
    dim: shape.dim,
    totalRows: shape.totalRows,
  })
  const inp = new Float32Array(n * inputWidth(shape))
  const lookups = withPooledBags(shape, w, batch, emb) // [B × (S + K)·D]: sparse embeddings, pooled bags
  concatForward(lookups, batch.dense, inp, n, e + bagCount(shape) * shape.dim, shape.dense)
  const cross = crossNetForward(shape, w, inp, n)
  const pre: Float32Array[] = [],
    act: Float32Array[] = []
  const dims = layerDims(shape)
  const m = mlpTensorOffset(shape)
  let x: Float32Array = cross.x.at(-1) ?? inp
  dims.forEach(([c, oc], l) => {
    pre.push(new Float32Array(n * oc))
    act.push(new Float32Array(n * oc))
    matmulForward(x, w.dense[m + 2 * l], pre[l], n, c, oc)
    biasReluForward(pre[l], w.dense[m + 2 * l + 1], act[l], n, oc, l < dims.length - 1)
    x = act[l]
  })
  const loss = new Float32Array(n),
    probs = new Float32Array(n)
  bceLossForward(x, batch.labels, null, loss, probs, n)
  return { n, inp, cross, pre, act, loss, probs }
}

/**
 * The cross network on x0 = `inp` [B × C0], layers k = 0 … Kc−1: x_{k+1} = x0 ⊙ (W_k x_k + b_k) + x_k (DCN-v2 eq. 1),
 * W_k x_k = U_k (V_k x_k) at low rank (eq. 2). Dense tensors of layer k start at 2k (full) or 3k.
 */
function crossNetForward(shape: ModelShape, w: ModelWeights, inp: Float32Array, n: number): Activations['cross'] {
  const { layers, rank } = crossOf(shape)
  const c0 = inputWidth(shape)
  const out: Activations['cross'] = { x: [], z: [], t: [] }
  for (let k = 0; k < layers; k++) {
    const xk = k === 0 ? inp : out.x[k - 1]
    const z = new Float32Array(n * c0),
      next = new Float32Array(n * c0)
    if (rank === 0) matmulForward(xk, w.dense[2 * k], z, n, c0, c0)
    else {
      const t = new Float32Array(n * rank)
      matmulForward(xk, w.dense[3 * k], t, n, c0, rank)
      matmulForward(t, w.dense[3 * k + 1], z, n, rank, c0)
      out.t.push(t)
    }
    crossForward(inp, xk, z, w.dense[rank === 0 ? 2 * k + 1 : 3 * k + 2], next, n, c0)
    out.z.push(z)
    out.x.push(next)
  }
  return out
}

/**
 * Backward of the cross network: `dout` = ∂L/∂x_Kc [B × C0] (the MLP's input gradient; used as
 * scratch) → ∂L/∂x0, the cross tensors' gradients into `dense` (layout order). Walking k = Kc−1 … 0,
 * dout holds ∂L/∂x_{k+1}; cross_backward takes x0's share into dx0, then dz·W_k is added to dout
 * (xl's residual gradient is dout itself), making it ∂L/∂x_k; at layer 0 that sum is x0's too.
 */
function crossNetBackward(
  shape: ModelShape,
  w: ModelWeights,
  a: Activations,
  dout: Float32Array,
  dense: Float32Array<ArrayBuffer>[],
): Float32Array {
  const { layers: K, rank } = crossOf(shape)
  if (K === 0) return dout
  const n = a.n,
    c0 = inputWidth(shape)
  const dx0 = new Float32Array(n * c0),
    dz = new Float32Array(n * c0),
    dt = new Float32Array(n * rank)
  for (let k = K - 1; k >= 0; k--) {
    const xk = k === 0 ? a.inp : a.cross.x[k - 1]
    const at = rank === 0 ? 2 * k : 3 * k
    const bias = w.dense[at + (rank === 0 ? 1 : 2)],
      dbias = dense[at + (rank === 0 ? 1 : 2)]
    crossBackward(dout, a.inp, a.cross.z[k], bias, dz, dx0, dbias, n, c0, k < K - 1, k === 0)
    const into = k === 0 ? dx0 : dout
    if (rank === 0) {
      matmulBackwardDweight(dz, xk, dense[at], n, c0, c0, false)
      matmulBackwardDinp(dz, w.dense[at], into, n, c0, c0, true)
    } else {
      matmulBackwardDweight(dz, a.cross.t[k], dense[at + 1], n, rank, c0, false)
      matmulBackwardDinp(dz, w.dense[at + 1], dt, n, rank, c0)
      matmulBackwardDweight(dt, xk, dense[at], n, c0, rank, false)
      matmulBackwardDinp(dt, w.dense[at], into, n, c0, rank, true)
    }
  }
  return dx0
}

/** Mean loss of a forward pass, summed in the GPU's fixed reduction order. */
export function meanLoss(a: Activations): number {
  return reduceSum(a.loss, a.n, LOSS_REDUCE_WG) / a.n
}

/** Backward of Σ loss / `denom` (default the batch rows: the mean) through the whole model. */
export function modelBackward(
  shape: ModelShape,
  w: ModelWeights,
  batch: ModelBatch,
  a: Activations,
  denom = batch.n,
): Gradients {
  const { n } = batch
  const dims = layerDims(shape)
  const L = dims.length - 1
  const m = mlpTensorOffset(shape)
  const dense: Float32Array<ArrayBuffer>[] = denseTensors(shape).map(t => new Float32Array(t.length))
  let dout: Float32Array = new Float32Array(n)
  bceLossBackward(a.act[L], batch.labels, null, dout, n, denom)
  for (let l = L; l >= 0; l--) {
    const [c, oc] = dims[l]
    const dpre = new Float32Array(n * oc)
    biasReluBackward(dout, a.act[l], dpre, dense[m + 2 * l + 1], n, oc, l < L)
    const x = l === 0 ? (a.cross.x.at(-1) ?? a.inp) : a.act[l - 1]
    matmulBackwardDweight(dpre, x, dense[m + 2 * l], n, c, oc, false)
    dout = new Float32Array(n * c)
    matmulBackwardDinp(dpre, w.dense[m + 2 * l], dout, n, c, oc)
  }
  const dinp = crossNetBackward(shape, w, a, dout, dense)
  const demb = lookupGradients(shape, batch, dinp) // [P × D]: sparse lookups, then bag items
  const segments = embeddingSegments(lookupRows(shape, batch), shape.totalRows)
  const U = segments.uniq.length
  const dRows = new Float32Array(U * shape.dim)
  embeddingBackward(demb, segments.order, segments.segStart, dRows, {
    uniq: U,
    dim: shape.dim,
    positions: n * shape.sparse + bagItems(batch),
  })
  return { segments, dRows, dense }
}

/** σ(logit) per row of `batch` (labels ignored), f32 [B]. */
export function modelPredict(shape: ModelShape, w: ModelWeights, batch: ModelBatch): Float32Array {
  return modelForward(shape, w, batch).probs
}

/**
 * Bags: the lookups' part of the MLP input, f32 [B × (S + K)·D]: `emb` (the S sparse embeddings per
 * row) followed by the K pooled bags (embedding_bag_forward, then concat). `emb` itself when K = 0.
 */
export function withPooledBags(shape: ModelShape, w: ModelWeights, batch: ModelBatch, emb: Float32Array): Float32Array {
  const K = bagCount(shape)
  if (K === 0) return emb
  const { n } = batch,
    D = shape.dim,
    e = shape.sparse * D
  const pooled = new Float32Array(n * K * D)
  embeddingBagForward(w.embeddings, batch.bagRows!, batch.bagOffsets!, poolingCodes(shape), pooled, {
    b: n,
    k: K,
    dim: D,
    totalRows: shape.totalRows,
  })
  const out = new Float32Array(n * (e + K * D))
  concatForward(emb, pooled, out, n, e, K * D)
  return out
}

/**
 * Gradients of every lookup position, f32 [P × D], from the MLP input's gradient `dinp`
 * [B × C0]: the sparse embeddings' slice (concat_backward), then each bag item's share of its
 * pooled gradient (embedding_bag_backward) from position B·S.
 */
export function lookupGradients(shape: ModelShape, batch: ModelBatch, dinp: Float32Array): Float32Array {
  const { n } = batch,
    D = shape.dim,
    K = bagCount(shape),
    e = shape.sparse * D
  const M = bagItems(batch)
  const dpos = new Float32Array((n * shape.sparse + M) * D)
  concatBackward(dinp, dpos, n, e, K * D + shape.dense)
  if (K > 0)
    embeddingBagBackward(dinp, batch.bagOffsets!, poolingCodes(shape), dpos, {
      b: n,
      k: K,
      dim: D,
      items: M,
      stride: inputWidth(shape),
      offset: e,
      base: n * shape.sparse,
    })
  return dpos
}
