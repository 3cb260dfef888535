/**
 * Best-weights shadow of the GPU model (restore_best): copies of the embedding table and every
 * dense weight tensor kept on the GPU. `save` and `restore` only enqueue copyBufferToBuffer
 * commands, ordered after every step already submitted, so saving the weights at an improving
 * evaluation costs one device-side copy of R·D + dense floats and no read-back.
 * R = total embedding rows, D = embedding dim.
 */
import { createBuffer } from '../../gpu/buffers.ts'
import { readBuffer } from '../../gpu/readback.ts'
import type { ModelBuffers } from './gpu-buffers.ts'
import type { ModelWeights } from './types.ts'

/** Shadow copies of the model weights (not the optimizer state: Keras' restore_best_weights keeps weights only). */
export class WeightShadow {
  private readonly pairs: Array<[live: GPUBuffer, shadow: GPUBuffer]>
  private saved = false

  /** Allocates one shadow buffer per weight buffer of `b` (doubles the weights' GPU memory). */
  constructor(private readonly device: GPUDevice, b: ModelBuffers) {
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
    if (arrays.length !== this.pairs.length) throw new RangeError(`WeightShadow.load: ${arrays.length} tensors, expected ${this.pairs.length}`)
    this.pairs.forEach(([, shadow], i) => {
      const a = arrays[i]
      if (a.byteLength > shadow.size) throw new RangeError(`WeightShadow.load: tensor ${i} (${a.length} floats) larger than its buffer`)
      this.device.queue.writeBuffer(shadow, 0, a.buffer, a.byteOffset, a.byteLength)
    })
    this.saved = true
  }

  /** Copies of the saved weights (embeddings: `embeddingFloats` = R·D), or undefined when nothing was saved. */
  async read(embeddingFloats: number): Promise<ModelWeights | undefined> {
    if (!this.saved) return undefined
    const [emb, ...dense] = await Promise.all(this.pairs.map(([, shadow], i) =>
      readBuffer(this.device, shadow, Float32Array, i === 0 ? embeddingFloats : undefined) as Promise<Float32Array<ArrayBuffer>>))
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
