/** atomic_add_storage: counters[keys[i] % k] += 1 in storage (bench/shaders/atomic_add_storage.wgsl). */
import code from '../shaders/atomic_add_storage.wgsl?raw'
import type { KernelCall } from '../../src/kernels/runner.ts'
import type { KernelSpec } from '../../src/kernels/spec.ts'
import { linearDispatch } from '../../src/kernels/spec.ts'

/** Problem shape: `n` keys, `k` counters. */
export interface AtomicAddShape {
  n: number
  k: number
}

/** Spec of atomic_add_storage; override WG = workgroup size (invocations). */
export const atomicAddStorageSpec: KernelSpec<AtomicAddShape> = {
  name: 'atomic_add_storage',
  code,
  entryPoint: 'atomic_add_storage',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'keys', kind: 'read-only-storage' },
    { binding: 2, name: 'counters', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'k', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.n, c.WG),
}

/** A call adding 1 to `counters[keys[i] % k]` (u32 × k, accumulates) for each of `n` keys. */
export function atomicAddStorageCall(
  buffers: { keys: GPUBuffer; counters: GPUBuffer },
  shape: AtomicAddShape,
  constants: { WG?: number } = {},
): KernelCall<AtomicAddShape> {
  if (!(shape.k >= 1)) throw new RangeError(`atomic_add_storage: k must be ≥ 1, got ${shape.k}`)
  return { spec: atomicAddStorageSpec, shape, buffers, uniforms: { n: shape.n, k: shape.k }, constants }
}
