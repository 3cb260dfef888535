/** bce_loss_forward: per-row BCE-with-logits loss and σ(z) (shaders/recsys/bce_loss_forward.wgsl). */
import source from '../../../shaders/recsys/bce_loss_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Shape of the loss kernels: n = N rows (logits, labels, weights, outputs all length N). */
export interface BceShape {
  n: number
}

/** Spec of bce_loss_forward; override WG = workgroup size (one row per invocation). */
export const bceLossForwardSpec: KernelSpec<BceShape> = defineKernel({
  name: 'bce_loss_forward',
  source,
  snippets: ['grid'],
  entryPoint: 'bce_loss_forward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'logits', kind: 'read-only-storage' },
    { binding: 2, name: 'labels', kind: 'read-only-storage' },
    { binding: 3, name: 'weights', kind: 'read-only-storage' },
    { binding: 4, name: 'loss', kind: 'storage' },
    { binding: 5, name: 'probs', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'hasWeights', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (s, k) => linearDispatch(s.n, k.WG),
})

/** Buffers: logits, labels (0/1), optional weights (undefined = all 1), outputs loss and probs; f32 × N each. */
export type BceLossForwardBuffers = {
  logits: GPUBuffer
  labels: GPUBuffer
  weights?: GPUBuffer
  loss: GPUBuffer
  probs: GPUBuffer
}

/** A call writing per-row `loss` (weighted) and `probs` = σ(logits) for `n` rows. */
export function bceLossForwardCall(
  buffers: BceLossForwardBuffers,
  n: number,
  constants: { WG?: number } = {},
): KernelCall<BceShape> {
  // An absent weights buffer's binding still needs some read-only buffer: logits, never read there.
  const bound = { ...buffers, weights: buffers.weights ?? buffers.logits }
  return {
    spec: bceLossForwardSpec,
    shape: { n },
    buffers: bound,
    uniforms: { n, hasWeights: buffers.weights ? 1 : 0 },
    constants,
  }
}
