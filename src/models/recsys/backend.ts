/**
 * The small interface the training loop drives, so the CPU reference and the GPU model are
 * interchangeable, plus the CPU reference backend. B = batch rows.
 */
import { initOptimizerState, initWeights } from './init.ts'
import { meanLoss, modelBackward, modelForward } from './model-ref.ts'
import { applyOptimizers } from './optimizer.ts'
import type { ModelBatch, ModelShape, ModelWeights, OptimizerState, RecsysParams, StepLr } from './types.ts'

/** Weights plus optimizer state: everything a checkpoint holds besides the loop's position. */
export interface ModelState { weights: ModelWeights; opt: OptimizerState }

/** A trainable recommender. */
export interface RecsysBackend {
  readonly shape: ModelShape
  /** Largest batch `step` and `predict` accept. */
  readonly maxBatch: number
  /** One update on `batch` (n ≤ maxBatch, n ≥ 1) at lrs `lr`. May return before the device is done. */
  step(batch: ModelBatch, lr: StepLr): Promise<void>
  /** Mean training loss of every step since the last call, in step order (the GPU's one read-back). */
  takeLosses(): Promise<number[]>
  /** σ(logit) per row (f32 [B]). */
  predict(batch: ModelBatch): Promise<Float32Array>
  /**
   * Name of the first dense tensor (w{l}/b{l}) holding NaN or ±Infinity, else undefined. Needed
   * besides the loss check: WGSL's max(0, NaN) may return 0, so a ReLU can hide NaN weights
   * from the loss. (Embeddings are not scanned: too large to read back at every evaluation.)
   */
  firstNonFinite(): Promise<string | undefined>
  /** Copies of the weights and optimizer state. */
  exportState(): Promise<ModelState>
  /** Replaces weights and optimizer state (same shape and optimizers). */
  importState(state: ModelState): Promise<void>
  destroy(): void
}

/** The CPU reference as a backend (synchronous maths behind the async interface). */
export class RefBackend implements RecsysBackend {
  private losses: number[] = []
  readonly maxBatch = Number.MAX_SAFE_INTEGER

  constructor(readonly shape: ModelShape, private readonly params: RecsysParams, private state: ModelState) {}

  async step(batch: ModelBatch, lr: StepLr): Promise<void> {
    const { weights, opt } = this.state
    const a = modelForward(this.shape, weights, batch)
    this.losses.push(meanLoss(a))
    applyOptimizers(this.shape, this.params, weights, opt, modelBackward(this.shape, weights, batch, a), lr)
  }

  async takeLosses(): Promise<number[]> {
    const out = this.losses
    this.losses = []
    return out
  }

  async predict(batch: ModelBatch): Promise<Float32Array> {
    return modelForward(this.shape, this.state.weights, batch).probs
  }

  async firstNonFinite(): Promise<string | undefined> {
    return firstNonFiniteTensor(this.state.weights.dense)
  }

  async exportState(): Promise<ModelState> {
    return cloneState(this.state)
  }

  async importState(state: ModelState): Promise<void> {
    this.state = cloneState(state)
  }

  destroy(): void {}
}

/** A deep copy of weights and optimizer state. */
export function cloneState(s: ModelState): ModelState {
  const o = s.opt
  return {
    weights: { embeddings: s.weights.embeddings.slice(), dense: s.weights.dense.map(t => t.slice()) },
    opt: {
      step: o.step, m: o.m.map(t => t.slice()), v: o.v.map(t => t.slice()),
      accum: o.accum?.slice(), embM: o.embM?.slice(), embV: o.embV?.slice(), rowStep: o.rowStep?.slice(),
    },
  }
}

/** A CPU reference backend with fresh seeded weights (init.ts) and zeroed optimizer state. */
export function createRefBackend(shape: ModelShape, params: RecsysParams): RefBackend {
  return new RefBackend(shape, params, { weights: initWeights(shape, params.seed), opt: initOptimizerState(shape, params) })
}

/** `w{l}` / `b{l}` name of the first tensor (layout order) with a NaN or infinite element. */
export function firstNonFiniteTensor(dense: readonly Float32Array[]): string | undefined {
  const k = dense.findIndex(t => t.some(x => !Number.isFinite(x)))
  return k < 0 ? undefined : `${k % 2 === 0 ? 'w' : 'b'}${k >> 1}`
}
