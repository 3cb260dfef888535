/** noop: an empty kernel for dispatch-overhead timing (bench/shaders/noop.wgsl). */
import code from '../shaders/noop.wgsl?raw'
import type { KernelCall } from '../../src/kernels/runner.ts'
import type { KernelSpec } from '../../src/kernels/spec.ts'

/** Problem shape: how many workgroups to launch. */
export interface NoopShape {
  workgroups: number
}

/** Spec of noop: no bindings, no uniforms; override WG = workgroup size. */
export const noopSpec: KernelSpec<NoopShape> = {
  name: 'noop',
  code,
  entryPoint: 'noop',
  bindings: [],
  uniforms: [],
  overrides: { WG: 64 },
  dispatchSize: s => (s.workgroups > 0 ? [s.workgroups, 1, 1] : [0, 0, 0]),
}

/** A call launching `workgroups` empty workgroups. */
export function noopCall(shape: NoopShape, constants: { WG?: number } = {}): KernelCall<NoopShape> {
  return { spec: noopSpec, shape, buffers: {}, constants }
}
