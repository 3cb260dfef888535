/** stream_rmw: a[i] = a[i]·s + b[i] (bench/shaders/stream_rmw.wgsl). N = elements. */
import code from '../shaders/stream_rmw.wgsl?raw'
import type { KernelCall } from '../../src/kernels/runner.ts'
import type { KernelSpec } from '../../src/kernels/spec.ts'
import { linearDispatch } from '../../src/kernels/spec.ts'

/** Problem shape: `n` elements, scale `s`. */
export interface StreamRmwShape {
  n: number
  s: number
}

/** Spec of stream_rmw; override WG = workgroup size (invocations). */
export const streamRmwSpec: KernelSpec<StreamRmwShape> = {
  name: 'stream_rmw',
  code,
  entryPoint: 'stream_rmw',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'a', kind: 'storage' },
    { binding: 2, name: 'b', kind: 'read-only-storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 's', type: 'f32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.n, c.WG),
}

/** Bytes moved per element (read a, read b, write a; f32). */
export const STREAM_RMW_BYTES_PER_ELEMENT = 12

/** A call updating `a` (f32 × n, in place) from `b` (f32 × n). */
export function streamRmwCall(
  buffers: { a: GPUBuffer; b: GPUBuffer },
  shape: StreamRmwShape,
  constants: { WG?: number } = {},
): KernelCall<StreamRmwShape> {
  return { spec: streamRmwSpec, shape, buffers, uniforms: { n: shape.n, s: shape.s }, constants }
}
