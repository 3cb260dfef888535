/**
 * The kernel calls of one training step / one forward pass of the GPU model, in dispatch order
 * (the same order as model-ref.ts). n = rows of this batch, U = distinct embedding rows.
 */
import { adagradCall } from '../../kernels/recsys/adagrad.ts'
import { adamCall } from '../../kernels/recsys/adam.ts'
import { bceLossBackwardCall } from '../../kernels/recsys/bce_loss_backward.ts'
import { bceLossForwardCall } from '../../kernels/recsys/bce_loss_forward.ts'
import { biasReluBackwardCall } from '../../kernels/recsys/bias_relu_backward.ts'
import { biasReluForwardCall } from '../../kernels/recsys/bias_relu_forward.ts'
import { concatBackwardCall } from '../../kernels/recsys/concat_backward.ts'
import { concatForwardCall } from '../../kernels/recsys/concat_forward.ts'
import { embeddingBackwardCall } from '../../kernels/recsys/embedding_backward.ts'
import { embeddingForwardCall } from '../../kernels/recsys/embedding_forward.ts'
import { matmulBackwardDinpCall } from '../../kernels/recsys/matmul_backward_dinp.ts'
import { matmulBackwardDweightCall } from '../../kernels/recsys/matmul_backward_dweight.ts'
import { matmulForwardCall } from '../../kernels/recsys/matmul_forward.ts'
import {
  matmulBackwardDinpTiledCall,
  matmulBackwardDweightTiledCall,
  matmulForwardTiledCall,
} from '../../kernels/recsys/matmul_tiled.ts'
import { reduceSumCalls } from '../../kernels/recsys/reduce_sum.ts'
import { rowwiseAdamCall } from '../../kernels/recsys/rowwise_adam.ts'
import type { KernelCall } from '../../kernels/runner.ts'
import type { InputSet, ModelBuffers } from './gpu-buffers.ts'
import { layerDims } from './layout.ts'
import { LOSS_REDUCE_WG } from './model-ref.ts'
import { ADAGRAD_EPS, denseHyper } from './optimizer.ts'
import type { ModelShape, RecsysParams, StepLr } from './types.ts'

/** Matmul kernel family: naive version 1 or the tiled variants (same sums, same order). */
export type MatmulVariant = 'naive' | 'tiled'

type Call = KernelCall<unknown>

/** Forward calls: embeddings → concat → MLP → per-row loss and probabilities. */
export function forwardCalls(
  shape: ModelShape,
  b: ModelBuffers,
  input: InputSet,
  n: number,
  mm: MatmulVariant,
): Call[] {
  const S = shape.sparse,
    D = shape.dim
  const calls: Call[] = [
    embeddingForwardCall(
      { weights: b.emb, rows: input.rows, out: b.embOut },
      { positions: n * S, dim: D, totalRows: shape.totalRows },
    ),
    concatForwardCall({ emb: b.embOut, dense: input.dense, inp: b.inp }, { b: n, e: S * D, cd: shape.dense }),
  ]
  const dims = layerDims(shape)
  dims.forEach(([c, oc], l) => {
    const x = l === 0 ? b.inp : b.act[l - 1]
    const fwd = mm === 'tiled' ? matmulForwardTiledCall : matmulForwardCall
    calls.push(fwd({ inp: x, weight: b.w[2 * l], out: b.pre[l] }, { b: n, c, oc }))
    calls.push(
      biasReluForwardCall({ inp: b.pre[l], bias: b.w[2 * l + 1], out: b.act[l] }, { b: n, c: oc }, l < dims.length - 1),
    )
  })
  calls.push(
    bceLossForwardCall({ logits: b.act[dims.length - 1], labels: input.labels, loss: b.loss, probs: b.probs }, n),
  )
  return calls
}

/** Loss sum, backward and optimizer calls of one step (after forwardCalls). */
export function trainCalls(
  shape: ModelShape,
  p: RecsysParams,
  b: ModelBuffers,
  input: InputSet,
  n: number,
  uniq: number,
  t: number,
  lr: StepLr,
  mm: MatmulVariant,
): Call[] {
  return [
    ...backwardCalls(shape, b, input, n, uniq, n, mm),
    ...optimizerCalls(shape, p, b, { uniq: input.uniq, dRows: b.dRows }, uniq, t, lr),
  ]
}

/**
 * Loss sum and backward calls (after forwardCalls): gradients of Σ loss / `denom` into b.g
 * (dense tensors) and b.dRows (f32 [U × D], rows input.uniq; U = `uniq`). denom = n for the batch mean;
 * ranks pass 1 and scale the combined sums by 1 / global rows (ranks.ts combineGradients).
 */
export function backwardCalls(
  shape: ModelShape,
  b: ModelBuffers,
  input: InputSet,
  n: number,
  uniq: number,
  denom: number,
  mm: MatmulVariant,
): Call[] {
  const calls: Call[] = reduceSumCalls({ inp: b.loss, out: b.lossSum, scratch: b.lossScratch }, n, {
    WG: LOSS_REDUCE_WG,
  })
  const dims = layerDims(shape)
  const L = dims.length - 1
  calls.push(bceLossBackwardCall({ logits: b.act[L], labels: input.labels, dlogits: b.dlogits }, n, denom))
  let dout = b.dlogits
  for (let l = L; l >= 0; l--) {
    const [c, oc] = dims[l]
    const x = l === 0 ? b.inp : b.act[l - 1]
    const dinp = l === 0 ? b.dinp0 : b.gradA
    calls.push(
      biasReluBackwardCall({ dout, out: b.act[l], dinp: b.gradB, dbias: b.g[2 * l + 1] }, { b: n, c: oc }, l < L),
    )
    const dw = mm === 'tiled' ? matmulBackwardDweightTiledCall : matmulBackwardDweightCall
    const di = mm === 'tiled' ? matmulBackwardDinpTiledCall : matmulBackwardDinpCall
    calls.push(dw({ dout: b.gradB, inp: x, dweight: b.g[2 * l] }, { b: n, c, oc }, false))
    calls.push(di({ dout: b.gradB, weight: b.w[2 * l], dinp }, { b: n, c, oc }))
    dout = dinp
  }
  const S = shape.sparse,
    D = shape.dim
  calls.push(concatBackwardCall({ dinp: b.dinp0, demb: b.demb }, { b: n, e: S * D, cd: shape.dense }))
  calls.push(
    embeddingBackwardCall(
      { dout: b.demb, order: input.order, segStart: input.segStart, dRows: b.dRows },
      { uniq, dim: D, positions: n * S },
    ),
  )
  return calls
}

/** Where the embedding optimizer reads its touched rows: u32 [U] row ids and f32 [U × D] gradients. */
export interface RowGradBuffers {
  uniq: GPUBuffer
  dRows: GPUBuffer
}

/** Adam/AdamW on every dense tensor (gradients in b.g) and the row optimizer on `uniq` rows of `rows`. */
export function optimizerCalls(
  shape: ModelShape,
  p: RecsysParams,
  b: ModelBuffers,
  rows: RowGradBuffers,
  uniq: number,
  t: number,
  lr: StepLr,
): Call[] {
  const calls = b.w.map(
    (w, i) =>
      adamCall(
        { weights: w, grads: b.g[i], m: b.m[i], v: b.v[i] },
        { params: w.size / 4 },
        denseHyper(p, lr.dense, t),
      ) as Call,
  )
  calls.push(embeddingUpdate(shape, p, b, rows, uniq, lr.embedding))
  return calls
}

function embeddingUpdate(
  shape: ModelShape,
  p: RecsysParams,
  b: ModelBuffers,
  rows: RowGradBuffers,
  uniq: number,
  lr: number,
): Call {
  const rowShape = { uniq, dim: shape.dim, totalRows: shape.totalRows }
  if (p.embedding_optimizer === 'adagrad') {
    return adagradCall({ weights: b.emb, accum: b.accum!, dRows: rows.dRows, uniq: rows.uniq }, rowShape, {
      lr,
      eps: ADAGRAD_EPS,
    })
  }
  const h = { lr, beta1: p.beta1, beta2: p.beta2, eps: p.eps, weightDecay: 0 }
  return rowwiseAdamCall(
    { weights: b.emb, m: b.embM!, v: b.embV!, rowStep: b.rowStep!, dRows: rows.dRows, uniq: rows.uniq },
    rowShape,
    h,
  )
}
