/** bias_relu_forward: out = max(0, inp + bias[c]) over [B×C] (shaders/recsys/bias_relu_forward.wgsl). */
import source from '../../../shaders/recsys/bias_relu_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Shape of a bias(+ReLU) layer: b = B batch rows, c = C channels. */
export interface BiasShape {
  b: number
  c: number
}

/** Spec of bias_relu_forward; override WG = workgroup size (one element per invocation). */
export const biasReluForwardSpec: KernelSpec<BiasShape> = defineKernel({
  name: 'bias_relu_forward',
  source,
  snippets: ['grid'],
  entryPoint: 'bias_relu_forward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'inp', kind: 'read-only-storage' },
    { binding: 2, name: 'bias', kind: 'read-only-storage' },
    { binding: 3, name: 'out', kind: 'storage' },
  ],
  uniforms: [
    { name: 'b', type: 'u32' },
    { name: 'c', type: 'u32' },
    { name: 'relu', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (s, k) => linearDispatch(s.b * s.c, k.WG),
})

/** Buffers: inp f32 [B×C], bias f32 [C], out f32 [B×C] (a different buffer from inp). */
export type BiasReluForwardBuffers = { inp: GPUBuffer; bias: GPUBuffer; out: GPUBuffer }

/** A call writing `out` = max(0, inp + bias), or inp + bias when `relu` is false (output layer). */
export function biasReluForwardCall(
  buffers: BiasReluForwardBuffers,
  shape: BiasShape,
  relu: boolean,
  constants: { WG?: number } = {},
): KernelCall<BiasShape> {
  return { spec: biasReluForwardSpec, shape, buffers, uniforms: { ...shape, relu: relu ? 1 : 0 }, constants }
}
