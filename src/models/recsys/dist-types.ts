/**
 * Types of the recommender across ranks: a rank's local gradients, the gradients
 * combined over all ranks, and the model interface a rank drives. P = dense parameters (all MLP
 * tensors, layout order, concatenated), U = distinct embedding rows, D = embedding dim.
 */
import type { RecsysBackend } from './backend.ts'
import type { ModelBatch, StepLr } from './types.ts'

/** How the peak lrs grow with the world size R: ×1, ×R (Goyal et al.) or ×√R. */
export type LrScaling = 'none' | 'linear' | 'sqrt'

/** One rank's gradients of Σ loss over its batch (not the mean: ranks divide by the global rows). */
export interface RankGradients {
  /** Rows of this rank's batch (0 allowed: the rank still takes part in the collectives). */
  n: number
  /** Σ per-row BCE loss of the batch. */
  lossSum: number
  /** f32 [P]: every dense tensor's gradient, layout order (w0, b0, w1, …), concatenated. */
  dense: Float32Array<ArrayBuffer>
  /** u32 [U]: the batch's distinct embedding rows, ascending. */
  rows: Uint32Array<ArrayBuffer>
  /** f32 [U × D]: gradient of row rows[u]. */
  dRows: Float32Array<ArrayBuffer>
}

/** Gradients of the mean loss over the global batch (identical on every rank). */
export interface CombinedGradients {
  /** Global batch rows N = Σ ranks' n. */
  n: number
  /** Mean loss over the global batch. */
  loss: number
  /** f32 [P]: Σ ranks' dense gradients / N. */
  dense: Float32Array<ArrayBuffer>
  /** u32 [U]: union of the ranks' touched rows, ascending; only these rows are updated. */
  rows: Uint32Array<ArrayBuffer>
  /** f32 [U × D]: per row, Σ ranks' gradients in rank order / N. */
  dRows: Float32Array<ArrayBuffer>
}

/** A backend that can split its step: local gradients out, combined gradients in. */
export interface RankModel extends RecsysBackend {
  /** Forward + backward of `batch` (n ≥ 1) without updating; reads the gradients back. */
  gradients(batch: ModelBatch): Promise<RankGradients>
  /** One optimizer update (Adam's t advances) with gradients combined over the ranks. */
  applyGradients(g: CombinedGradients, lr: StepLr): Promise<void>
}
