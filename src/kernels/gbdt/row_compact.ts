/**
 * row_compact: the rows of the nodes built this level as a list grouped by slot, plus the
 * indirect dispatch arguments of histogram_build_rows over it (shaders/gbdt/row_compact.wgsl,
 * entry points row_compact, row_compact_scan, row_compact_scatter sharing one binding layout).
 */
import source from '../../../shaders/gbdt/row_compact.wgsl?raw'
import type { PipelineCache } from '../../gpu/pipeline-cache.ts'
import type { KernelCall } from '../runner.ts'
import { prepareKernel } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import { defineKernel } from '../wgsl.ts'

/** Problem shape: `n` rows, `slots` built; `groups` items per listed row and `wg` items per workgroup of the consumer. */
export interface RowCompactShape {
  n: number
  groups: number
  wg: number
  slots: number
}

/** Words of the count buffer for `slots` slots: [total, counts × slots, cursors × slots]. */
export function rowCountWords(slots: number): number {
  return 1 + 2 * slots
}

/** Bytes of the indirect-arguments buffer: u32 × 3 [x, y, z] workgroups. */
export const ROW_ARGS_BYTES = 12

/** Rows per invocation of row_compact (override RPI): one atomicAdd reserves a block's entries. */
export const ROW_COMPACT_RPI = 16

/** Spec of row_compact; overrides WG = workgroup size, RPI = rows per invocation. */
export const rowCompactSpec: KernelSpec<RowCompactShape> = defineKernel({
  name: 'row_compact',
  source,
  snippets: ['grid'],
  entryPoint: 'row_compact',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'positions', kind: 'read-only-storage' },
    { binding: 2, name: 'nodeSlot', kind: 'read-only-storage' },
    { binding: 3, name: 'rows', kind: 'storage' },
    { binding: 4, name: 'count', kind: 'storage' },
    { binding: 5, name: 'args', kind: 'storage' },
  ],
  uniforms: [
    { name: 'n', type: 'u32' },
    { name: 'groups', type: 'u32' },
    { name: 'wg', type: 'u32' },
    { name: 'slots', type: 'u32' },
  ],
  overrides: { WG: 256, RPI: ROW_COMPACT_RPI },
  dispatchSize: (s, c) => linearDispatch(Math.ceil(s.n / c.RPI), c.WG),
})

/** Spec of row_compact_scan (prefix sums, total, arguments): same module and bindings, one invocation. */
export const rowCompactScanSpec: KernelSpec<RowCompactShape> = {
  ...rowCompactSpec,
  name: 'row_compact_scan',
  entryPoint: 'row_compact_scan',
  dispatchSize: () => [1, 1, 1],
}

/** Spec of row_compact_scatter: same module, bindings and grid as row_compact. */
export const rowCompactScatterSpec: KernelSpec<RowCompactShape> = {
  ...rowCompactSpec,
  name: 'row_compact_scatter',
  entryPoint: 'row_compact_scatter',
}

/**
 * Buffers: positions u32 × N, nodeSlot i32 × M in; rows u32 × N out (first count[0] entries);
 * count u32 × rowCountWords(S) (zeroed by encodeRowCompact); args u32 × 3, needs INDIRECT usage
 * to be dispatched from.
 */
export interface RowCompactBuffers {
  positions: GPUBuffer
  nodeSlot: GPUBuffer
  rows: GPUBuffer
  count: GPUBuffer
  args: GPUBuffer
}

/** The three calls [count, scan, scatter], in order; `count` must be zero before the first. */
export function rowCompactCalls(
  buffers: RowCompactBuffers,
  shape: RowCompactShape,
  constants: { WG?: number; RPI?: number } = {},
): Array<KernelCall<RowCompactShape>> {
  for (const k of ['n', 'groups', 'wg', 'slots'] as const) {
    if (!Number.isInteger(shape[k]) || shape[k] < 0)
      throw new RangeError(`row_compact: ${k} must be an integer ≥ 0, got ${shape[k]}`)
  }
  if (shape.wg < 1) throw new RangeError(`row_compact: wg must be ≥ 1, got ${shape.wg}`)
  if (shape.n * shape.groups >= 2 ** 32)
    throw new RangeError(`row_compact: n · groups = ${shape.n} · ${shape.groups} overflows u32`)
  const rpi = constants.RPI ?? ROW_COMPACT_RPI
  if (!Number.isInteger(rpi) || rpi < 1) throw new RangeError(`row_compact: RPI must be an integer ≥ 1, got ${rpi}`)
  const call = { shape, buffers: { ...buffers }, uniforms: { ...shape }, constants }
  return [rowCompactSpec, rowCompactScanSpec, rowCompactScatterSpec].map(spec => ({ spec, ...call }))
}

/** Encodes clear(count) + the three calls into `encoder`. Returns a function freeing the uniform buffers. */
export function encodeRowCompact(
  cache: PipelineCache,
  encoder: GPUCommandEncoder,
  buffers: RowCompactBuffers,
  shape: RowCompactShape,
  constants: { WG?: number; RPI?: number } = {},
): () => void {
  const prepared = rowCompactCalls(buffers, shape, constants).map(c => prepareKernel(cache, c))
  encoder.clearBuffer(buffers.count, 0, 4 * rowCountWords(shape.slots))
  const pass = encoder.beginComputePass({ label: 'row_compact' })
  // One pass: each dispatch is its own usage scope and sees the earlier dispatches' writes.
  prepared.forEach(k => k.encode(pass))
  pass.end()
  return () => prepared.forEach(k => k.destroy())
}
