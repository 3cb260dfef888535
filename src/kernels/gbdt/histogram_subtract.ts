/** histogram_subtract: sibling = parent − built for lists of slot triples (shaders/gbdt/histogram_subtract.wgsl). */
import source from '../../../shaders/gbdt/histogram_subtract.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Problem shape: `count` triples, `b` bins per slot. */
export interface SubtractShape {
  count: number
  b: number
}

/** Spec of histogram_subtract; override WG = workgroup size (invocations). */
export const histogramSubtractSpec: KernelSpec<SubtractShape> = defineKernel({
  name: 'histogram_subtract',
  source,
  snippets: ['fixed64', 'grid'],
  entryPoint: 'histogram_subtract',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'triples', kind: 'read-only-storage' },
    { binding: 2, name: 'hist', kind: 'storage' },
  ],
  uniforms: [
    { name: 'count', type: 'u32' },
    { name: 'b', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (s, c) => linearDispatch(s.count * s.b, c.WG),
})

/**
 * A call computing, for t < count, slot triples[3t+2] = slot triples[3t] − slot triples[3t+1]
 * of `hist` (u32 × S·b·4). `triples`: u32 × 3·count (parent, built, sibling). No sibling slot may
 * be a parent or built slot of another triple in the same call (invocations race otherwise).
 */
export function histogramSubtractCall(
  buffers: { triples: GPUBuffer; hist: GPUBuffer },
  shape: SubtractShape,
  constants: { WG?: number } = {},
): KernelCall<SubtractShape> {
  for (const k of ['count', 'b'] as const) {
    if (!Number.isInteger(shape[k]) || shape[k] < 0)
      throw new RangeError(`histogram_subtract: ${k} must be an integer ≥ 0, got ${shape[k]}`)
  }
  return {
    spec: histogramSubtractSpec,
    shape,
    buffers: { ...buffers },
    uniforms: { count: shape.count, b: shape.b },
    constants,
  }
}
