/**
 * Reference for row_compact.wgsl: the rows whose node is built (nodeSlot[positions[i]] ≥ 0) and
 * the indirect dispatch arguments of a consumer over them. N = rows.
 * The kernel's list holds the same rows, in blocks of RPI rows that land in atomic order: compare
 * it as a set (sorted), or feed it to histogram_build_rows, whose exact sums ignore order.
 */
import { ROW_UNUSED } from './gradient.ref.ts'
import { MAX_WORKGROUPS_PER_DIM } from '../spec.ts'

/** Rows [0, n) whose node is built, ascending (Uint32Array). */
export function rowCompact(positions: Uint32Array, nodeSlot: Int32Array, n: number): Uint32Array {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const p = positions[i]
    if (p !== ROW_UNUSED && p < nodeSlot.length && nodeSlot[p] >= 0) out.push(i)
  }
  return Uint32Array.from(out)
}

/**
 * [x, y, z] workgroups for `count` · `groups` items at `wg` per workgroup, folded like
 * linearDispatch (x ≤ 65535); [0, 0, 0] when there is nothing to do.
 */
export function rowCompactArgs(count: number, groups: number, wg: number): [number, number, number] {
  const g = Math.ceil((count * groups) / wg)
  if (g <= MAX_WORKGROUPS_PER_DIM) return [g, g > 0 ? 1 : 0, g > 0 ? 1 : 0]
  const y = Math.ceil(g / MAX_WORKGROUPS_PER_DIM)
  return [Math.ceil(g / y), y, 1]
}
