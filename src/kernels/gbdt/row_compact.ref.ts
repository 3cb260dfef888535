/**
 * Reference for row_compact.wgsl: the rows whose node is built (slot = nodeSlot[positions[i]] in
 * [0, S)), grouped by slot, and the indirect dispatch arguments of a consumer over them. N = rows.
 * The kernel's list has the same slot groups, but rows within a group land in atomic order:
 * compare each group as a set, or feed the list to histogram_build_rows (exact, order-free sums).
 */
import { ROW_UNUSED } from './layout.ts'
import { MAX_WORKGROUPS_PER_DIM } from '../spec.ts'

/** Slot of row i, or −1 when its node is not built (unused row, node past the table, slot ∉ [0, S)). */
export function rowSlot(positions: Uint32Array, nodeSlot: Int32Array, slots: number, i: number): number {
  const p = positions[i]
  if (p === ROW_UNUSED || p >= nodeSlot.length) return -1
  return nodeSlot[p] >= 0 && nodeSlot[p] < slots ? nodeSlot[p] : -1
}

/** Rows [0, n) whose node is built, by ascending slot, then ascending row (Uint32Array). */
export function rowCompact(positions: Uint32Array, nodeSlot: Int32Array, slots: number, n: number): Uint32Array {
  const groups: number[][] = Array.from({ length: slots }, () => [])
  for (let i = 0; i < n; i++) {
    const s = rowSlot(positions, nodeSlot, slots, i)
    if (s >= 0) groups[s].push(i)
  }
  return Uint32Array.from(groups.flat())
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
