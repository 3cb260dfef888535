/**
 * Learning-rate scaling for data-parallel runs: with R ranks the global batch is
 * R × batch_size, so fewer, larger steps are taken per epoch. The linear rule (Goyal et al.,
 * "Accurate, Large Minibatch SGD") scales the peak lr by R, the square-root rule (Krizhevsky,
 * "One weird trick"; suited to Adam-type optimizers) by √R; both reach the peak through the
 * existing linear warmup (warmup_steps) so the first large steps do not diverge.
 */
import type { RecsysParams } from './types.ts'

/** The factor rule `lr_scaling` applies to the peak lrs for `world` = R ranks. */
export function lrScale(rule: RecsysParams['lr_scaling'], world: number): number {
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`ranks must be an integer ≥ 1, got ${world}`)
  if (rule === 'linear') return world
  if (rule === 'sqrt') return Math.sqrt(world)
  return 1
}

/** `p` with lr and embedding_lr scaled by the rule for R ranks (unchanged for R = 1 or 'none'). */
export function scaledParams(p: RecsysParams, world: number): RecsysParams {
  const k = lrScale(p.lr_scaling, world)
  return k === 1 ? p : { ...p, lr: p.lr * k, embedding_lr: p.embedding_lr * k }
}
