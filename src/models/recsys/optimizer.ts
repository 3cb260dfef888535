/**
 * One optimizer step on the CPU reference (the GPU model issues the same kernels): Adam/AdamW
 * on every dense tensor with t = step + 1, Adagrad or row-wise Adam on the embedding rows the
 * batch touched, at the lrs of the schedule. Also the per-step lr for both backends.
 */
import { adagrad } from '../../kernels/recsys/adagrad.ref.ts'
import { adam } from '../../kernels/recsys/adam.ref.ts'
import { rowwiseAdam } from '../../kernels/recsys/rowwise_adam.ref.ts'
import type { Gradients } from './model-ref.ts'
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
  const dense = lrAt(step, {
    lr: p.lr,
    schedule: p.schedule,
    warmupSteps: p.warmup_steps,
    totalSteps: total,
    decaySteps,
  })
  return { dense, embedding: (dense / p.lr) * p.embedding_lr }
}

/** Adam hyperparameters of the dense step (AdamW's decoupled decay only for 'adamw'). */
export function denseHyper(
  p: RecsysParams,
  lr: number,
  t: number,
): { lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; t: number } {
  return {
    lr,
    beta1: p.beta1,
    beta2: p.beta2,
    eps: p.eps,
    weightDecay: p.optimizer === 'adamw' ? p.weight_decay : 0,
    t,
  }
}

/** Applies one update in place to `w` and `s` (s.step advances by one). */
export function applyOptimizers(
  shape: ModelShape,
  p: RecsysParams,
  w: ModelWeights,
  s: OptimizerState,
  g: Gradients,
  lr: StepLr,
): void {
  const t = s.step + 1
  w.dense.forEach((tensor, i) =>
    adam(tensor, g.dense[i], s.m[i], s.v[i], { params: tensor.length }, denseHyper(p, lr.dense, t)),
  )
  const rowShape = { uniq: g.segments.uniq.length, dim: shape.dim, totalRows: shape.totalRows }
  if (p.embedding_optimizer === 'adagrad') {
    adagrad(w.embeddings, s.accum!, g.dRows, g.segments.uniq, rowShape, { lr: lr.embedding, eps: ADAGRAD_EPS })
  } else {
    const h = { lr: lr.embedding, beta1: p.beta1, beta2: p.beta2, eps: p.eps, weightDecay: 0 }
    rowwiseAdam(w.embeddings, s.embM!, s.embV!, s.rowStep!, g.dRows, g.segments.uniq, rowShape, h)
  }
  s.step = t
}

/*
 * Learning-rate schedules: a pure function of the optimizer step, so a resumed run gets the same
 * lr as the uninterrupted one. Linear warmup then constant, cosine or step decay.
 * `step` is the 0-based index of the update (Adam's t = step + 1).
 */

/** Decay after warmup: hold, cosine down to `minLr`, or multiply by `gamma` every `decaySteps`. */
export type LrScheduleKind = 'constant' | 'cosine' | 'step'

/** A validated-on-use schedule configuration; fields not used by `schedule` are ignored. */
export interface LrScheduleConfig {
  /** Peak learning rate (> 0), reached at the end of warmup. */
  lr: number
  /** Default 'constant'. */
  schedule?: LrScheduleKind
  /** Steps of linear warmup (default 0): step k < warmupSteps gets lr·(k + 1)/warmupSteps. */
  warmupSteps?: number
  /** cosine: total number of steps; the last one (totalSteps − 1) and later get `minLr`. */
  totalSteps?: number
  /** cosine: the floor (default 0, ≤ lr). */
  minLr?: number
  /** step: steps between decays, counted from the end of warmup. */
  decaySteps?: number
  /** step: factor per decay, in (0, 1] (default 0.5: the lr halves at every boundary). */
  gamma?: number
}

/** The learning rate of update `step` (integer ≥ 0) under `cfg`; throws RangeError naming a bad field. */
export function lrAt(step: number, cfg: LrScheduleConfig): number {
  validateSchedule(cfg)
  if (!Number.isInteger(step) || step < 0) throw new RangeError(`lrAt: step must be an integer ≥ 0, got ${step}`)
  const warmup = cfg.warmupSteps ?? 0
  if (step < warmup) return (cfg.lr * (step + 1)) / warmup
  const k = step - warmup
  switch (cfg.schedule ?? 'constant') {
    case 'constant':
      return cfg.lr
    case 'cosine':
      return cosineLr(k, cfg)
    case 'step':
      return cfg.lr * (cfg.gamma ?? 0.5) ** Math.floor(k / (cfg.decaySteps as number))
  }
}

/** Cosine from lr at the end of warmup down to minLr at step totalSteps − 1 (SGDR without restarts). */
function cosineLr(k: number, cfg: LrScheduleConfig): number {
  const minLr = cfg.minLr ?? 0
  const span = (cfg.totalSteps as number) - 1 - (cfg.warmupSteps ?? 0)
  const progress = span <= 0 ? 1 : Math.min(1, k / span)
  return minLr + (cfg.lr - minLr) * 0.5 * (1 + Math.cos(Math.PI * progress))
}

/** Throws RangeError naming the first invalid field of `cfg` (and its value). */
export function validateSchedule(cfg: LrScheduleConfig): void {
  const fail = (field: string, want: string, got: unknown): never => {
    throw new RangeError(`lr schedule: ${field} must be ${want}, got ${String(got)}`)
  }
  const schedule = cfg.schedule ?? 'constant'
  if (!['constant', 'cosine', 'step'].includes(schedule)) fail('schedule', "'constant', 'cosine' or 'step'", schedule)
  if (!(cfg.lr > 0) || !Number.isFinite(cfg.lr)) fail('lr', 'a finite number > 0', cfg.lr)
  const warmup = cfg.warmupSteps ?? 0
  if (!isCount(warmup, 0)) fail('warmupSteps', 'an integer ≥ 0', cfg.warmupSteps)
  if (schedule === 'cosine') {
    if (!isCount(cfg.totalSteps, warmup + 1)) fail('totalSteps', `an integer > warmupSteps (${warmup})`, cfg.totalSteps)
    const minLr = cfg.minLr ?? 0
    if (!(minLr >= 0 && minLr <= cfg.lr)) fail('minLr', `in [0, lr = ${cfg.lr}]`, cfg.minLr)
  }
  if (schedule === 'step') {
    if (!isCount(cfg.decaySteps, 1)) fail('decaySteps', 'an integer ≥ 1', cfg.decaySteps)
    const gamma = cfg.gamma ?? 0.5
    if (!(gamma > 0 && gamma <= 1)) fail('gamma', 'in (0, 1]', cfg.gamma)
  }
}

function isCount(v: unknown, min: number): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= min
}
