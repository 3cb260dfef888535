/**
 * The recommender on the GPU: the reference model's kernels over buffers allocated once. Each
 * step uploads the batch (rows, dense, labels and the CPU-computed embedding segments) into one
 * of two input sets, alternating, so the next upload never waits for the step still running on
 * the other set; then encodes forward, loss, backward and optimizer updates as one command
 * buffer. The loss sum of each step is copied into a history buffer that is read back only when
 * the loop asks for metrics (takeLosses), never per step. Bind groups and uniform buffers are
 * kept across steps (gpu/recorder.ts `encode`). As a rank (ranks.ts RankModel) the step splits:
 * `gradients` reads the local gradients back, `applyGradients` uploads the combined ones.
 */
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import { readBuffer } from '../../gpu/readback.ts'
import type { KernelCall } from '../../kernels/runner.ts'
import type { ModelState } from './backend.ts'
import type { CombinedGradients, RankGradients, RankModel } from './ranks.ts'
import { GpuRecorder } from '../../gpu/recorder.ts'
import { createModelBuffers, destroyModelBuffers, lossHistorySlots, RankBuffers, type InputSet, type ModelBuffers } from './gpu-buffers.ts'
import { NonFiniteScan } from './gpu-nonfinite.ts'
import { WeightShadow } from './gpu-shadow.ts'
import { backwardCalls, forwardCalls, optimizerCalls, trainCalls, type MatmulVariant } from './gpu-step.ts'
import { embeddingSegments } from './segments.ts'
import type { ModelBatch, ModelShape, ModelWeights, OptimizerState, RecsysParams, StepLr } from './types.ts'

/** Options of GpuModel.create. */
export interface GpuModelOptions {
  /** Largest batch (buffers are sized for it; default params.batch_size). */
  maxBatch?: number
  /** Matmul kernels (default 'tiled'). */
  matmul?: MatmulVariant
}

/** The GPU backend of the training loop (and a rank of a multi-rank run). */
export class GpuModel implements RankModel {
  private steps = 0
  private readonly calls: GpuRecorder
  /** Gradient read-back and combined-row buffers, allocated on the first `gradients` call. */
  private rank?: RankBuffers
  /** Rows of each step whose loss sum sits in lossHistory, oldest first. */
  private pendingRows: number[] = []
  private drained: number[] = []

  private constructor(
    private readonly cache: PipelineCache, readonly shape: ModelShape, private readonly params: RecsysParams,
    private readonly buffers: ModelBuffers, readonly maxBatch: number, private readonly matmul: MatmulVariant,
  ) {
    this.calls = new GpuRecorder(cache, { label: 'recsys step' })
  }

  /**
   * Allocates the buffers and uploads `state`. Throws RangeError naming batch_size (or buckets /
   * embedding_dim) when a buffer would exceed the adapter's limits.
   */
  static async create(cache: PipelineCache, shape: ModelShape, params: RecsysParams, state: ModelState, opts: GpuModelOptions = {}): Promise<GpuModel> {
    const maxBatch = opts.maxBatch ?? params.batch_size
    const buffers = createModelBuffers(cache.device, shape, params, maxBatch)
    const model = new GpuModel(cache, shape, params, buffers, maxBatch, opts.matmul ?? 'tiled')
    await model.importState(state)
    return model
  }

  async step(batch: ModelBatch, lr: StepLr): Promise<void> {
    this.checkBatch(batch)
    if (this.pendingRows.length >= lossHistorySlots(this.params)) await this.drain()
    const input = this.buffers.inputs[this.steps % 2]
    await input.done // the step that last read this set has finished: safe to overwrite
    const seg = embeddingSegments(batch.rows, this.shape.totalRows)
    this.upload(input, batch, seg)
    const t = this.steps + this.stepOffset + 1
    const calls = [
      ...forwardCalls(this.shape, this.buffers, input, batch.n, this.matmul),
      ...trainCalls(this.shape, this.params, this.buffers, input, batch.n, seg.uniq.length, t, lr, this.matmul),
    ]
    const slot = this.pendingRows.length
    this.submit(calls, enc => enc.copyBufferToBuffer(this.buffers.lossSum, 0, this.buffers.lossHistory, slot * 4, 4))
    input.done = this.cache.device.queue.onSubmittedWorkDone()
    this.pendingRows.push(batch.n)
    this.steps++
  }

  async gradients(batch: ModelBatch): Promise<RankGradients> {
    this.checkBatch(batch)
    const input = await this.idleInput()
    const seg = embeddingSegments(batch.rows, this.shape.totalRows)
    this.upload(input, batch, seg)
    const U = seg.uniq.length
    this.rank ??= new RankBuffers(this.cache.device, this.buffers)
    const calls = [...forwardCalls(this.shape, this.buffers, input, batch.n, this.matmul), ...backwardCalls(this.shape, this.buffers, input, batch.n, U, 1, this.matmul)]
    this.submit(calls, enc => this.rank!.encodeReadback(enc, this.buffers, U * this.shape.dim))
    const { lossSum, dense, dRows } = await this.rank.read(U * this.shape.dim)
    return { n: batch.n, lossSum, dense, rows: seg.uniq, dRows }
  }

  async applyGradients(g: CombinedGradients, lr: StepLr): Promise<void> {
    await this.idleInput()
    this.rank ??= new RankBuffers(this.cache.device, this.buffers)
    const rows = this.rank.uploadCombined(this.buffers, g, this.shape.dim)
    const t = this.steps + this.stepOffset + 1
    this.submit(optimizerCalls(this.shape, this.params, this.buffers, rows, g.rows.length, t, lr))
    this.steps++
  }

  async takeLosses(): Promise<number[]> {
    await this.drain()
    const out = this.drained
    this.drained = []
    return out
  }

  async predict(batch: ModelBatch): Promise<Float32Array> {
    this.checkBatch(batch)
    const input = await this.idleInput()
    this.upload(input, batch)
    this.submit(forwardCalls(this.shape, this.buffers, input, batch.n, this.matmul))
    return readBuffer(this.cache.device, this.buffers.probs, Float32Array, batch.n)
  }

  /** On the GPU (gpu-nonfinite.ts): embeddings, then w{l}/b{l}; only 8 bytes per tensor come back. */
  async firstNonFinite(): Promise<string | undefined> {
    this.nonFinite ??= new NonFiniteScan(this.cache, this.shape, this.buffers)
    return this.nonFinite.firstNonFinite()
  }

  async nonFiniteTensors(): Promise<string[]> {
    this.nonFinite ??= new NonFiniteScan(this.cache, this.shape, this.buffers)
    return this.nonFinite.nonFiniteTensors()
  }

  /** Device-side copy of the weights (or upload of `w`) into shadow buffers (gpu-shadow.ts), queued after earlier steps. */
  async keepWeights(w?: ModelWeights): Promise<void> {
    this.shadow ??= new WeightShadow(this.cache.device, this.buffers)
    if (w) this.shadow.load(w)
    else this.shadow.save()
  }

  async restoreKeptWeights(): Promise<boolean> {
    return this.shadow?.restore() ?? false
  }

  async keptWeights(): Promise<ModelWeights | undefined> {
    return this.shadow?.read(this.shape.totalRows * this.shape.dim)
  }

  async exportState(): Promise<ModelState> {
    await this.idleInput()
    const b = this.buffers, dev = this.cache.device
    const f32 = (buf: GPUBuffer, n?: number): Promise<Float32Array<ArrayBuffer>> => readBuffer(dev, buf, Float32Array, n) as Promise<Float32Array<ArrayBuffer>>
    const opt: OptimizerState = { step: this.steps + this.stepOffset, m: await Promise.all(b.m.map(x => f32(x))), v: await Promise.all(b.v.map(x => f32(x))) }
    const rd = this.shape.totalRows * this.shape.dim
    if (b.accum) opt.accum = await f32(b.accum, rd)
    if (b.embM) {
      opt.embM = await f32(b.embM, rd)
      opt.embV = await f32(b.embV!, rd)
      opt.rowStep = await readBuffer(dev, b.rowStep!, Uint32Array, this.shape.totalRows) as Uint32Array<ArrayBuffer>
    }
    return { weights: { embeddings: await f32(b.emb, rd), dense: await Promise.all(b.w.map(x => f32(x))) }, opt }
  }

  async importState(s: ModelState): Promise<void> {
    await this.idleInput()
    const b = this.buffers, q = this.cache.device.queue
    const put = (buf: GPUBuffer | undefined, a: Float32Array | Uint32Array | undefined, what: string): void => {
      if (!buf) return
      if (!a || a.byteLength > buf.size) throw new RangeError(`GpuModel.importState: ${what} missing or larger than its buffer`)
      q.writeBuffer(buf, 0, a.buffer, a.byteOffset, a.byteLength)
    }
    put(b.emb, s.weights.embeddings, 'embeddings')
    b.w.forEach((buf, i) => put(buf, s.weights.dense[i], `dense tensor ${i}`))
    b.m.forEach((buf, i) => put(buf, s.opt.m[i], `m ${i}`))
    b.v.forEach((buf, i) => put(buf, s.opt.v[i], `v ${i}`))
    put(b.accum, s.opt.accum, 'adagrad accum')
    put(b.embM, s.opt.embM, 'rowwise m')
    put(b.embV, s.opt.embV, 'rowwise v')
    put(b.rowStep, s.opt.rowStep, 'rowwise step')
    this.stepOffset = s.opt.step - this.steps
    await q.onSubmittedWorkDone()
  }

  destroy(): void {
    this.calls.destroy()
    this.rank?.destroy()
    destroyModelBuffers(this.buffers)
    this.nonFinite?.destroy()
    this.shadow?.destroy()
  }

  private nonFinite?: NonFiniteScan
  private shadow?: WeightShadow

  /** Adam's t = optimizer steps so far + 1; importState moves the count to the state's. */
  private stepOffset = 0

  private checkBatch(batch: ModelBatch): void {
    if (!(batch.n >= 1 && batch.n <= this.maxBatch)) throw new RangeError(`GpuModel: batch of ${batch.n} rows, expected 1 … ${this.maxBatch} (batch_size)`)
  }

  private upload(input: InputSet, batch: ModelBatch, seg?: { uniq: Uint32Array; segStart: Uint32Array; order: Uint32Array }): void {
    const q = this.cache.device.queue
    const put = (buf: GPUBuffer, a: Uint32Array | Float32Array): void => { if (a.byteLength) q.writeBuffer(buf, 0, a.buffer, a.byteOffset, a.byteLength) }
    put(input.rows, batch.rows)
    put(input.dense, batch.dense)
    put(input.labels, batch.labels)
    if (seg) {
      put(input.uniq, seg.uniq)
      put(input.segStart, seg.segStart)
      put(input.order, seg.order)
    }
  }

  /** Encodes `calls` in one compute pass (plus `after` copies) as one command buffer and submits it. */
  private submit(calls: KernelCall<unknown>[], after?: (enc: GPUCommandEncoder) => void): void {
    const device = this.cache.device
    const enc = device.createCommandEncoder({ label: 'recsys step' })
    const pass = enc.beginComputePass({ label: 'recsys step' })
    this.calls.encode(pass, calls)
    pass.end()
    after?.(enc)
    device.queue.submit([enc.finish()])
  }

  /** Reads back the loss sums of pending steps into `drained` as means (one map per metrics step). */
  private async drain(): Promise<void> {
    const n = this.pendingRows.length
    if (n === 0) return
    const sums = await readBuffer(this.cache.device, this.buffers.lossHistory, Float32Array, n)
    this.pendingRows.forEach((rows, i) => this.drained.push(sums[i] / rows))
    this.pendingRows = []
  }

  /** Waits until neither input set is in use, returning set 0. */
  private async idleInput(): Promise<InputSet> {
    await Promise.all(this.buffers.inputs.map(s => s.done))
    return this.buffers.inputs[0]
  }
}
