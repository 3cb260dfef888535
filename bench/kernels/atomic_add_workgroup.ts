/**
 * atomic_add_workgroup: counters[keys[i] % K] += 1, privatised in workgroup memory and flushed
 * once per workgroup (bench/shaders/atomic_add_workgroup.wgsl).
 */
import code from '../shaders/atomic_add_workgroup.wgsl?raw'
import type { KernelCall } from '../../src/kernels/runner.ts'
import type { KernelSpec } from '../../src/kernels/spec.ts'
import { linearDispatch } from '../../src/kernels/spec.ts'
import type { AtomicAddShape } from './atomic_add_storage.ts'

/**
 * Spec of atomic_add_workgroup. Overrides: WG = invocations per workgroup, K = counters (sizes
 * the workgroup array; the call sets it from the shape), ITEMS = keys per invocation.
 */
export const atomicAddWorkgroupSpec: KernelSpec<AtomicAddShape> = {
  name: 'atomic_add_workgroup',
  code,
  entryPoint: 'atomic_add_workgroup',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'keys', kind: 'read-only-storage' },
    { binding: 2, name: 'counters', kind: 'storage' },
  ],
  uniforms: [{ name: 'n', type: 'u32' }],
  overrides: { WG: 256, K: 256, ITEMS: 16 },
  dispatchSize: (shape, c) => linearDispatch(shape.n, c.WG * c.ITEMS),
}

/**
 * A call adding 1 to `counters[keys[i] % k]` (u32 × k, accumulates) for each of `n` keys.
 * `k`·4 bytes must fit the device's maxComputeWorkgroupStorageSize (16 KiB by default → k ≤ 4096).
 */
export function atomicAddWorkgroupCall(
  buffers: { keys: GPUBuffer; counters: GPUBuffer },
  shape: AtomicAddShape,
  constants: { WG?: number; ITEMS?: number } = {},
): KernelCall<AtomicAddShape> {
  if (!Number.isInteger(shape.k) || shape.k < 1)
    throw new RangeError(`atomic_add_workgroup: k must be an integer ≥ 1, got ${shape.k}`)
  return {
    spec: atomicAddWorkgroupSpec,
    shape,
    buffers,
    uniforms: { n: shape.n },
    constants: { ...constants, K: shape.k },
  }
}
