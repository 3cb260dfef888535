/** bias_relu_backward: dinp = dout·(out > 0), dbias = Σ_b dinp (shaders/recsys/bias_relu_backward.wgsl). */
import source from '../../../shaders/recsys/bias_relu_backward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import type { BiasShape } from './bias_relu_forward.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of bias_relu_backward; override WG = workgroup size (one channel per invocation). */
export const biasReluBackwardSpec: KernelSpec<BiasShape> = defineKernel({
  name: 'bias_relu_backward',
  source,
  snippets: ['grid'],
  entryPoint: 'bias_relu_backward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'dout', kind: 'read-only-storage' },
    { binding: 2, name: 'out', kind: 'read-only-storage' },
    { binding: 3, name: 'dinp', kind: 'storage' },
    { binding: 4, name: 'dbias', kind: 'storage' },
  ],
  uniforms: [
    { name: 'b', type: 'u32' },
    { name: 'c', type: 'u32' },
    { name: 'relu', type: 'u32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: (s, k) => linearDispatch(s.c, k.WG),
})

/**
 * Buffers: dout f32 [B×C], out f32 [B×C] (the forward output; may be omitted when relu is false),
 * dinp f32 [B×C], dbias f32 [C] (both overwritten).
 */
export type BiasReluBackwardBuffers = { dout: GPUBuffer; out?: GPUBuffer; dinp: GPUBuffer; dbias: GPUBuffer }

/** A call writing `dinp` and `dbias`; `relu` must match the forward call. */
export function biasReluBackwardCall(
  buffers: BiasReluBackwardBuffers,
  shape: BiasShape,
  relu: boolean,
  constants: { WG?: number } = {},
): KernelCall<BiasShape> {
  if (relu && !buffers.out) throw new TypeError('bias_relu_backward: relu needs the forward output buffer `out`')
  // Without ReLU `out` is never read, but its binding still needs a read-only buffer: dout.
  const bound = { ...buffers, out: buffers.out ?? buffers.dout }
  return { spec: biasReluBackwardSpec, shape, buffers: bound, uniforms: { ...shape, relu: relu ? 1 : 0 }, constants }
}
