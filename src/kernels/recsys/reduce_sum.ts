/**
 * reduce_sum: deterministic f32 sum of N values (shaders/recsys/reduce_sum.wgsl), one tree pass
 * per call; `reduceSumCalls` chains the passes (N → ceil(N/WG) → … → 1).
 */
import source from '../../../shaders/recsys/reduce_sum.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { reduceSumLevels } from './layout.ts'
import { defineKernel } from '../wgsl.ts'

/** Shape of one pass: n = N inputs (its output has max(1, ceil(N / WG)) partials). */
export interface ReduceShape {
  n: number
}

/** Spec of reduce_sum; override WG = workgroup size = tree width (a power of two). */
export const reduceSumSpec: KernelSpec<ReduceShape> = defineKernel({
  name: 'reduce_sum',
  source,
  snippets: ['grid'],
  entryPoint: 'reduce_sum',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'inp', kind: 'read-only-storage' },
    { binding: 2, name: 'out', kind: 'storage' },
  ],
  uniforms: [{ name: 'n', type: 'u32' }],
  overrides: { WG: 256 },
  // At least one workgroup, so N = 0 still writes out[0] = 0.
  dispatchSize: (s, k) => linearDispatch(Math.max(1, s.n), k.WG),
})

/**
 * Buffers of a full reduction: inp f32 [N], out f32 [≥ 1] (the sum lands in out[0]), and scratch
 * buffers for the intermediate partials: reduceSumScratch(N, WG) gives their lengths (none for
 * N ≤ WG, one for N ≤ WG², two beyond).
 */
export type ReduceSumBuffers = { inp: GPUBuffer; out: GPUBuffer; scratch?: readonly GPUBuffer[] }

/** Lengths (f32 elements) of the scratch buffers a reduction of n values needs (ping-pong, ≤ 2). */
export function reduceSumScratch(n: number, wg = reduceSumSpec.overrides.WG): number[] {
  // Levels shrink, so the first two inner levels are the largest each ping-pong buffer holds.
  return reduceSumLevels(n, wg).slice(0, -1).slice(0, 2)
}

/** The passes summing `inp[0 … n)` into out[0]; encode them in order (one compute pass is fine). */
export function reduceSumCalls(
  buffers: ReduceSumBuffers,
  n: number,
  constants: { WG?: number } = {},
): KernelCall<ReduceShape>[] {
  const wg = constants.WG ?? reduceSumSpec.overrides.WG
  const levels = reduceSumLevels(n, wg)
  const need = reduceSumScratch(n, wg).length
  if ((buffers.scratch?.length ?? 0) < need)
    throw new TypeError(`reduce_sum: ${n} values need ${need} scratch buffers (reduceSumScratch)`)
  let src = buffers.inp,
    len = n
  return levels.map((next, i) => {
    const dst = i === levels.length - 1 ? buffers.out : buffers.scratch![i % 2]
    const call: KernelCall<ReduceShape> = {
      spec: reduceSumSpec,
      shape: { n: len },
      buffers: { inp: src, out: dst },
      uniforms: { n: len },
      constants,
    }
    src = dst
    len = next
    return call
  })
}
