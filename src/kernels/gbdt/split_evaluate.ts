/** split_evaluate: best split per node from its histogram (shaders/gbdt/split_evaluate.wgsl). */
import source from '../../../shaders/gbdt/split_evaluate.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { DEFAULT_MAX_CAT_THRESHOLD, type SplitParams, type SplitShape } from './layout.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of split_evaluate; override WG = invocations per node (power of 2; features are strided over them). */
export const splitEvaluateSpec: KernelSpec<SplitShape> = defineKernel({
  name: 'split_evaluate',
  source,
  snippets: ['fixed64', 'grid'],
  entryPoint: 'split_evaluate',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'hist', kind: 'read-only-storage' },
    { binding: 2, name: 'cutPtrs', kind: 'read-only-storage' },
    { binding: 3, name: 'featureMask', kind: 'read-only-storage' },
    { binding: 4, name: 'nodeSlots', kind: 'read-only-storage' },
    { binding: 5, name: 'nodeSums', kind: 'read-only-storage' },
    { binding: 6, name: 'scales', kind: 'read-only-storage' },
    { binding: 7, name: 'out', kind: 'storage' },
    { binding: 8, name: 'featureKind', kind: 'read-only-storage' },
  ],
  uniforms: [
    { name: 'nodes', type: 'u32' },
    { name: 'features', type: 'u32' },
    { name: 'maskPerNode', type: 'u32' },
    { name: 'lambda', type: 'f32' },
    { name: 'alpha', type: 'f32' },
    { name: 'minChildWeight', type: 'f32' },
    { name: 'maxCatThreshold', type: 'u32' },
    { name: 'maxDeltaStep', type: 'f32' },
    { name: 'weightGain', type: 'u32' },
    { name: 'constrained', type: 'u32' },
  ],
  overrides: { WG: 64 },
  dispatchSize: shape => linearDispatch(shape.nodes, 1),
})

/**
 * A call writing `out` (u32 × M·SPLIT_WORDS, layout at decodeSplit in layout.ts) for M nodes from
 * `hist` (u32 × S·B·4), `cutPtrs` (u32 × F+1), `featureMask` (u32 × F or M·F), `nodeSlots`
 * (u32 × M), `nodeSums` (u32 × M·4, then M·NODE_BOUND_WORDS f32 bounds when p.constrained),
 * `scales` (f32 × 4, [maxAbsG, maxAbsH, gScale, hScale] from quantise) and `featureKind`
 * (u32 × F, layout.ts featureKinds: kind | monotone << 2).
 */
export function splitEvaluateCall(
  buffers: {
    hist: GPUBuffer
    cutPtrs: GPUBuffer
    featureMask: GPUBuffer
    nodeSlots: GPUBuffer
    nodeSums: GPUBuffer
    scales: GPUBuffer
    out: GPUBuffer
    featureKind: GPUBuffer
  },
  shape: SplitShape,
  p: SplitParams,
  constants: { WG?: number } = {},
): KernelCall<SplitShape> {
  const wg = constants.WG ?? 64
  if (!(wg >= 1 && (wg & (wg - 1)) === 0)) throw new RangeError(`split_evaluate: WG must be a power of 2, got ${wg}`)
  checkSplitParams(p)
  const maxCatThreshold = p.maxCatThreshold ?? DEFAULT_MAX_CAT_THRESHOLD,
    maxDeltaStep = p.maxDeltaStep ?? 0,
    constrained = p.constrained ? 1 : 0
  const uniforms = {
    ...shape,
    ...p,
    maxCatThreshold,
    maxDeltaStep,
    weightGain: constrained || +(maxDeltaStep !== 0),
    constrained,
  }
  return { spec: splitEvaluateSpec, shape, buffers, uniforms, constants }
}

/** Refuses parameters XGBoost refuses (lambda, alpha, min_child_weight, max_delta_step ≥ 0), naming them. */
export function checkSplitParams(p: SplitParams): void {
  for (const [name, v] of [
    ['lambda', p.lambda],
    ['alpha', p.alpha],
    ['min_child_weight', p.minChildWeight],
    ['max_delta_step', p.maxDeltaStep ?? 0],
  ] as const) {
    if (!(Number.isFinite(v) && v >= 0))
      throw new RangeError(`split_evaluate: ${name} must be a finite number ≥ 0, got ${v}`)
  }
  const t = p.maxCatThreshold ?? DEFAULT_MAX_CAT_THRESHOLD
  if (!(Number.isInteger(t) && t >= 1 && t < 2 ** 32))
    throw new RangeError(`split_evaluate: max_cat_threshold must be an integer ≥ 1, got ${t}`)
}
