/**
 * Pure helpers of the `recsys` suite: workload sizes, the dense-weight transpose between our
 * layout ([OC × C]) and TF.js's Dense kernel ([C × OC]), the per-step time split, the model's
 * FLOPs per sample (roofline) and the end-to-end run's loop split.
 */
import { denseTensors } from '../src/models/recsys/layout.ts'
import type { LoopTiming } from '../src/models/recsys/train-loop.ts'
import type { ModelShape } from '../src/models/recsys/types.ts'

/** Workload of the recsys suite. */
export interface RecsysSizes {
  /** Rows per step (B). */
  batch: number
  /** Hidden layers of the MLP. */
  layers: number[]
  /** Embedding dim (D). */
  dim: number
  /** Untimed steps before the timed ones (pipeline compile, TF.js shader compile). */
  warmup: number
  /** Timed steps, each side. */
  steps: number
  /** Held-out rows scored for AUC (a prefix of the validation fraction). */
  validRows: number
  /** Row filter of the end-to-end `train` run (undefined: the whole table, one epoch). */
  e2eFilter?: string
  /** Square matmul edges of the roofline's matmul rate (the `device` suite's workload). */
  matmulSizes: number[]
}

/** Sizes of a full run on the software adapter (batch 1024, 64-32, D 16). */
export const RECSYS_SIZES: RecsysSizes = {
  batch: 1024,
  layers: [64, 32],
  dim: 16,
  warmup: 3,
  steps: 40,
  validRows: 8192,
  matmulSizes: [256, 512],
}

/** Smoke-run sizes (--quick). */
export const RECSYS_SIZES_QUICK: RecsysSizes = {
  batch: 256,
  layers: [64, 32],
  dim: 16,
  warmup: 1,
  steps: 3,
  validRows: 1024,
  e2eFilter: 'hour < 2',
  matmulSizes: [64],
}

/** Where one of our steps spent its time, ms. */
export interface StepSplit {
  /** Waiting for the next batch from the loader (featurize included). */
  inputMs: number
  /** CPU side of model.step: segments, uploads, encode, submit. */
  submitMs: number
  /** Submit → queue.onSubmittedWorkDone. */
  gpuMs: number
  /** Loss readback (takeLosses), on the steps that do it; 0 otherwise. */
  metricsMs: number
}

/** Total wall time of one step, ms. */
export function stepTotal(s: StepSplit): number {
  return s.inputMs + s.submitMs + s.gpuMs + s.metricsMs
}

/** Share (0 … 1) of the summed step time spent in each part over `steps`. Throws on no steps. */
export function splitShares(steps: readonly StepSplit[]): StepSplit {
  if (steps.length === 0) throw new RangeError('splitShares: no steps')
  const sum = (k: keyof StepSplit): number => steps.reduce((a, s) => a + s[k], 0)
  const total = steps.reduce((a, s) => a + stepTotal(s), 0)
  const share = (k: keyof StepSplit): number => (total > 0 ? sum(k) / total : 0)
  return {
    inputMs: share('inputMs'),
    submitMs: share('submitMs'),
    gpuMs: share('gpuMs'),
    metricsMs: share('metricsMs'),
  }
}

/** Row-major [rows × cols] → [cols × rows] (our Dense weight [OC × C] → TF.js kernel [C × OC]). */
export function transpose(a: Float32Array, rows: number, cols: number): Float32Array<ArrayBuffer> {
  if (a.length !== rows * cols) throw new RangeError(`transpose: ${a.length} values for ${rows} × ${cols}`)
  const out = new Float32Array(rows * cols)
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c]
  return out
}

/** Samples per second of steps of `batch` rows taking `ms` each. */
export function samplesPerSecond(batch: number, ms: number): number {
  if (!(ms > 0)) throw new RangeError(`samplesPerSecond: step time ${ms} ms`)
  return (batch * 1000) / ms
}

/**
 * Forward matmul FLOPs per sample of `shape`: 2 · Σ of the weight matrices' sizes (MLP w{l},
 * cross c{k}.w or c{k}.v and c{k}.u), i.e. one multiply and one add per weight. Embedding
 * gathers, biases, activations, the loss and the optimizers are not counted.
 */
export function forwardMatmulFlops(shape: ModelShape): number {
  return 2 * denseTensors(shape).reduce((s, t) => (t.cols > 1 ? s + t.length : s), 0)
}

/** Training FLOPs per sample: forward + backward ≈ 3 × the forward matmul FLOPs (dX and dW each cost a forward). */
export function trainFlopsPerSample(shape: ModelShape): number {
  return 3 * forwardMatmulFlops(shape)
}

/** Where an end-to-end run's loop time went (LoopTiming), as shares (0 … 1) of loop_s, in print order. */
export function loopShares(t: LoopTiming): Array<[part: string, share: number]> {
  const of = (x: number): number => (t.loop_s > 0 ? x / t.loop_s : 0)
  const parts: Array<[string, number]> = [
    ['input wait (loader gather + featurize)', of(t.input_wait_s)],
    ['  of which featurize', of(t.featurize_s)],
    ['step (segments, uploads, encode, submit, waiting for the GPU)', of(t.step_s)],
    ['  of which host→device uploads', of(t.upload_s)],
    ['  of which waiting for the GPU (input set busy)', of(t.gpu_wait_s)],
    ['evaluation (validation predictions + metrics)', of(t.eval_s)],
    ['read-backs (losses + divergence scan, waiting out queued steps)', of(t.readback_s)],
  ]
  if (t.gpu_s !== undefined) parts.push(['GPU time of the steps (timestamp queries)', of(t.gpu_s)])
  return parts
}
