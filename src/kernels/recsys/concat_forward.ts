/** concat_forward: the MLP input = [embeddings, dense] per row (shaders/recsys/concat_forward.wgsl). */
import source from '../../../shaders/recsys/concat_forward.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec, UniformField } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** b = B rows, e = E = S·D embedding floats per row, cd = Cd dense inputs per row. */
export interface ConcatShape {
  b: number
  e: number
  cd: number
}

/** Uniforms shared by concat_forward and concat_backward. */
export const CONCAT_UNIFORMS: readonly UniformField[] = [
  { name: 'b', type: 'u32' },
  { name: 'e', type: 'u32' },
  { name: 'cd', type: 'u32' },
]

/** Spec of concat_forward; override WG (one element of inp per invocation). */
export const concatForwardSpec: KernelSpec<ConcatShape> = defineKernel({
  name: 'concat_forward',
  source,
  snippets: ['grid'],
  entryPoint: 'concat_forward',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'emb', kind: 'read-only-storage' },
    { binding: 2, name: 'dense', kind: 'read-only-storage' },
    { binding: 3, name: 'inp', kind: 'storage' },
  ],
  uniforms: CONCAT_UNIFORMS,
  overrides: { WG: 256 },
  dispatchSize: (s, k) => linearDispatch(s.b * (s.e + s.cd), k.WG),
})

/** Writes inp f32 [B × (E + Cd)] from emb f32 [B × E] and dense f32 [B × Cd] (a ≥4-byte buffer when Cd = 0). */
export function concatForwardCall(
  buffers: { emb: GPUBuffer; dense: GPUBuffer; inp: GPUBuffer },
  shape: ConcatShape,
): KernelCall<ConcatShape> {
  return { spec: concatForwardSpec, shape, buffers, uniforms: { ...shape } }
}
