/** copy: dst[i] = src[i] over u32 words (bench/shaders/copy.wgsl). N = elements. */
import code from '../shaders/copy.wgsl?raw'
import type { KernelCall } from '../../src/kernels/runner.ts'
import type { KernelSpec } from '../../src/kernels/spec.ts'
import { linearDispatch } from '../../src/kernels/spec.ts'

/** Problem shape: `n` u32 elements. */
export interface CopyShape {
  n: number
}

/** Spec of copy; override WG = workgroup size (invocations). */
export const copySpec: KernelSpec<CopyShape> = {
  name: 'copy',
  code,
  entryPoint: 'copy',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'src', kind: 'read-only-storage' },
    { binding: 2, name: 'dst', kind: 'storage' },
  ],
  uniforms: [{ name: 'n', type: 'u32' }],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.n, c.WG),
}

/** Bytes moved per element (read src, write dst; u32). */
export const COPY_BYTES_PER_ELEMENT = 8

/** A call copying `n` words of `src` into `dst`. */
export function copyCall(
  buffers: { src: GPUBuffer; dst: GPUBuffer },
  shape: CopyShape,
  constants: { WG?: number } = {},
): KernelCall<CopyShape> {
  return { spec: copySpec, shape, buffers, uniforms: { n: shape.n }, constants }
}
