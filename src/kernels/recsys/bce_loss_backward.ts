/** bce_loss_backward: dlogits = (σ(z) − y)·w / denom (shaders/recsys/bce_loss_backward.wgsl). */
import source from '../../../shaders/recsys/bce_loss_backward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import type { BceShape } from './bce_loss_forward.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of bce_loss_backward; override WG = workgroup size (one row per invocation). */
export const bceLossBackwardSpec: KernelSpec<BceShape> = defineKernel({
  name: 'bce_loss_backward',
  source,
  snippets: ['grid'],
  entryPoint: 'bce_loss_backward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'logits', kind: 'read-only-storage' },
    { binding: 2, name: 'labels', kind: 'read-only-storage' },
    { binding: 3, name: 'weights', kind: 'read-only-storage' },
    { binding: 4, name: 'dlogits', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'hasWeights', type: 'u32' },
    { name: 'denom', type: 'f32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (s, k) => linearDispatch(s.n, k.WG),
})

/** Buffers: logits, labels, optional weights (undefined = all 1), output dlogits; f32 × N each. */
export type BceLossBackwardBuffers = { logits: GPUBuffer; labels: GPUBuffer; weights?: GPUBuffer; dlogits: GPUBuffer }

/**
 * A call writing `dlogits` for `n` rows, the gradient of Σ loss / `denom`; `denom` defaults to n
 * (the batch mean). Throws on denom ≤ 0 (a mean over nothing has no gradient).
 */
export function bceLossBackwardCall(
  buffers: BceLossBackwardBuffers,
  n: number,
  denom = n,
  constants: { WG?: number } = {},
): KernelCall<BceShape> {
  if (!(denom > 0) && n > 0) throw new RangeError(`bce_loss_backward: denom must be > 0, got ${denom}`)
  const bound = { ...buffers, weights: buffers.weights ?? buffers.logits }
  const uniforms = { n, hasWeights: buffers.weights ? 1 : 0, denom: denom > 0 ? denom : 1 }
  return { spec: bceLossBackwardSpec, shape: { n }, buffers: bound, uniforms, constants }
}
