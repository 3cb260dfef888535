/** row_partition: moves rows of nodes split this level to their children (shaders/gbdt/row_partition.wgsl). */
import source from '../../../shaders/gbdt/row_partition.wgsl?raw'
import type { KernelCall } from '../runner.ts'
import type { KernelSpec } from '../spec.ts'
import { linearDispatch } from '../spec.ts'
import type { PartitionShape } from './layout.ts'
import { defineKernel } from '../wgsl.ts'

/** Spec of row_partition; override WG = workgroup size (one row per invocation). */
export const rowPartitionSpec: KernelSpec<PartitionShape> = defineKernel({
  name: 'row_partition',
  source,
  snippets: ['grid'],
  entryPoint: 'row_partition',
  bindings: [
    { binding: 0, name: 'params', kind: 'uniform' },
    { binding: 1, name: 'bins', kind: 'read-only-storage' },
    { binding: 2, name: 'missOff', kind: 'read-only-storage' },
    { binding: 3, name: 'splits', kind: 'read-only-storage' },
    { binding: 4, name: 'positions', kind: 'storage' },
  ],
  uniforms: [
    { name: 'rows', type: 'u32' },
    { name: 'rowWords', type: 'u32' },
    { name: 'nodes', type: 'u32' },
    { name: 'classes', type: 'u32' },
  ],
  overrides: { WG: 256 },
  dispatchSize: (shape, c) => linearDispatch(shape.rows * (shape.classes ?? 1), c.WG),
})

/**
 * A call updating `positions` (u32 × N, in place) from `bins` (u32 × F·rowWords), `missOff`
 * (u32 × F) and the split table `splits`; with shape.classes = C > 1, `positions` is u32 × N·C (u32 × K·SPLIT_TABLE_WORDS, layout at SPLIT_TABLE_WORDS in
 * layout.ts).
 */
export function rowPartitionCall(
  buffers: { bins: GPUBuffer; missOff: GPUBuffer; splits: GPUBuffer; positions: GPUBuffer },
  shape: PartitionShape,
  constants: { WG?: number } = {},
): KernelCall<PartitionShape> {
  if (shape.rowWords < Math.ceil(shape.rows / 4))
    throw new RangeError(`row_partition: rowWords ${shape.rowWords} < ceil(rows / 4) for ${shape.rows} rows`)
  return { spec: rowPartitionSpec, shape, buffers, uniforms: { ...shape, classes: shape.classes ?? 1 }, constants }
}
