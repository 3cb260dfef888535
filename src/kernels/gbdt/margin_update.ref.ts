/**
 * Reference for margin_update.wgsl: adds each training row's leaf value to its margin once the
 * tree is grown (rows sit in leaves; leaf values already include eta). N = rows, K = tree nodes.
 */
import { NO_NODE } from './layout.ts'

/**
 * - positions: u32 [N] node id per row (0xFFFFFFFF or ≥ `nodes` = row skipped)
 * - leafValue: f32 [K] per node id (the tree's splitCondition array holds leaf values at leaves)
 * - margins: f32 [N] raw scores, accumulated in place (f32 add)
 */
export function marginUpdate(
  positions: Uint32Array,
  leafValue: Float32Array,
  margins: Float32Array,
  rows: number,
  nodes: number,
): void {
  for (let i = 0; i < rows; i++) {
    const node = positions[i]
    if (node === NO_NODE || node >= nodes) continue
    margins[i] = Math.fround(margins[i] + leafValue[node])
  }
}
