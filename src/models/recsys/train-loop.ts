/**
 * The recommender's training loop, backend-agnostic: epochs of loader batches (seeded shuffle
 * per epoch), lr schedule, a metrics read-back and validation every `eval_every` steps (AUC,
 * logloss), early stopping on validation AUC, and a stop-anywhere state (LoopState) that a
 * checkpoint stores so a resumed run continues exactly where this one stopped.
 */
import type { Cursor } from '../../data/types.ts'
import { auc, evaluate } from '../gbdt/metrics.ts'
import type { RecsysBackend } from './backend.ts'
import { sliceBatch, type TrainSource } from './data.ts'
import { stepLr } from './optimizer.ts'
import type { ModelBatch, RecsysParams } from './types.ts'

/** Where the loop stands; JSON-serialisable (checkpoint header). */
export interface LoopState {
  epoch: number
  /** Updates applied so far. */
  step: number
  /** Loader cursor after the last trained batch of `epoch` (undefined: the epoch's start). */
  cursor?: Cursor
  /** Best validation AUC so far; null before the first evaluation with validation rows. */
  bestAuc: number | null
  bestStep: number
  /** Evaluations since the best one. */
  badRounds: number
}

/** One row of metrics.csv. */
export interface MetricRow { step: number; epoch: number; trainLoss: number; validAuc?: number; validLogloss?: number; lr: number; elapsedMs: number }

/** Options of trainLoop. */
export interface TrainLoopOptions {
  params: RecsysParams
  backend: RecsysBackend
  source: TrainSource
  /** Validation rows (n = 0: no validation, no early stopping). */
  valid?: ModelBatch
  /** Continue from this state (a checkpoint's); the backend must hold the matching weights. */
  resume?: LoopState
  /** Stop (unfinished) once this many updates are applied in total. */
  stopAtStep?: number
  onMetrics?: (row: MetricRow) => void
}

/** What trainLoop returns. */
export interface TrainLoopResult {
  state: LoopState
  metrics: MetricRow[]
  /** False when stopped by stopAtStep. */
  finished: boolean
  stoppedEarly: boolean
  samples: number
}

/** A fresh loop state. */
export function initialLoopState(): LoopState {
  return { epoch: 0, step: 0, bestAuc: null, bestStep: 0, badRounds: 0 }
}

/** Trains until the last epoch ends, early stopping fires or `stopAtStep` is reached. */
export async function trainLoop(o: TrainLoopOptions): Promise<TrainLoopResult> {
  const p = o.params
  const state: LoopState = structuredClone(o.resume ?? initialLoopState())
  const totalSteps = p.epochs * o.source.stepsPerEpoch
  const metrics: MetricRow[] = []
  const t0 = performance.now()
  let samples = 0, lastEval = state.step
  const report = async (epoch: number): Promise<boolean> => {
    const row = await measure(o, state, epoch, stepLr(Math.max(0, state.step - 1), p, totalSteps).dense, t0)
    lastEval = state.step
    metrics.push(row)
    o.onMetrics?.(row)
    return updateEarlyStopping(state, row, p.early_stopping_rounds)
  }
  for (; state.epoch < p.epochs; state.epoch++, state.cursor = undefined) {
    const stream = o.source.open(state.epoch, state.cursor)
    try {
      for await (const batch of stream.batches()) {
        state.cursor = stream.cursor()
        if (batch.n === 0) continue
        await o.backend.step(batch, stepLr(state.step, p, totalSteps))
        state.step++
        samples += batch.n
        if (state.step % p.eval_every === 0 && await report(state.epoch)) return { state, metrics, finished: true, stoppedEarly: true, samples }
        if (o.stopAtStep !== undefined && state.step >= o.stopAtStep) return { state, metrics, finished: false, stoppedEarly: false, samples }
      }
    } finally {
      await stream.close()
    }
  }
  if (state.step > lastEval) await report(p.epochs - 1)
  return { state, metrics, finished: true, stoppedEarly: false, samples }
}

/** Reads back the training losses (refusing NaN) and evaluates the validation rows. */
async function measure(o: TrainLoopOptions, state: LoopState, epoch: number, lr: number, t0: number): Promise<MetricRow> {
  const losses = await o.backend.takeLosses()
  const bad = losses.findIndex(l => !Number.isFinite(l))
  if (bad >= 0) {
    throw new RangeError(`training diverged: loss is ${losses[bad]} at step ${state.step - losses.length + bad + 1}; `
      + `lower lr (lr = ${o.params.lr}, embedding_lr = ${o.params.embedding_lr})`)
  }
  const tensor = await o.backend.firstNonFinite()
  if (tensor) throw new RangeError(`training diverged: dense weight ${tensor} has NaN/infinite values at step ${state.step}; lower lr (lr = ${o.params.lr}, embedding_lr = ${o.params.embedding_lr})`)
  const trainLoss = losses.length ? losses.reduce((s, l) => s + l, 0) / losses.length : NaN
  const row: MetricRow = { step: state.step, epoch, trainLoss, lr, elapsedMs: performance.now() - t0 }
  if (o.valid && o.valid.n > 0) {
    const probs = await predictAll(o.backend, o.valid)
    row.validAuc = auc(probs, o.valid.labels)
    row.validLogloss = evaluate('logloss', probs, o.valid.labels)
  }
  return row
}

/** σ(logit) for every row of `data`, in chunks of the backend's largest batch. */
export async function predictAll(backend: RecsysBackend, data: ModelBatch): Promise<Float32Array> {
  const out = new Float32Array(data.n)
  const dims = { sparse: backend.shape.sparse, dense: backend.shape.dense }
  for (let start = 0; start < data.n; start += backend.maxBatch) {
    const end = Math.min(data.n, start + backend.maxBatch)
    out.set(await backend.predict(sliceBatch(data, start, end, dims)), start)
  }
  return out
}

/** Records the evaluation; true when `rounds` evaluations passed without a better AUC. */
function updateEarlyStopping(state: LoopState, row: MetricRow, rounds: number): boolean {
  if (row.validAuc === undefined || Number.isNaN(row.validAuc)) return false
  if (state.bestAuc === null || row.validAuc > state.bestAuc) {
    state.bestAuc = row.validAuc
    state.bestStep = row.step
    state.badRounds = 0
    return false
  }
  state.badRounds++
  return rounds > 0 && state.badRounds >= rounds
}
