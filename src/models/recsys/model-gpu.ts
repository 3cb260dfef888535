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
import { prepareKernel, type KernelCall } from '../../kernels/runner.ts'
import type { BackendTiming, ModelState } from './backend.ts'
import { StepGpuTimer } from './step-timer.ts'
import type { CombinedGradients, RankGradients, RankModel } from './ranks.ts'
import { GpuRecorder } from '../../gpu/recorder.ts'
import {
  RankBuffers,
  createModelBuffers,
  destroyModelBuffers,
  growItemBuffers,
  lossHistorySlots,
  type InputSet,
  type ModelBuffers,
} from './gpu-buffers.ts'
import { backwardCalls, forwardCalls, optimizerCalls, trainCalls, type MatmulVariant } from './gpu-step.ts'
import { embeddingSegments } from './segments.ts'
import { bagCount, bagItems, checkBags, lookupRows } from './bags.ts'
import type { ModelBatch, ModelShape, ModelWeights, OptimizerState, RecsysParams, StepLr } from './types.ts'
import { createBuffer } from '../../gpu/buffers.ts'
import { isSoftware } from '../../gpu/device.ts'
import { nonfiniteCountCall } from '../../kernels/recsys/nonfinite_count.ts'
import { decodeNonFinite, type NonFiniteCount } from '../../kernels/recsys/layout.ts'
import { denseTensors } from './layout.ts'

/** Options of GpuModel.create. */
export interface GpuModelOptions {
  /** Largest batch (buffers are sized for it; default params.batch_size). */
  maxBatch?: number
  /** Matmul kernels (default: defaultMatmul of the device). */
  matmul?: MatmulVariant
}

/**
 * The matmul kernels a model on `device` uses by default: the naive ones on software adapters
 * (SwiftShader: the tiled kernels' workgroup barriers made a clicks step, B 1024, 64-32, 4–5×
 * slower there, bench/README.md "Where the recommender's time goes"), tiled on GPUs and where the
 * device does not say its adapter. A rule, not a timing, so one adapter always trains the same model.
 */
export function defaultMatmul(device: GPUDevice): MatmulVariant {
  const info = (device as { adapterInfo?: GPUAdapterInfo & { isFallbackAdapter?: boolean } }).adapterInfo
  if (!info) return 'tiled'
  const { vendor, architecture, description } = info
  return isSoftware({ vendor, architecture, description, isFallbackAdapter: Boolean(info.isFallbackAdapter) })
    ? 'naive'
    : 'tiled'
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
    private readonly cache: PipelineCache,
    readonly shape: ModelShape,
    private readonly params: RecsysParams,
    private readonly buffers: ModelBuffers,
    readonly maxBatch: number,
    private readonly matmul: MatmulVariant,
  ) {
    this.calls = new GpuRecorder(cache, { label: 'recsys step' })
    this.gpuTimer = StepGpuTimer.create(cache.device, lossHistorySlots(params))
  }

  /**
   * Allocates the buffers and uploads `state`. Throws RangeError naming batch_size (or buckets /
   * embedding_dim) when a buffer would exceed the adapter's limits.
   */
  static async create(
    cache: PipelineCache,
    shape: ModelShape,
    params: RecsysParams,
    state: ModelState,
    opts: GpuModelOptions = {},
  ): Promise<GpuModel> {
    const maxBatch = opts.maxBatch ?? params.batch_size
    const buffers = createModelBuffers(cache.device, shape, params, maxBatch)
    const model = new GpuModel(cache, shape, params, buffers, maxBatch, opts.matmul ?? defaultMatmul(cache.device))
    await model.importState(state)
    return model
  }

  async step(batch: ModelBatch, lr: StepLr): Promise<void> {
    this.checkBatch(batch)
    await this.reserveItems(batch)
    const t0 = performance.now()
    if (this.pendingRows.length >= lossHistorySlots(this.params)) await this.drain()
    const input = this.buffers.inputs[this.steps % 2]
    await input.done // the step that last read this set has finished: safe to overwrite
    const t1 = performance.now()
    const seg = embeddingSegments(lookupRows(this.shape, batch), this.shape.totalRows)
    const t2 = performance.now()
    this.upload(input, batch, seg)
    this.counters.waitMs += t1 - t0
    this.counters.uploadMs += performance.now() - t2
    const t = this.steps + this.stepOffset + 1
    const calls = [
      ...forwardCalls(this.shape, this.buffers, input, batch.n, this.matmul),
      ...trainCalls(
        this.shape,
        this.params,
        this.buffers,
        input,
        batch.n,
        seg.uniq.length,
        t,
        lr,
        this.matmul,
        bagItems(batch),
      ),
    ]
    const slot = this.pendingRows.length
    this.submit(
      calls,
      enc => enc.copyBufferToBuffer(this.buffers.lossSum, 0, this.buffers.lossHistory, slot * 4, 4),
      this.gpuTimer?.writes(slot),
    )
    input.done = this.cache.device.queue.onSubmittedWorkDone()
    this.pendingRows.push(batch.n)
    this.steps++
  }

  async gradients(batch: ModelBatch): Promise<RankGradients> {
    this.checkBatch(batch)
    await this.reserveItems(batch)
    const input = await this.idleInput()
    const seg = embeddingSegments(lookupRows(this.shape, batch), this.shape.totalRows)
    this.upload(input, batch, seg)
    const U = seg.uniq.length
    this.rank ??= new RankBuffers(this.cache.device, this.buffers)
    const calls = [
      ...forwardCalls(this.shape, this.buffers, input, batch.n, this.matmul),
      ...backwardCalls(this.shape, this.buffers, input, batch.n, U, 1, this.matmul, bagItems(batch)),
    ]
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

  /** Uploads and GPU waits of the steps, and their timestamp-query GPU time where the device has it. */
  timing(): BackendTiming {
    return { ...this.counters, ...(this.gpuTimer ? { gpuMs: this.gpuTimer.totalMs } : {}) }
  }

  async takeLosses(): Promise<number[]> {
    await this.drain()
    const out = this.drained
    this.drained = []
    return out
  }

  async predict(batch: ModelBatch): Promise<Float32Array> {
    this.checkBatch(batch)
    await this.reserveItems(batch)
    const input = await this.idleInput()
    this.upload(input, batch)
    this.submit(forwardCalls(this.shape, this.buffers, input, batch.n, this.matmul))
    return readBuffer(this.cache.device, this.buffers.probs, Float32Array, batch.n)
  }

  /** On the GPU (the divergence check below): embeddings, then w{l}/b{l}; only 8 bytes per tensor come back. */
  async firstNonFinite(): Promise<string | undefined> {
    this.nonFinite ??= new NonFiniteScan(this.cache, this.shape, this.buffers)
    return this.nonFinite.firstNonFinite()
  }

  async nonFiniteTensors(): Promise<string[]> {
    this.nonFinite ??= new NonFiniteScan(this.cache, this.shape, this.buffers)
    return this.nonFinite.nonFiniteTensors()
  }

  /** Device-side copy of the weights (or upload of `w`) into shadow buffers (WeightShadow below), queued after earlier steps. */
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
    const b = this.buffers,
      dev = this.cache.device
    const f32 = (buf: GPUBuffer, n?: number): Promise<Float32Array<ArrayBuffer>> =>
      readBuffer(dev, buf, Float32Array, n) as Promise<Float32Array<ArrayBuffer>>
    const opt: OptimizerState = {
      step: this.steps + this.stepOffset,
      m: await Promise.all(b.m.map(x => f32(x))),
      v: await Promise.all(b.v.map(x => f32(x))),
    }
    const rd = this.shape.totalRows * this.shape.dim
    if (b.accum) opt.accum = await f32(b.accum, rd)
    if (b.embM) {
      opt.embM = await f32(b.embM, rd)
      opt.embV = await f32(b.embV!, rd)
      opt.rowStep = (await readBuffer(dev, b.rowStep!, Uint32Array, this.shape.totalRows)) as Uint32Array<ArrayBuffer>
    }
    return { weights: { embeddings: await f32(b.emb, rd), dense: await Promise.all(b.w.map(x => f32(x))) }, opt }
  }

  async importState(s: ModelState): Promise<void> {
    await this.idleInput()
    const b = this.buffers,
      q = this.cache.device.queue
    const put = (buf: GPUBuffer | undefined, a: Float32Array | Uint32Array | undefined, what: string): void => {
      if (!buf) return
      if (!a || a.byteLength > buf.size)
        throw new RangeError(`GpuModel.importState: ${what} missing or larger than its buffer`)
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
    this.gpuTimer?.destroy()
    this.rank?.destroy()
    destroyModelBuffers(this.buffers)
    this.nonFinite?.destroy()
    this.shadow?.destroy()
  }

  private nonFinite?: NonFiniteScan
  private shadow?: WeightShadow
  private readonly gpuTimer?: StepGpuTimer
  private readonly counters = { uploadMs: 0, waitMs: 0 }

  /** Adam's t = optimizer steps so far + 1; importState moves the count to the state's. */
  private stepOffset = 0

  private checkBatch(batch: ModelBatch): void {
    if (!(batch.n >= 1 && batch.n <= this.maxBatch))
      throw new RangeError(`GpuModel: batch of ${batch.n} rows, expected 1 … ${this.maxBatch} (batch_size)`)
    if (bagCount(this.shape) > 0) checkBags(batch, bagCount(this.shape))
  }

  /**
   * Grows the lookup-position buffers when the batch has more bag items than they hold: waits
   * for both input sets, and drops the rank read-back buffers (sized from dRows; made again).
   */
  private async reserveItems(batch: ModelBatch): Promise<void> {
    const bags = this.buffers.bags
    if (!bags || bagItems(batch) <= bags.capacity) return
    await this.idleInput()
    growItemBuffers(this.cache.device, this.buffers, this.shape, this.maxBatch, bagItems(batch))
    this.rank?.destroy()
    this.rank = undefined
  }

  private upload(
    input: InputSet,
    batch: ModelBatch,
    seg?: { uniq: Uint32Array; segStart: Uint32Array; order: Uint32Array },
  ): void {
    const q = this.cache.device.queue
    const put = (buf: GPUBuffer, a: Uint32Array | Float32Array): void => {
      if (a.byteLength) q.writeBuffer(buf, 0, a.buffer, a.byteOffset, a.byteLength)
    }
    put(input.rows, batch.rows)
    put(input.dense, batch.dense)
    put(input.labels, batch.labels)
    if (input.bagRows && batch.bagRows && batch.bagOffsets) {
      put(input.bagRows, batch.bagRows)
      put(input.bagOffsets!, batch.bagOffsets)
    }
    if (seg) {
      put(input.uniq, seg.uniq)
      put(input.segStart, seg.segStart)
      put(input.order, seg.order)
    }
  }

  /** Encodes `calls` in one compute pass (plus `after` copies) as one command buffer and submits it. */
  private submit(
    calls: KernelCall<unknown>[],
    after?: (enc: GPUCommandEncoder) => void,
    timestampWrites?: GPUComputePassTimestampWrites,
  ): void {
    const device = this.cache.device
    const enc = device.createCommandEncoder({ label: 'recsys step' })
    const pass = enc.beginComputePass({ label: 'recsys step', ...(timestampWrites ? { timestampWrites } : {}) })
    this.calls.encode(pass, calls)
    pass.end()
    after?.(enc)
    device.queue.submit([enc.finish()])
  }

  /** Reads back the loss sums of pending steps into `drained` as means (one map per metrics step). */
  private async drain(): Promise<void> {
    const n = this.pendingRows.length
    if (n === 0) return
    const [sums] = await Promise.all([
      readBuffer(this.cache.device, this.buffers.lossHistory, Float32Array, n),
      this.gpuTimer?.read(n),
    ])
    this.pendingRows.forEach((rows, i) => this.drained.push(sums[i] / rows))
    this.pendingRows = []
  }

  /** Waits until neither input set is in use, returning set 0. */
  private async idleInput(): Promise<InputSet> {
    await Promise.all(this.buffers.inputs.map(s => s.done))
    return this.buffers.inputs[0]
  }
}

/*
 * The GPU model's divergence check: one nonfinite_count dispatch per weight tensor (the
 * embedding table and every dense w{l}/b{l}) into one small u32 buffer, one 8-byte-per-tensor
 * read-back. The embedding table (R × D floats, megabytes) never leaves the GPU, so the check
 * can run at every evaluation. R = total embedding rows, D = embedding dim.
 */

/** One scanned tensor: its name ('embeddings', 'w{l}', 'b{l}'), buffer and element count. */
interface ScannedTensor {
  name: string
  buffer: GPUBuffer
  n: number
}

/** Result per tensor, in scan order (embeddings first, then the dense tensors in layout order). */
export interface TensorScan extends NonFiniteCount {
  name: string
}

/** Scans the model's weights for NaN/±Infinity on the GPU. */
export class NonFiniteScan {
  private readonly tensors: ScannedTensor[]
  private readonly out: GPUBuffer

  /** Scans `b.emb` ([R × D]) and `b.w` (layout order); allocates the 8·(1 + tensors)-byte result buffer. */
  constructor(
    private readonly cache: PipelineCache,
    shape: ModelShape,
    b: ModelBuffers,
  ) {
    this.tensors = [
      { name: 'embeddings', buffer: b.emb, n: shape.totalRows * shape.dim },
      ...denseTensors(shape).map((t, i) => ({ name: t.name, buffer: b.w[i], n: t.length })),
    ]
    this.out = createBuffer(cache.device, 8 * this.tensors.length, undefined, 'nonfinite counts')
  }

  /** Count and first bad index of every tensor (one submit, one read-back; queued after all earlier work). */
  async scan(): Promise<TensorScan[]> {
    const device = this.cache.device
    const prepared = this.tensors.map((t, slot) =>
      prepareKernel(this.cache, nonfiniteCountCall({ inp: t.buffer, out: this.out }, { n: t.n, slot })),
    )
    const enc = device.createCommandEncoder({ label: 'nonfinite scan' })
    enc.clearBuffer(this.out)
    const pass = enc.beginComputePass({ label: 'nonfinite scan' })
    prepared.forEach(k => k.encode(pass))
    pass.end()
    device.queue.submit([enc.finish()])
    prepared.forEach(k => k.destroy())
    const words = await readBuffer(device, this.out, Uint32Array)
    return this.tensors.map((t, slot) => ({ name: t.name, ...decodeNonFinite(words, slot, t.n) }))
  }

  /** Names of every tensor (scan order) holding a NaN or ±Infinity. */
  async nonFiniteTensors(): Promise<string[]> {
    return (await this.scan()).filter(t => t.count > 0).map(t => t.name)
  }

  /** Name of the first tensor (scan order) holding a NaN or ±Infinity, else undefined. */
  async firstNonFinite(): Promise<string | undefined> {
    return (await this.scan()).find(t => t.count > 0)?.name
  }

  destroy(): void {
    this.out.destroy()
  }
}

/*
 * Best-weights shadow of the GPU model (restore_best): copies of the embedding table and every
 * dense weight tensor kept on the GPU. `save` and `restore` only enqueue copyBufferToBuffer
 * commands, ordered after every step already submitted, so saving the weights at an improving
 * evaluation costs one device-side copy of R·D + dense floats and no read-back.
 * R = total embedding rows, D = embedding dim.
 */

/** Shadow copies of the model weights (not the optimizer state: Keras' restore_best_weights keeps weights only). */
export class WeightShadow {
  private readonly pairs: Array<[live: GPUBuffer, shadow: GPUBuffer]>
  private saved = false

  /** Allocates one shadow buffer per weight buffer of `b` (doubles the weights' GPU memory). */
  constructor(
    private readonly device: GPUDevice,
    b: ModelBuffers,
  ) {
    this.pairs = [b.emb, ...b.w].map(live => [live, createBuffer(device, live.size, undefined, `best ${live.label}`)])
  }

  /** Bytes held by the shadow buffers. */
  get bytes(): number {
    return this.pairs.reduce((s, [, shadow]) => s + shadow.size, 0)
  }

  /** True once `save` ran. */
  get hasSaved(): boolean {
    return this.saved
  }

  /** Enqueues live → shadow copies of every weight buffer. */
  save(): void {
    this.copy(true)
    this.saved = true
  }

  /** Fills the shadow from CPU weights (a checkpoint's kept weights), same lengths as the model's. */
  load(w: ModelWeights): void {
    const arrays = [w.embeddings, ...w.dense]
    if (arrays.length !== this.pairs.length)
      throw new RangeError(`WeightShadow.load: ${arrays.length} tensors, expected ${this.pairs.length}`)
    this.pairs.forEach(([, shadow], i) => {
      const a = arrays[i]
      if (a.byteLength > shadow.size)
        throw new RangeError(`WeightShadow.load: tensor ${i} (${a.length} floats) larger than its buffer`)
      this.device.queue.writeBuffer(shadow, 0, a.buffer, a.byteOffset, a.byteLength)
    })
    this.saved = true
  }

  /** Copies of the saved weights (embeddings: `embeddingFloats` = R·D), or undefined when nothing was saved. */
  async read(embeddingFloats: number): Promise<ModelWeights | undefined> {
    if (!this.saved) return undefined
    const [emb, ...dense] = await Promise.all(
      this.pairs.map(
        ([, shadow], i) =>
          readBuffer(this.device, shadow, Float32Array, i === 0 ? embeddingFloats : undefined) as Promise<
            Float32Array<ArrayBuffer>
          >,
      ),
    )
    return { embeddings: emb, dense }
  }

  /** Enqueues shadow → live copies; false (nothing done) when nothing was saved. */
  restore(): boolean {
    if (!this.saved) return false
    this.copy(false)
    return true
  }

  destroy(): void {
    this.pairs.forEach(([, shadow]) => shadow.destroy())
  }

  private copy(toShadow: boolean): void {
    const enc = this.device.createCommandEncoder({ label: toShadow ? 'save best weights' : 'restore best weights' })
    for (const [live, shadow] of this.pairs) {
      if (toShadow) enc.copyBufferToBuffer(live, 0, shadow, 0, live.size)
      else enc.copyBufferToBuffer(shadow, 0, live, 0, live.size)
    }
    this.device.queue.submit([enc.finish()])
  }
}
