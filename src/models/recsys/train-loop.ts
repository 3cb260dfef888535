/**
 * The recommender's training loop, backend-agnostic: epochs of loader batches (seeded shuffle
 * per epoch), lr schedule, a metrics read-back and validation every `eval_every` steps and at
 * the end of every epoch (AUC, logloss, calibration, grouped AUC; metrics.ts), early stopping on
 * the chosen validation metric (params.early_stopping_metric), and a stop-anywhere state (LoopState) that a
 * checkpoint stores so a resumed run continues exactly where this one stopped. With
 * params.restore_best, each improving evaluation keeps the weights (BestWeights below) and a
 * finished run ends holding the best evaluation's weights, not the last step's. Every run reports
 * where its wall time went (LoopTiming: input wait, featurize, steps, uploads, GPU waits,
 * evaluation, read-backs, timestamp-query GPU time).
 */
import type { Cursor } from '../../data/types.ts'
import { validMetrics } from './metrics.ts'
import { maximize } from '../../eval/metrics.ts'
import type { BackendTiming, RecsysBackend } from './backend.ts'
import { sliceBatch, type EpochStream, type TrainSource } from './data.ts'
import { stepLr } from './optimizer.ts'
import type { ModelBatch, ModelWeights, RecsysParams } from './types.ts'

/** Where the loop stands; JSON-serialisable (checkpoint header). */
export interface LoopState {
  epoch: number
  /** Updates applied so far. */
  step: number
  /** Loader cursor after the last trained batch of `epoch` (undefined: the epoch's start). */
  cursor?: Cursor
  /**
   * Best value so far of the early-stopping metric (params.early_stopping_metric; AUC by default,
   * hence the name, which checkpoints store); null before the first evaluation with validation rows.
   */
  bestAuc: number | null
  bestStep: number
  /** Evaluations since the best one. */
  badRounds: number
}

/** One row of metrics.csv. */
export interface MetricRow {
  step: number
  epoch: number
  trainLoss: number
  validAuc?: number
  validLogloss?: number
  /** Grouped AUC over params.gauc_group (metrics.ts); only with a group column. */
  validGauc?: number
  /** Mean prediction / positive rate. */
  validCalibration?: number
  lr: number
  elapsedMs: number
}

/**
 * Where the loop's wall time went, seconds. input_wait + step + eval + readback ≈ loop (the rest
 * is bookkeeping); featurize is part of input_wait, upload and gpu_wait part of step.
 */
export interface LoopTiming {
  /** Wall time of the loop (first batch awaited → last evaluation done). */
  loop_s: number
  /** Awaiting the next training batch: the loader's gather and featurize (data.ts). */
  input_wait_s: number
  /** Of input_wait_s: featurize (hashed values → embedding rows, normalised dense inputs). */
  featurize_s: number
  /** backend.step: embedding segments, host→device uploads, encode, submit, waiting for a free input set. */
  step_s: number
  /** Of step_s: host→device uploads (writeBuffer; 0 for the CPU reference). */
  upload_s: number
  /** Of step_s: waiting for the GPU to finish the step that last used the input set (the GPU behind the host). */
  gpu_wait_s: number
  /** Validation predictions and their metrics, at each evaluation. */
  eval_s: number
  /** Loss read-backs and divergence scans at each evaluation (waiting out the steps still queued included). */
  readback_s: number
  /** GPU time of the training steps' compute passes by timestamp queries; absent without 'timestamp-query'. */
  gpu_s?: number
}

/** All-zero timing. */
export function zeroTiming(): LoopTiming {
  return {
    loop_s: 0,
    input_wait_s: 0,
    featurize_s: 0,
    step_s: 0,
    upload_s: 0,
    gpu_wait_s: 0,
    eval_s: 0,
    readback_s: 0,
  }
}

/** a + b, field by field (gpu_s present when either has it). */
export function addTiming(a: LoopTiming, b: LoopTiming): LoopTiming {
  const out = zeroTiming()
  for (const k of Object.keys(out) as Array<keyof LoopTiming>) out[k] = (a[k] ?? 0) + (b[k] ?? 0)
  if (a.gpu_s !== undefined || b.gpu_s !== undefined) out.gpu_s = (a.gpu_s ?? 0) + (b.gpu_s ?? 0)
  return out
}

/** Options of trainLoop. */
export interface TrainLoopOptions {
  params: RecsysParams
  backend: RecsysBackend
  /** The batches (the loop reads only the step count and the epoch streams). */
  source: Pick<TrainSource, 'stepsPerEpoch' | 'open'>
  /** Validation rows (n = 0: no validation, no early stopping). */
  valid?: ModelBatch
  /** Continue from this state (a checkpoint's); the backend must hold the matching weights. */
  resume?: LoopState
  /** Stop (unfinished) once this many updates are applied in total. */
  stopAtStep?: number
  onMetrics?: (row: MetricRow) => void
  /**
   * Called at the end of each epoch with that epoch's last metrics row (an evaluation is made
   * there when the epoch did not end on one); 'stop' ends training now (a sweep's rung said so).
   */
  onEpochEnd?: (epoch: number, row: MetricRow) => void | 'stop'
  /**
   * Asked after every step with the steps done; true ends training there (a user's Stop): the
   * loop evaluates unless that step was just evaluated and returns finished, like early stopping.
   */
  shouldStop?: (step: number) => boolean
}

/** What trainLoop returns. */
export interface TrainLoopResult {
  state: LoopState
  metrics: MetricRow[]
  /** False when stopped by stopAtStep. */
  finished: boolean
  stoppedEarly: boolean
  samples: number
  /** Where the wall time went. */
  timing: LoopTiming
  /**
   * The metrics row whose weights the backend holds at the end: the best evaluation's when
   * restore_best put them back, else undefined (the last step's weights).
   */
  restored?: MetricRow
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
  const clock = new LoopClock(o.backend)
  let samples = 0,
    lastEval = state.step
  const best = p.restore_best && o.valid && o.valid.n > 0 ? new BestWeights(o.backend) : undefined
  const report = async (epoch: number): Promise<boolean> => {
    const row = await measure(o, state, epoch, stepLr(Math.max(0, state.step - 1), p, totalSteps).dense, t0, clock)
    lastEval = state.step
    metrics.push(row)
    o.onMetrics?.(row)
    const stop = updateEarlyStopping(state, row, p)
    if (best && state.bestStep === row.step && state.badRounds === 0) await best.keep()
    return stop
  }
  const done = async (stoppedEarly: boolean): Promise<TrainLoopResult> => {
    const restored = best ? await restoreBest(best, state, metrics, p.early_stopping_metric) : undefined
    return { state, metrics, finished: true, stoppedEarly, samples, timing: clock.finish(), restored }
  }
  for (; state.epoch < p.epochs; state.epoch++, state.cursor = undefined) {
    const stream = o.source.open(state.epoch, state.cursor)
    const it = stream.batches()[Symbol.asyncIterator]()
    try {
      for (;;) {
        const next = await clock.time('input_wait_s', () => it.next())
        if (next.done) break
        const batch = next.value
        state.cursor = stream.cursor()
        if (batch.n === 0) continue
        await clock.time('step_s', () => o.backend.step(batch, stepLr(state.step, p, totalSteps)))
        state.step++
        samples += batch.n
        if (state.step % p.eval_every === 0 && (await report(state.epoch))) return await done(true)
        if (o.shouldStop?.(state.step)) {
          if (state.step > lastEval) await report(state.epoch)
          return await done(true)
        }
        if (o.stopAtStep !== undefined && state.step >= o.stopAtStep)
          return { state, metrics, finished: false, stoppedEarly: false, samples, timing: clock.finish() }
      }
    } finally {
      clock.addStream(stream)
      await it.return?.()
      await stream.close()
    }
    if (await epochEnd(o.onEpochEnd, state, metrics, lastEval, report)) return await done(true)
  }
  if (state.step > lastEval) await report(p.epochs - 1)
  return done(false)
}

/**
 * The loop's time split (LoopTiming): host spans by performance.now(), plus the backend's own
 * counters (uploads, waits for the GPU, timestamp-query GPU time) and each epoch stream's
 * featurize time, both taken as differences over the loop.
 */
class LoopClock {
  private readonly t0 = performance.now()
  private readonly acc = zeroTiming()
  private readonly backendStart: BackendTiming | undefined

  constructor(private readonly backend: RecsysBackend) {
    this.backendStart = backend.timing?.()
  }

  /** Runs `f`, adding its wall time to `part`. */
  async time<T>(part: 'input_wait_s' | 'step_s' | 'eval_s' | 'readback_s', f: () => Promise<T>): Promise<T> {
    const t = performance.now()
    try {
      return await f()
    } finally {
      this.acc[part] += (performance.now() - t) / 1000
    }
  }

  /** Adds a closed-over epoch stream's featurize time. */
  addStream(stream: EpochStream): void {
    this.acc.featurize_s += (stream.featurizeMs?.() ?? 0) / 1000
  }

  /** The split so far. */
  finish(): LoopTiming {
    const out = { ...this.acc, loop_s: (performance.now() - this.t0) / 1000 }
    const now = this.backend.timing?.()
    if (now && this.backendStart) {
      out.upload_s = (now.uploadMs - this.backendStart.uploadMs) / 1000
      out.gpu_wait_s = (now.waitMs - this.backendStart.waitMs) / 1000
      if (now.gpuMs !== undefined) out.gpu_s = (now.gpuMs - (this.backendStart.gpuMs ?? 0)) / 1000
    }
    return out
  }
}

/**
 * Puts the best evaluation's weights back unless the last evaluation is the best. Returns that
 * evaluation's row, or undefined when nothing was restored (no evaluation, last is best, or the
 * best came before a resume whose checkpoint kept no weights).
 */
async function restoreBest(
  best: BestWeights,
  state: LoopState,
  metrics: MetricRow[],
  metric: RecsysParams['early_stopping_metric'],
): Promise<MetricRow | undefined> {
  if (state.bestAuc === null || metrics.at(-1)?.step === state.bestStep) return undefined
  if (!(await best.restore())) return undefined
  return (
    metrics.find(m => m.step === state.bestStep) ?? {
      step: state.bestStep,
      epoch: -1,
      trainLoss: NaN,
      [metric === 'gauc' ? 'validGauc' : metric === 'logloss' ? 'validLogloss' : 'validAuc']: state.bestAuc,
      lr: NaN,
      elapsedMs: NaN,
    }
  )
}

/**
 * The end of an epoch: evaluates unless the epoch ended on an evaluation (every run does, with or
 * without a hook, so a sweep trial, which reports each epoch, evaluates exactly where the same
 * training run does), then asks `hook`; true (stop) when early stopping fired or the hook said
 * 'stop', with the state at the next epoch's start.
 */
async function epochEnd(
  hook: TrainLoopOptions['onEpochEnd'],
  state: LoopState,
  metrics: MetricRow[],
  lastEval: number,
  report: (epoch: number) => Promise<boolean>,
): Promise<boolean> {
  const early = state.step > lastEval ? await report(state.epoch) : false
  const row = metrics[metrics.length - 1]
  const stop = early || (hook !== undefined && row !== undefined && hook(state.epoch, row) === 'stop')
  if (stop) {
    state.epoch++
    state.cursor = undefined
  }
  return stop
}

/** Reads back the training losses and scans the weights (refusing NaN/±Infinity), then evaluates the validation rows. */
async function measure(
  o: TrainLoopOptions,
  state: LoopState,
  epoch: number,
  lr: number,
  t0: number,
  clock: LoopClock,
): Promise<MetricRow> {
  const losses = await clock.time('readback_s', async () => {
    const l = await o.backend.takeLosses()
    await refuseDivergence(o, state, l)
    return l
  })
  const trainLoss = losses.length ? losses.reduce((s, l) => s + l, 0) / losses.length : NaN
  const row: MetricRow = { step: state.step, epoch, trainLoss, lr, elapsedMs: performance.now() - t0 }
  const valid = o.valid
  if (valid && valid.n > 0) {
    const m = await clock.time('eval_s', async () =>
      validMetrics(await predictAll(o.backend, valid), valid.labels, valid.groups),
    )
    row.validAuc = m.auc
    row.validLogloss = m.logloss
    row.validCalibration = m.calibration
    if (m.gauc !== undefined) row.validGauc = m.gauc
  }
  return row
}

/**
 * Throws naming the first non-finite loss and every non-finite weight tensor (dense w{l}/b{l} in
 * layout order, then 'embeddings') and the learning rates. Both are checked: a NaN loss alone
 * does not say where, and NaN weights can hide from the loss (WGSL's max(0, NaN) may return 0).
 */
async function refuseDivergence(o: TrainLoopOptions, state: LoopState, losses: number[]): Promise<void> {
  const bad = losses.findIndex(l => !Number.isFinite(l))
  const first = o.backend.nonFiniteTensors ? undefined : await o.backend.firstNonFinite()
  const tensors = o.backend.nonFiniteTensors ? await o.backend.nonFiniteTensors() : first ? [first] : []
  if (bad < 0 && tensors.length === 0) return
  const what = [
    ...(bad >= 0 ? [`loss is ${losses[bad]} at step ${state.step - losses.length + bad + 1}`] : []),
    ...tensors.filter(t => t !== 'embeddings').map(t => `dense weight ${t} has NaN/infinite values`),
    ...(tensors.includes('embeddings') ? ["embedding table 'embeddings' has NaN/infinite values"] : []),
  ].join('; ')
  throw new RangeError(
    `training diverged: ${what} (checked at step ${state.step}); lower lr (lr = ${o.params.lr}, embedding_lr = ${o.params.embedding_lr})`,
  )
}

/** σ(logit) for every row of `data`, in chunks of the backend's largest batch. */
export async function predictAll(backend: RecsysBackend, data: ModelBatch): Promise<Float32Array> {
  const out = new Float32Array(data.n)
  const dims = { sparse: backend.shape.sparse, dense: backend.shape.dense, bags: backend.shape.bags }
  for (let start = 0; start < data.n; start += backend.maxBatch) {
    const end = Math.min(data.n, start + backend.maxBatch)
    out.set(await backend.predict(sliceBatch(data, start, end, dims)), start)
  }
  return out
}

/** The early-stopping metric's value in `row` (undefined without validation). */
export function stoppingValue(row: MetricRow, metric: RecsysParams['early_stopping_metric']): number | undefined {
  return metric === 'gauc' ? row.validGauc : metric === 'logloss' ? row.validLogloss : row.validAuc
}

/** Records the evaluation; true when early_stopping_rounds evaluations passed without a better metric. */
function updateEarlyStopping(state: LoopState, row: MetricRow, p: RecsysParams): boolean {
  const v = stoppingValue(row, p.early_stopping_metric)
  const rounds = p.early_stopping_rounds
  if (v === undefined || Number.isNaN(v)) return false
  const better = state.bestAuc === null || (maximize(p.early_stopping_metric) ? v > state.bestAuc : v < state.bestAuc)
  if (better) {
    state.bestAuc = v
    state.bestStep = row.step
    state.badRounds = 0
    return false
  }
  state.badRounds++
  return rounds > 0 && state.badRounds >= rounds
}

/**
 * How many evaluations a run has made by `step`: one every `evalEvery` steps and one at each
 * epoch's end (once where the two coincide), with `stepsPerEpoch` steps an epoch. At the last
 * step it is the run's total; at an evaluation's step, that evaluation's 1-based index.
 */
export function evaluationsUpTo(step: number, stepsPerEpoch: number, evalEvery: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  const both = (evalEvery / gcd(evalEvery, stepsPerEpoch)) * stepsPerEpoch
  return Math.floor(step / evalEvery) + Math.floor(step / stepsPerEpoch) - Math.floor(step / both)
}

/*
 * restore_best for any backend: keep the weights of each improving evaluation and put them back
 * at the end of the run. Backends with keepWeights/restoreKeptWeights (the CPU reference, the GPU
 * model's on-device shadow buffers) keep them themselves; for others this keeps a CPU copy from
 * exportState (a full read-back per improvement, so only a fallback).
 */

/** The kept weights of one run. */
export class BestWeights {
  private cpu?: ModelWeights

  constructor(private readonly backend: RecsysBackend) {}

  /** Keeps the backend's current weights (called at an evaluation that improved the early-stopping metric). */
  async keep(): Promise<void> {
    if (this.backend.keepWeights) await this.backend.keepWeights()
    else this.cpu = (await this.backend.exportState()).weights
  }

  /** Puts the kept weights back (optimizer state untouched); false when none were kept. */
  async restore(): Promise<boolean> {
    if (this.backend.restoreKeptWeights) return this.backend.restoreKeptWeights()
    if (!this.cpu) return false
    const { opt } = await this.backend.exportState()
    await this.backend.importState({ weights: this.cpu, opt })
    return true
  }
}
