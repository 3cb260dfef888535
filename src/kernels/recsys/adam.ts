/** adam: one AdamW step over a dense tensor (shaders/recsys/adam.wgsl). */
import source from '../../../shaders/recsys/adam.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { adamUniforms } from './layout.ts'
import { checkCount } from './embedding-optim-checks.ts'
import type { AdamHyper, AdamShape } from './embedding-optim-types.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of adam; override WG = workgroup size (one parameter per invocation). */
export const adamSpec: KernelSpec<AdamShape> = defineKernel({
  name: 'adam',
  source,
  snippets: ['grid', 'adam_step'],
  entryPoint: 'adam',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'weights', kind: 'storage' },
    { binding: 2, name: 'grads', kind: 'read-only-storage' },
    { binding: 3, name: 'm', kind: 'storage' },
    { binding: 4, name: 'v', kind: 'storage' },
  ],
  uniforms: [
    { name: 'lr', type: 'f32' },
    { name: 'beta1', type: 'f32' },
    { name: 'beta2', type: 'f32' },
    { name: 'eps', type: 'f32' },
    { name: 'weight_decay', type: 'f32' },
    { name: 't', type: 'u32' },
    { name: 'n', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.params, c.WG),
})

/**
 * Buffers of adam: weights f32 [P] (the tensor's parameters; the uniform is bound as `params`),
 * grads f32 [P], m and v f32 [P] (zeros before step 1). weights, m, v are updated in place.
 */
export type AdamBuffers = { weights: GPUBuffer; grads: GPUBuffer; m: GPUBuffer; v: GPUBuffer }

/** A call applying AdamW step `h.t` (≥ 1) to `shape.params` = P parameters. */
export function adamCall(
  buffers: AdamBuffers,
  shape: AdamShape,
  h: AdamHyper,
  constants: { WG?: number } = {},
): KernelCall<AdamShape> {
  checkCount('adam', 'params', shape.params)
  checkCount('adam', 't', h.t, 1)
  checkHyper('adam', h)
  return { spec: adamSpec, shape, buffers, uniforms: { ...adamUniforms(h), n: shape.params }, constants }
}

/** Throws RangeError naming the first invalid Adam hyperparameter (lr, betas, eps, weight decay). */
export function checkHyper(kernel: string, h: Omit<AdamHyper, 't'>): void {
  const bad = (name: string, v: number, ok: boolean): void => {
    if (!ok || !Number.isFinite(v)) throw new RangeError(`${kernel}: ${name} out of range, got ${v}`)
  }
  bad('lr', h.lr, h.lr >= 0)
  bad('beta1', h.beta1, h.beta1 >= 0 && h.beta1 < 1)
  bad('beta2', h.beta2, h.beta2 >= 0 && h.beta2 < 1)
  bad('eps', h.eps, h.eps > 0)
  bad('weightDecay', h.weightDecay, h.weightDecay >= 0)
}
