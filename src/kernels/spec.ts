/**
 * The typed description of one WGSL kernel (STYLE.md §6): the runner, the pipeline cache key and
 * the parity test all read the same object, so bindings and dispatch geometry live in one place.
 */
import type { BindingSpec, ComputeProgram, OverrideConstants } from '../gpu/types.ts'
import type { SnippetName } from './wgsl.ts'

/** Scalar types of uniform fields; each takes 4 bytes in the `Params` struct. */
export type UniformType = 'u32' | 'i32' | 'f32'

/** One field of a kernel's `Params` uniform struct, in declaration order. */
export interface UniformField {
  name: string
  type: UniformType
}

/** Workgroup-grid size in workgroups, [x, y, z]. */
export type Dispatch = readonly [number, number, number]

/** A compute kernel: WGSL + bindings + uniform layout + overrides + dispatch geometry. */
export interface KernelSpec<Shape> extends ComputeProgram {
  /** The kernel's own .wgsl text; `code` is it plus `snippets` (wgsl.ts defineKernel). */
  source?: string
  /** Shared shaders/lib snippets appended to `source`, in order. */
  snippets?: readonly SnippetName[]
  /** Fields of the uniform struct bound as the binding named 'params' (empty: no uniform). */
  uniforms: readonly UniformField[]
  /** Default values of the `override` constants (workgroup / tile sizes). */
  overrides: OverrideConstants
  /** Workgroups to dispatch for `shape` with override values `constants` (pure). */
  dispatchSize(shape: Shape, constants: OverrideConstants): Dispatch
}

/** Largest workgroup count per grid dimension every WebGPU device allows. */
export const MAX_WORKGROUPS_PER_DIM = 65535

/**
 * Grid for `n` items, `perWorkgroup` each: ceil(n / perWorkgroup) workgroups, folded into x·y
 * once past 65535. Kernels rebuild the flat workgroup index as `wid.y * nwg.x + wid.x` and
 * guard `i < n`, because folding may launch up to x − 1 surplus workgroups.
 */
export function linearDispatch(n: number, perWorkgroup: number): Dispatch {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`linearDispatch: n must be an integer ≥ 0, got ${n}`)
  if (!(perWorkgroup >= 1)) throw new RangeError(`linearDispatch: perWorkgroup must be ≥ 1, got ${perWorkgroup}`)
  const groups = Math.ceil(n / perWorkgroup)
  if (groups <= MAX_WORKGROUPS_PER_DIM) return [groups, groups > 0 ? 1 : 0, groups > 0 ? 1 : 0]
  const y = Math.ceil(groups / MAX_WORKGROUPS_PER_DIM)
  if (y > MAX_WORKGROUPS_PER_DIM) throw new RangeError(`linearDispatch: ${n} items exceed the grid limit`)
  return [Math.ceil(groups / y), y, 1]
}

/** Total workgroups in `d`; 0 means "nothing to dispatch". */
export function workgroupCount(d: Dispatch): number {
  return d[0] * d[1] * d[2]
}

/**
 * Packs `values` into the std140-compatible bytes of the uniform struct `fields`
 * (4 bytes per scalar, size rounded up to 16). Throws naming a missing field.
 */
export function packUniforms(
  kernel: string,
  fields: readonly UniformField[],
  values: Readonly<Record<string, number>>,
): ArrayBuffer {
  const buf = new ArrayBuffer(Math.max(16, Math.ceil((fields.length * 4) / 16) * 16))
  const view = new DataView(buf)
  fields.forEach((f, i) => {
    const v = values[f.name]
    if (typeof v !== 'number' || Number.isNaN(v))
      throw new TypeError(`${kernel}: uniform '${f.name}' missing or not a number`)
    if (f.type === 'f32') view.setFloat32(i * 4, v, true)
    else if (f.type === 'i32') view.setInt32(i * 4, v, true)
    else view.setUint32(i * 4, v, true)
  })
  return buf
}

/** The spec's bindings other than the 'params' uniform: the buffers a caller must pass. */
export function bufferBindings(spec: { bindings: readonly BindingSpec[] }): BindingSpec[] {
  return spec.bindings.filter(b => b.name !== 'params')
}
