/**
 * The GPU model's divergence check: one nonfinite_count dispatch per weight tensor (the
 * embedding table and every dense w{l}/b{l}) into one small u32 buffer, one 8-byte-per-tensor
 * read-back. The embedding table (R × D floats, megabytes) never leaves the GPU, so the check
 * can run at every evaluation. R = total embedding rows, D = embedding dim.
 */
import { createBuffer } from '../../gpu/buffers.ts'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import { readBuffer } from '../../gpu/readback.ts'
import { nonfiniteCountCall } from '../../kernels/recsys/nonfinite_count.ts'
import { decodeNonFinite, type NonFiniteCount } from '../../kernels/recsys/layout.ts'
import { prepareKernel } from '../../kernels/runner.ts'
import type { ModelBuffers } from './gpu-buffers.ts'
import { denseTensors } from './layout.ts'
import type { ModelShape } from './types.ts'

/** One scanned tensor: its name ('embeddings', 'w{l}', 'b{l}'), buffer and element count. */
interface ScannedTensor { name: string; buffer: GPUBuffer; n: number }

/** Result per tensor, in scan order (embeddings first, then the dense tensors in layout order). */
export interface TensorScan extends NonFiniteCount { name: string }

/** Scans the model's weights for NaN/±Infinity on the GPU. */
export class NonFiniteScan {
  private readonly tensors: ScannedTensor[]
  private readonly out: GPUBuffer

  /** Scans `b.emb` ([R × D]) and `b.w` (layout order); allocates the 8·(1 + tensors)-byte result buffer. */
  constructor(private readonly cache: PipelineCache, shape: ModelShape, b: ModelBuffers) {
    this.tensors = [
      { name: 'embeddings', buffer: b.emb, n: shape.totalRows * shape.dim },
      ...denseTensors(shape).map((t, i) => ({ name: t.name, buffer: b.w[i], n: t.length })),
    ]
    this.out = createBuffer(cache.device, 8 * this.tensors.length, undefined, 'nonfinite counts')
  }

  /** Count and first bad index of every tensor (one submit, one read-back; queued after all earlier work). */
  async scan(): Promise<TensorScan[]> {
    const device = this.cache.device
    const prepared = this.tensors.map((t, slot) => prepareKernel(this.cache, nonfiniteCountCall({ inp: t.buffer, out: this.out }, { n: t.n, slot })))
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
