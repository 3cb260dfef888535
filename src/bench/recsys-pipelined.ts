/**
 * The `recsys` suite's pipelined measurement: our GPU model driven as trainLoop drives it — steps
 * submitted back to back while the loader prepares the next batch (GpuModel alternates two input
 * sets, so an upload waits only for the step two back), one loss read-back every `readEvery`
 * steps (the loop's eval_every; no validation pass). Timed: wall clock from the first timed step
 * to the GPU finishing the last one (a final read-back), and how much of it was spent awaiting
 * the loader. Warm-up steps run first and are waited out, untimed.
 */
import type { PipelineCache } from '../gpu/pipeline-cache.ts'
import type { EpochStream } from '../models/recsys/data.ts'
import { initOptimizerState } from '../models/recsys/init.ts'
import { GpuModel } from '../models/recsys/model-gpu.ts'
import type { ModelBatch, ModelShape, ModelWeights, RecsysParams, StepLr } from '../models/recsys/types.ts'

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
  params: RecsysParams
  init: ModelWeights
  stream: EpochStream
  warmup: number
  steps: number
  /** Loss read-back period in steps. */
  readEvery: number
  lr: StepLr
}

/** Trains `warmup + steps` batches of `stream` pipelined on a fresh GpuModel (naive matmuls, as the split run). */
export async function runPipelined(o: PipelinedOptions): Promise<PipelinedResult> {
  const state = { weights: { embeddings: o.init.embeddings.slice(), dense: o.init.dense.map(d => d.slice()) }, opt: initOptimizerState(o.shape, o.params) }
  const model = await GpuModel.create(o.cache, o.shape, o.params, state, { matmul: 'naive' })
  const it = o.stream.batches()[Symbol.asyncIterator]()
  const next = async (i: number): Promise<ModelBatch> => {
    const r = await it.next()
    if (r.done) throw new RangeError(`recsys bench (pipelined): the clicks epoch ended after ${i} batches`)
    return r.value
  }
  try {
    for (let i = 0; i < o.warmup; i++) await model.step(await next(i), o.lr)
    await model.takeLosses() // waits for the warm-up steps: the clock starts on an idle GPU
    let rows = 0, inputMs = 0
    const t0 = performance.now()
    for (let i = 0; i < o.steps; i++) {
      const w = performance.now()
      const batch = await next(o.warmup + i)
      inputMs += performance.now() - w
      await model.step(batch, o.lr)
      rows += batch.n
      if ((i + 1) % o.readEvery === 0) await model.takeLosses()
    }
    await model.takeLosses()
    return { rows, steps: o.steps, wallMs: performance.now() - t0, inputMs }
  } finally {
    await o.stream.close()
    model.destroy()
  }
}
