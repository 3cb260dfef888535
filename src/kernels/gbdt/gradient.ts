/** gradient: per-row (g, h) of the objective at the margins (shaders/gbdt/gradient.wgsl). */
import source from '../../../shaders/gbdt/gradient.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { OBJECTIVE_COUNT } from './layout.ts'
import { defineKernel } from '../wgsl.ts'

/** Problem shape: `n` rows. */
export interface GradientShape {
  n: number
}

/** Spec of gradient; override WG = workgroup size (invocations). */
export const gradientSpec: KernelSpec<GradientShape> = defineKernel({
  name: 'gradient',
  source,
  snippets: ['grid'],
  entryPoint: 'gradient',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'margins', kind: 'read-only-storage' },
    { binding: 2, name: 'labels', kind: 'read-only-storage' },
    { binding: 3, name: 'weights', kind: 'read-only-storage' },
    { binding: 4, name: 'positions', kind: 'read-only-storage' },
    { binding: 5, name: 'gpair', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'objective', type: 'u32' },
    { name: 'hasWeights', type: 'u32' },
    { name: 'hasPositions', type: 'u32' },
    { name: 'scalePosWeight', type: 'f32' },
    { name: 'objParam', type: 'f32' },
    { name: 'classes', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.n, c.WG),
})

/** Buffers of a gradient call; `weights` / `positions` may be omitted (any small buffer is bound). */
export interface GradientBuffers {
  /** f32 × N current margins (raw scores). */
  margins: GPUBuffer
  /** f32 × N labels. */
  labels: GPUBuffer
  /** f32 × N row weights, or undefined for all 1. */
  weights?: GPUBuffer
  /** u32 × N node positions; 0xFFFFFFFF = row not sampled → (0, 0). Undefined: all rows used. */
  positions?: GPUBuffer
  /** Output: vec2<f32> × N (g, h). */
  gpair: GPUBuffer
}

/**
 * A call writing gpair for `n` rows. `objective`: an objective id of layout.ts (OBJECTIVE_*;
 * models/gbdt/objective.ts maps XGBoost's names to them); `scalePosWeight` multiplies the weight of
 * rows labelled 1 under the logistic, squared error and squared log error objectives; `objParam`:
 * the objective's parameter (huber_slope, max_delta_step, tweedie_variance_power or quantile_alpha).
 */
export function gradientCall(
  buffers: GradientBuffers,
  n: number,
  objective: number,
  scalePosWeight = 1,
  objParam = 0,
  constants: { WG?: number } = {},
): KernelCall<GradientShape> {
  if (!(Number.isInteger(objective) && objective >= 0 && objective < OBJECTIVE_COUNT)) {
    throw new RangeError(`gradient: objective id must be an integer in [0, ${OBJECTIVE_COUNT - 1}], got ${objective}`)
  }
  if (!Number.isFinite(objParam)) throw new RangeError(`gradient: objParam must be finite, got ${objParam}`)
  // An absent buffer's binding still needs some read-only storage buffer: margins, never read there.
  const bound = {
    ...buffers,
    weights: buffers.weights ?? buffers.margins,
    positions: buffers.positions ?? buffers.margins,
  }
  const uniforms = {
    n,
    objective,
    hasWeights: buffers.weights ? 1 : 0,
    hasPositions: buffers.positions ? 1 : 0,
    scalePosWeight,
    objParam,
    classes: 1,
  }
  return { spec: gradientSpec, shape: { n }, buffers: bound, uniforms, constants }
}

/** Spec of softmax_gradient (gradient.wgsl's multiclass entry point): one invocation per row, K pairs each. */
export const softmaxGradientSpec: KernelSpec<GradientShape> = {
  ...gradientSpec,
  name: 'softmax_gradient',
  entryPoint: 'softmax_gradient',
}

/**
 * A call writing the multiclass pairs of `n` rows × `classes` (gradient.ref.ts softmaxGradient):
 * margins, positions and gpair hold N × K entries (row i, class k at i·K + k), labels and weights N.
 */
export function softmaxGradientCall(
  buffers: GradientBuffers,
  n: number,
  classes: number,
  constants: { WG?: number } = {},
): KernelCall<GradientShape> {
  if (!(Number.isInteger(classes) && classes >= 2))
    throw new RangeError(`softmax_gradient: classes must be an integer ≥ 2, got ${classes}`)
  const call = gradientCall(buffers, n, 0, 1, 0, constants)
  return { ...call, spec: softmaxGradientSpec, uniforms: { ...call.uniforms, classes } }
}
