/**
 * The plain-TS reference of the whole recommender (llm.c's train_gpt2.c role): composes the
 * kernels' .ref.ts functions in the order the GPU model dispatches them, so both agree up to
 * the GPU's rounding. B = batch, S = sparse features, D = embedding dim, Cd = dense inputs,
 * C0 = S·D + Cd, H_l = width of hidden layer l, U = distinct embedding rows in the batch.
 * forward: embedding_forward → concat → [matmul_forward → bias_relu_forward]×L → matmul + bias → bce
 */
import { bceLossBackward } from '../../kernels/recsys/bce_loss_backward.ref.ts'
import { bceLossForward } from '../../kernels/recsys/bce_loss_forward.ref.ts'
import { biasReluBackward } from '../../kernels/recsys/bias_relu_backward.ref.ts'
import { biasReluForward } from '../../kernels/recsys/bias_relu_forward.ref.ts'
import { concatBackward } from '../../kernels/recsys/concat_backward.ref.ts'
import { concatForward } from '../../kernels/recsys/concat_forward.ref.ts'
import { embeddingBackward } from '../../kernels/recsys/embedding_backward.ref.ts'
import { embeddingForward } from '../../kernels/recsys/embedding_forward.ref.ts'
import { matmulBackwardDinp } from '../../kernels/recsys/matmul_backward_dinp.ref.ts'
import { matmulBackwardDweight } from '../../kernels/recsys/matmul_backward_dweight.ref.ts'
import { matmulForward } from '../../kernels/recsys/matmul_forward.ref.ts'
import { reduceSum } from '../../kernels/recsys/reduce_sum.ref.ts'
import { inputWidth, layerDims } from './layout.ts'
import { embeddingSegments, type EmbeddingSegments } from './segments.ts'
import type { ModelBatch, ModelShape, ModelWeights } from './types.ts'

/** Workgroup width of the GPU's loss reduction; the reference sums in the same tree order. */
export const LOSS_REDUCE_WG = 256

/** Forward activations kept for the backward pass. */
export interface Activations {
  n: number
  /** f32 [B × C0] MLP input. */
  inp: Float32Array
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
  concatForward(emb, batch.dense, inp, n, e, shape.dense)
  const pre: Float32Array[] = [],
    act: Float32Array[] = []
  const dims = layerDims(shape)
  let x: Float32Array = inp
  dims.forEach(([c, oc], l) => {
    pre.push(new Float32Array(n * oc))
    act.push(new Float32Array(n * oc))
    matmulForward(x, w.dense[2 * l], pre[l], n, c, oc)
    biasReluForward(pre[l], w.dense[2 * l + 1], act[l], n, oc, l < dims.length - 1)
    x = act[l]
  })
  const loss = new Float32Array(n),
    probs = new Float32Array(n)
  bceLossForward(x, batch.labels, null, loss, probs, n)
  return { n, inp, pre, act, loss, probs }
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
  const dense: Float32Array<ArrayBuffer>[] = dims.flatMap(([c, oc]) => [new Float32Array(oc * c), new Float32Array(oc)])
  let dout: Float32Array = new Float32Array(n)
  bceLossBackward(a.act[L], batch.labels, null, dout, n, denom)
  for (let l = L; l >= 0; l--) {
    const [c, oc] = dims[l]
    const dpre = new Float32Array(n * oc)
    biasReluBackward(dout, a.act[l], dpre, dense[2 * l + 1], n, oc, l < L)
    const x = l === 0 ? a.inp : a.act[l - 1]
    matmulBackwardDweight(dpre, x, dense[2 * l], n, c, oc, false)
    dout = new Float32Array(n * c)
    matmulBackwardDinp(dpre, w.dense[2 * l], dout, n, c, oc)
  }
  const e = shape.sparse * shape.dim
  const demb = new Float32Array(n * e)
  concatBackward(dout, demb, n, e, shape.dense)
  const segments = embeddingSegments(batch.rows, shape.totalRows)
  const U = segments.uniq.length
  const dRows = new Float32Array(U * shape.dim)
  embeddingBackward(demb, segments.order, segments.segStart, dRows, {
    uniq: U,
    dim: shape.dim,
    positions: n * shape.sparse,
  })
  return { segments, dRows, dense }
}

/** σ(logit) per row of `batch` (labels ignored), f32 [B]. */
export function modelPredict(shape: ModelShape, w: ModelWeights, batch: ModelBatch): Float32Array {
  return modelForward(shape, w, batch).probs
}
