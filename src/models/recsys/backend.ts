/**
 * The small interface the training loop drives, so the CPU reference and the GPU model are
 * interchangeable, plus the CPU reference backend. B = batch rows.
 */
import { initOptimizerState, initWeights } from './init.ts'
import { denseTensors } from './layout.ts'
import { meanLoss, modelBackward, modelForward } from './model-ref.ts'
import { applyOptimizers } from './optimizer.ts'
import type { ModelBatch, ModelShape, ModelWeights, OptimizerState, RecsysParams, StepLr } from './types.ts'

/** Weights plus optimizer state: everything a checkpoint holds besides the loop's position. */
export interface ModelState {
  weights: ModelWeights
  opt: OptimizerState
}

/** A backend's cumulative step counters, ms (train-loop.ts LoopTiming takes differences). */
export interface BackendTiming {
  /** Host→device uploads of the steps. */
  uploadMs: number
  /** Steps waiting for the GPU (an input set still in use). */
  waitMs: number
  /** GPU time of the steps by timestamp queries, as far as read back; absent without 'timestamp-query'. */
  gpuMs?: number
}

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
   * Name of the first weight tensor ('embeddings', then w{l}/b{l}) holding NaN or ±Infinity, else
   * undefined. Needed besides the loss check: WGSL's max(0, NaN) may return 0, so a ReLU can
   * hide NaN weights from the loss. The GPU model scans on the device (nonfinite_count kernel).
   */
  firstNonFinite(): Promise<string | undefined>
  /** Names of every weight tensor holding NaN or ±Infinity (same order); optional, the loop falls back to firstNonFinite. */
  nonFiniteTensors?(): Promise<string[]>
  /**
   * Keeps a copy of the current weights (not optimizer state) for restore_best, or of `w` (a
   * checkpoint's kept weights on resume). Optional: without it the loop (train-loop.ts BestWeights) keeps
   * exportState's weights on the CPU.
   */
  keepWeights?(w?: ModelWeights): Promise<void>
  /** Puts the kept weights back; false (nothing changed) when none were kept. */
  restoreKeptWeights?(): Promise<boolean>
  /** Copies of the kept weights (for a checkpoint), undefined when none were kept. */
  keptWeights?(): Promise<ModelWeights | undefined>
  /** Cumulative step counters (optional: the loop then reports uploads and GPU waits as 0). */
  timing?(): BackendTiming
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

  constructor(
    readonly shape: ModelShape,
    protected readonly params: RecsysParams,
    protected state: ModelState,
  ) {}

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
    return firstNonFiniteTensor(this.shape, this.state.weights.dense, this.state.weights.embeddings)
  }

  async nonFiniteTensors(): Promise<string[]> {
    const { embeddings, dense } = this.state.weights
    const bad = (t: Float32Array): boolean => t.some(x => !Number.isFinite(x))
    const names = denseTensors(this.shape).map(t => t.name)
    return [...(bad(embeddings) ? ['embeddings'] : []), ...dense.flatMap((t, k) => (bad(t) ? [names[k]] : []))]
  }

  async keepWeights(w?: ModelWeights): Promise<void> {
    this.kept = cloneWeights(w ?? this.state.weights)
  }

  async keptWeights(): Promise<ModelWeights | undefined> {
    return this.kept && cloneWeights(this.kept)
  }

  async restoreKeptWeights(): Promise<boolean> {
    if (!this.kept) return false
    this.state.weights = cloneWeights(this.kept)
    return true
  }

  private kept?: ModelWeights

  async exportState(): Promise<ModelState> {
    return cloneState(this.state)
  }

  async importState(state: ModelState): Promise<void> {
    this.state = cloneState(state)
  }

  destroy(): void {}
}

/** A deep copy of weights. */
export function cloneWeights(w: ModelWeights): ModelWeights {
  return { embeddings: w.embeddings.slice(), dense: w.dense.map(t => t.slice()) }
}

/** A deep copy of weights and optimizer state. */
export function cloneState(s: ModelState): ModelState {
  const o = s.opt
  return {
    weights: { embeddings: s.weights.embeddings.slice(), dense: s.weights.dense.map(t => t.slice()) },
    opt: {
      step: o.step,
      m: o.m.map(t => t.slice()),
      v: o.v.map(t => t.slice()),
      accum: o.accum?.slice(),
      embM: o.embM?.slice(),
      embV: o.embV?.slice(),
      rowStep: o.rowStep?.slice(),
    },
  }
}

/** A CPU reference backend with fresh seeded weights (init.ts) and zeroed optimizer state. */
export function createRefBackend(shape: ModelShape, params: RecsysParams): RefBackend {
  return new RefBackend(shape, params, {
    weights: initWeights(shape, params.seed),
    opt: initOptimizerState(shape, params),
  })
}

/** 'embeddings' (when given and not finite) or the layout name (`c{k}.w`, `w{l}`, `b{l}`, …) of the first dense tensor of `shape` with a NaN or infinite element. */
export function firstNonFiniteTensor(
  shape: ModelShape,
  dense: readonly Float32Array[],
  embeddings?: Float32Array,
): string | undefined {
  if (embeddings?.some(x => !Number.isFinite(x))) return 'embeddings'
  const k = dense.findIndex(t => t.some(x => !Number.isFinite(x)))
  return k < 0 ? undefined : denseTensors(shape)[k].name
}
