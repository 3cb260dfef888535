/**
 * The `recsys` suite's pipelined measurement: the product's training loop itself (trainLoop,
 * src/models/recsys/train-loop.ts) driving a GpuModel created as `train` creates it (the trainer's
 * default kernels). Steps are submitted back to back while the loader prepares the next batch
 * (GpuModel alternates two input sets, so an upload waits only for the step two back); every
 * `readEvery` steps the loop makes its evaluation: the loss read-back and the divergence scan of
 * the weights (no validation rows here). Timed: wall clock from the first timed step to the GPU
 * finishing the last one (a final read-back), and how much of it the loop spent awaiting the
 * loader. Warm-up steps run first through the same loop and are waited out, untimed. Not
 * included: the in-memory recovery checkpoints `train` takes between its segments (the
 * `scaleout` suite and `train`'s samples_per_second time whole runs).
 */
import type { Cursor } from '../src/data/types.ts'
import type { PipelineCache } from '../src/gpu/pipeline-cache.ts'
import type { EpochStream, TrainSource } from '../src/models/recsys/data.ts'
import { initOptimizerState } from '../src/models/recsys/init.ts'
import { GpuModel } from '../src/models/recsys/model-gpu.ts'
import { initialLoopState, trainLoop } from '../src/models/recsys/train-loop.ts'
import type { ModelBatch, ModelShape, ModelWeights, RecsysParams } from '../src/models/recsys/types.ts'

/** What a pipelined run measured. */
export interface PipelinedResult {
  /** Training rows of the timed steps. */
  rows: number
  steps: number
  /** Wall time of the timed steps, ms (first submit → last step's losses read back). */
  wallMs: number
  /** Time spent awaiting the next loader batch inside wallMs, ms. */
  inputMs: number
}

/** Options of runPipelined. */
export interface PipelinedOptions {
  cache: PipelineCache
  shape: ModelShape
  /** The run's parameters (lrs and schedule as `train` applies them); epochs and eval_every are set here. */
  params: RecsysParams
  init: ModelWeights
  stream: EpochStream
  warmup: number
  steps: number
  /** Loss read-back period in steps (the loop's eval_every). */
  readEvery: number
}

/** Trains `warmup + steps` batches of `stream` through trainLoop on a fresh GpuModel. */
export async function runPipelined(o: PipelinedOptions): Promise<PipelinedResult> {
  const state = {
    weights: { embeddings: o.init.embeddings.slice(), dense: o.init.dense.map(d => d.slice()) },
    opt: initOptimizerState(o.shape, o.params),
  }
  const model = await GpuModel.create(o.cache, o.shape, o.params, state)
  const total = o.warmup + o.steps
  const source = continuingSource(o.stream, total)
  const params: RecsysParams = {
    ...o.params,
    epochs: 1,
    eval_every: o.readEvery,
    early_stopping_rounds: 0,
    restore_best: false,
  }
  const ended = (steps: number): RangeError =>
    new RangeError(`recsys bench (pipelined): the clicks epoch ended after ${steps} batches`)
  try {
    // stopAtStep is checked after a step: with no warm-up there is nothing to run.
    const warm =
      o.warmup > 0
        ? await trainLoop({ params, backend: model, source, stopAtStep: o.warmup })
        : { state: initialLoopState(), finished: false }
    if (warm.finished) throw ended(warm.state.step)
    await model.takeLosses() // waits for the warm-up steps: the clock starts on an idle GPU
    source.inputMs = 0
    const t0 = performance.now()
    const timed = await trainLoop({ params, backend: model, source, resume: warm.state, stopAtStep: total })
    if (timed.finished) throw ended(timed.state.step)
    await model.takeLosses()
    return {
      rows: timed.samples,
      steps: timed.state.step - warm.state.step,
      wallMs: performance.now() - t0,
      inputMs: source.inputMs,
    }
  } finally {
    await o.stream.close()
    model.destroy()
  }
}

/**
 * One epoch of `stream` as a TrainSource the loop can open more than once (warm-up, then the
 * timed part): each open continues where the last stopped (the loop's cursor is not needed), and
 * the time spent awaiting the stream's next batch is added to `inputMs`. Closing an opened stream
 * leaves `stream` open; runPipelined closes it.
 */
function continuingSource(
  stream: EpochStream,
  steps: number,
): Pick<TrainSource, 'stepsPerEpoch' | 'open'> & { inputMs: number } {
  const it = stream.batches()[Symbol.asyncIterator]()
  const src = {
    inputMs: 0,
    stepsPerEpoch: steps,
    open: (): EpochStream => ({
      batches: () => ({
        [Symbol.asyncIterator]: () => ({
          next: async (): Promise<IteratorResult<ModelBatch>> => {
            const t = performance.now()
            const r = await it.next()
            src.inputMs += performance.now() - t
            return r
          },
        }),
      }),
      cursor: (): Cursor => stream.cursor(),
      close: async () => {},
    }),
  }
  return src
}
