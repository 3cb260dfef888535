/**
 * The kernel calls of one training step / one forward pass of the GPU model, in dispatch order
 * (the same order as model-ref.ts). n = rows of this batch, U = distinct embedding rows,
 * C0 = cross / MLP input width, Kc = cross layers, r = cross rank, K = bag features, M = bag items.
 */
import { adagradCall } from '../../kernels/recsys/adagrad.ts'
import { adamCall } from '../../kernels/recsys/adam.ts'
import { bceLossBackwardCall } from '../../kernels/recsys/bce_loss_backward.ts'
import { bceLossForwardCall } from '../../kernels/recsys/bce_loss_forward.ts'
import { biasReluBackwardCall } from '../../kernels/recsys/bias_relu_backward.ts'
import { biasReluForwardCall } from '../../kernels/recsys/bias_relu_forward.ts'
import { concatBackwardCall } from '../../kernels/recsys/concat_backward.ts'
import { concatForwardCall } from '../../kernels/recsys/concat_forward.ts'
import { crossBackwardCall } from '../../kernels/recsys/cross_backward.ts'
import { crossForwardCall } from '../../kernels/recsys/cross_forward.ts'
import { embeddingBackwardCall } from '../../kernels/recsys/embedding_backward.ts'
import { embeddingBagBackwardCall } from '../../kernels/recsys/embedding_bag_backward.ts'
import { embeddingBagForwardCall } from '../../kernels/recsys/embedding_bag_forward.ts'
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
import { bagCount } from './bags.ts'
import { crossOf, inputWidth, layerDims, mlpTensorOffset } from './layout.ts'
import { LOSS_REDUCE_WG } from './model-ref.ts'
import { ADAGRAD_EPS, denseHyper } from './optimizer.ts'
import type { ModelShape, RecsysParams, StepLr } from './types.ts'

/** Matmul kernel family: naive version 1 or the tiled variants (same sums, same order). */
export type MatmulVariant = 'naive' | 'tiled'

type Call = KernelCall<unknown>

/** The matmul kernels of a variant (one choice, used by the cross network and the MLP alike). */
function matmuls(mm: MatmulVariant): {
  fwd: typeof matmulForwardCall | typeof matmulForwardTiledCall
  dw: typeof matmulBackwardDweightCall | typeof matmulBackwardDweightTiledCall
  di: typeof matmulBackwardDinpCall | typeof matmulBackwardDinpTiledCall
} {
  return mm === 'tiled'
    ? { fwd: matmulForwardTiledCall, dw: matmulBackwardDweightTiledCall, di: matmulBackwardDinpTiledCall }
    : { fwd: matmulForwardCall, dw: matmulBackwardDweightCall, di: matmulBackwardDinpCall }
}

/** Forward calls: embeddings → concat → cross network → MLP → per-row loss and probabilities. */
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
    ...bagForwardCalls(shape, b, input, n),
    concatForwardCall(
      { emb: b.bags?.lookups ?? b.embOut, dense: input.dense, inp: b.inp },
      { b: n, e: (S + bagCount(shape)) * D, cd: shape.dense },
    ),
    ...crossForwardCalls(shape, b, n, mm),
  ]
  const dims = layerDims(shape)
  const m = mlpTensorOffset(shape)
  const { fwd } = matmuls(mm)
  dims.forEach(([c, oc], l) => {
    const x = l === 0 ? mlpInput(b) : b.act[l - 1]
    calls.push(fwd({ inp: x, weight: b.w[m + 2 * l], out: b.pre[l] }, { b: n, c, oc }))
    calls.push(
      biasReluForwardCall(
        { inp: b.pre[l], bias: b.w[m + 2 * l + 1], out: b.act[l] },
        { b: n, c: oc },
        l < dims.length - 1,
      ),
    )
  })
  calls.push(
    bceLossForwardCall({ logits: b.act[dims.length - 1], labels: input.labels, loss: b.loss, probs: b.probs }, n),
  )
  return calls
}

/** With bags: pool each bag (embedding_bag_forward), then bags.lookups = [sparse embeddings, pooled bags] per row. */
function bagForwardCalls(shape: ModelShape, b: ModelBuffers, input: InputSet, n: number): Call[] {
  const K = bagCount(shape),
    bags = b.bags
  if (K === 0 || !bags) return []
  const D = shape.dim
  return [
    embeddingBagForwardCall(
      {
        weights: b.emb,
        bagRows: input.bagRows!,
        bagOffsets: input.bagOffsets!,
        pooling: bags.pooling,
        out: bags.pooled,
      },
      { b: n, k: K, dim: D, totalRows: shape.totalRows },
    ),
    concatForwardCall(
      { emb: b.embOut, dense: bags.pooled, inp: bags.lookups },
      { b: n, e: shape.sparse * D, cd: K * D },
    ),
  ]
}

/** x_Kc, or the concatenated input without a cross network. */
function mlpInput(b: ModelBuffers): GPUBuffer {
  return b.cross?.x.at(-1) ?? b.inp
}

/** Cross layers k = 0 … Kc−1: z = W_k x_k (or U_k (V_k x_k)), then x_{k+1} = x0 ⊙ (z + b_k) + x_k. */
function crossForwardCalls(shape: ModelShape, b: ModelBuffers, n: number, mm: MatmulVariant): Call[] {
  const { layers, rank } = crossOf(shape)
  const cb = b.cross
  if (!cb) return []
  const c0 = inputWidth(shape)
  const { fwd } = matmuls(mm)
  const calls: Call[] = []
  for (let k = 0; k < layers; k++) {
    const xk = k === 0 ? b.inp : cb.x[k - 1]
    const at = rank === 0 ? 2 * k : 3 * k
    if (rank === 0) calls.push(fwd({ inp: xk, weight: b.w[at], out: cb.z[k] }, { b: n, c: c0, oc: c0 }))
    else {
      calls.push(fwd({ inp: xk, weight: b.w[at], out: cb.t[k] }, { b: n, c: c0, oc: rank }))
      calls.push(fwd({ inp: cb.t[k], weight: b.w[at + 1], out: cb.z[k] }, { b: n, c: rank, oc: c0 }))
    }
    const bias = b.w[at + (rank === 0 ? 1 : 2)]
    calls.push(crossForwardCall({ x0: b.inp, xl: xk, z: cb.z[k], bias, out: cb.x[k] }, { b: n, c: c0 }))
  }
  return calls
}

/**
 * Backward of the cross network (after the MLP's, which left ∂L/∂x_Kc in b.dinp0), as
 * model-ref.ts crossNetBackward: b.dinp0 becomes ∂L/∂x_k in place (+= dz·W_k), x0's gradient
 * collects in cross.dx0.
 */
function crossBackwardCalls(shape: ModelShape, b: ModelBuffers, n: number, mm: MatmulVariant): Call[] {
  const { layers: K, rank } = crossOf(shape)
  const cb = b.cross
  if (!cb) return []
  const c0 = inputWidth(shape)
  const { dw, di } = matmuls(mm)
  const calls: Call[] = []
  for (let k = K - 1; k >= 0; k--) {
    const xk = k === 0 ? b.inp : cb.x[k - 1]
    const at = rank === 0 ? 2 * k : 3 * k
    const bi = at + (rank === 0 ? 1 : 2)
    calls.push(
      crossBackwardCall(
        { dout: b.dinp0, x0: b.inp, z: cb.z[k], bias: b.w[bi], dz: cb.dz, dx0: cb.dx0, dbias: b.g[bi] },
        { b: n, c: c0 },
        { accumulate: k < K - 1, residual: k === 0 },
      ),
    )
    const into = k === 0 ? cb.dx0 : b.dinp0
    if (rank === 0) {
      calls.push(dw({ dout: cb.dz, inp: xk, dweight: b.g[at] }, { b: n, c: c0, oc: c0 }, false))
      calls.push(di({ dout: cb.dz, weight: b.w[at], dinp: into }, { b: n, c: c0, oc: c0 }, true))
    } else {
      calls.push(dw({ dout: cb.dz, inp: cb.t[k], dweight: b.g[at + 1] }, { b: n, c: rank, oc: c0 }, false))
      calls.push(di({ dout: cb.dz, weight: b.w[at + 1], dinp: cb.dt }, { b: n, c: rank, oc: c0 }))
      calls.push(dw({ dout: cb.dt, inp: xk, dweight: b.g[at] }, { b: n, c: c0, oc: rank }, false))
      calls.push(di({ dout: cb.dt, weight: b.w[at], dinp: into }, { b: n, c: c0, oc: rank }, true))
    }
  }
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
  items = 0,
): Call[] {
  return [
    ...backwardCalls(shape, b, input, n, uniq, n, mm, items),
    ...optimizerCalls(shape, p, b, { uniq: input.uniq, dRows: b.dRows }, uniq, t, lr),
  ]
}

/**
 * Loss sum and backward calls (after forwardCalls): gradients of Σ loss / `denom` into b.g
 * (dense tensors) and b.dRows (f32 [U × D], rows input.uniq; U = `uniq`). denom = n for the batch mean;
 * ranks pass 1 and scale the combined sums by 1 / global rows (ranks.ts combineGradients).
 * `items` = M bag items: their gradients follow the B·S sparse positions in b.demb.
 */
export function backwardCalls(
  shape: ModelShape,
  b: ModelBuffers,
  input: InputSet,
  n: number,
  uniq: number,
  denom: number,
  mm: MatmulVariant,
  items = 0,
): Call[] {
  const calls: Call[] = reduceSumCalls({ inp: b.loss, out: b.lossSum, scratch: b.lossScratch }, n, {
    WG: LOSS_REDUCE_WG,
  })
  const dims = layerDims(shape)
  const L = dims.length - 1
  calls.push(bceLossBackwardCall({ logits: b.act[L], labels: input.labels, dlogits: b.dlogits }, n, denom))
  const m = mlpTensorOffset(shape)
  const { dw, di } = matmuls(mm)
  let dout = b.dlogits
  for (let l = L; l >= 0; l--) {
    const [c, oc] = dims[l]
    const x = l === 0 ? mlpInput(b) : b.act[l - 1]
    const dinp = l === 0 ? b.dinp0 : b.gradA
    calls.push(
      biasReluBackwardCall({ dout, out: b.act[l], dinp: b.gradB, dbias: b.g[m + 2 * l + 1] }, { b: n, c: oc }, l < L),
    )
    calls.push(dw({ dout: b.gradB, inp: x, dweight: b.g[m + 2 * l] }, { b: n, c, oc }, false))
    calls.push(di({ dout: b.gradB, weight: b.w[m + 2 * l], dinp }, { b: n, c, oc }))
    dout = dinp
  }
  calls.push(...crossBackwardCalls(shape, b, n, mm))
  const S = shape.sparse,
    D = shape.dim
  const K = bagCount(shape)
  const dx0 = b.cross?.dx0 ?? b.dinp0
  calls.push(concatBackwardCall({ dinp: dx0, demb: b.demb }, { b: n, e: S * D, cd: K * D + shape.dense }))
  if (K > 0 && b.bags)
    calls.push(
      embeddingBagBackwardCall(
        { dout: dx0, bagOffsets: input.bagOffsets!, pooling: b.bags.pooling, dItems: b.demb },
        { b: n, k: K, dim: D, items, stride: inputWidth(shape), offset: S * D, base: n * S },
      ),
    )
  calls.push(
    embeddingBackwardCall(
      { dout: b.demb, order: input.order, segStart: input.segStart, dRows: b.dRows },
      { uniq, dim: D, positions: n * S + items },
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
