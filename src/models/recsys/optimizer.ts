/**
 * One optimizer step on the CPU reference (the GPU model issues the same kernels): Adam/AdamW
 * on every dense tensor with t = step + 1, Adagrad or row-wise Adam on the embedding rows the
 * batch touched, at the lrs of the schedule. Also the per-step lr for both backends.
 */
import { adagrad } from '../../kernels/recsys/adagrad.ref.ts'
import { adam } from '../../kernels/recsys/adam.ref.ts'
import { rowwiseAdam } from '../../kernels/recsys/rowwise_adam.ref.ts'
import type { Gradients } from './model-ref.ts'
import { lrAt } from './schedule.ts'
import type { ModelShape, ModelWeights, OptimizerState, RecsysParams, StepLr } from './types.ts'

/** PyTorch Adagrad's default eps. */
export const ADAGRAD_EPS = 1e-10

/**
 * The lrs of update `step` (0-based): `lr`'s schedule for the dense weights, the same schedule
 * scaled to `embedding_lr` for the embeddings. `totalSteps` is needed by 'cosine' (and 'step'
 * decays every totalSteps/4 steps, at least 1).
 */
export function stepLr(step: number, p: RecsysParams, totalSteps: number): StepLr {
  const decaySteps = Math.max(1, Math.floor(totalSteps / 4))
  const total = Math.max(totalSteps, p.warmup_steps + 1)
  const dense = lrAt(step, { lr: p.lr, schedule: p.schedule, warmupSteps: p.warmup_steps, totalSteps: total, decaySteps })
  return { dense, embedding: (dense / p.lr) * p.embedding_lr }
}

/** Adam hyperparameters of the dense step (AdamW's decoupled decay only for 'adamw'). */
export function denseHyper(p: RecsysParams, lr: number, t: number): { lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; t: number } {
  return { lr, beta1: p.beta1, beta2: p.beta2, eps: p.eps, weightDecay: p.optimizer === 'adamw' ? p.weight_decay : 0, t }
}

/** Applies one update in place to `w` and `s` (s.step advances by one). */
export function applyOptimizers(shape: ModelShape, p: RecsysParams, w: ModelWeights, s: OptimizerState, g: Gradients, lr: StepLr): void {
  const t = s.step + 1
  w.dense.forEach((tensor, i) => adam(tensor, g.dense[i], s.m[i], s.v[i], { params: tensor.length }, denseHyper(p, lr.dense, t)))
  const rowShape = { uniq: g.segments.uniq.length, dim: shape.dim, totalRows: shape.totalRows }
  if (p.embedding_optimizer === 'adagrad') {
    adagrad(w.embeddings, s.accum!, g.dRows, g.segments.uniq, rowShape, { lr: lr.embedding, eps: ADAGRAD_EPS })
  } else {
    const h = { lr: lr.embedding, beta1: p.beta1, beta2: p.beta2, eps: p.eps, weightDecay: 0 }
    rowwiseAdam(w.embeddings, s.embM!, s.embV!, s.rowStep!, g.dRows, g.segments.uniq, rowShape, h)
  }
  s.step = t
}
