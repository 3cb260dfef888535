/**
 * Collective totals across ranks: what `snaptrain train --ranks N --json` reports per op.
 * R = world size.
 */
import type { CollectiveStats } from './types.ts'

/** Order ops are listed in. */
const OPS: CollectiveStats['op'][] = ['allreduce', 'broadcast', 'allgather', 'barrier']

/**
 * One row per op over every rank: `calls` = calls per rank (rank 0's; every rank makes the same
 * calls), `bytes` = bytes moved, summed over all ranks (each rank's sent + received payloads),
 * `ms` = the slowest rank's total time in that op (time a rank waited, communication included).
 */
export function combineStats(perRank: CollectiveStats[][]): CollectiveStats[] {
  const out: CollectiveStats[] = []
  for (const op of OPS) {
    const rows = perRank.map(s => s.find(x => x.op === op)).filter((x): x is CollectiveStats => x !== undefined)
    if (rows.length === 0) continue
    out.push({
      op,
      calls: perRank[0]?.find(x => x.op === op)?.calls ?? 0,
      bytes: rows.reduce((s, x) => s + x.bytes, 0),
      ms: Math.max(...rows.map(x => x.ms)),
    })
  }
  return out
}

/** Adds one call to `totals` (a per-op map kept by a collective). */
export function addCall(
  totals: Map<CollectiveStats['op'], CollectiveStats>,
  op: CollectiveStats['op'],
  bytes: number,
  ms: number,
): void {
  const s = totals.get(op) ?? { op, calls: 0, bytes: 0, ms: 0 }
  s.calls++
  s.bytes += bytes
  s.ms += ms
  totals.set(op, s)
}
