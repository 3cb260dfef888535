/** Building BenchRows from samples, and attaching a peer for the side-by-side ratio. */
import { adapterLabel } from '../src/gpu/device.ts'
import { betterRatio, metricValues, summarize } from './measure.ts'
import type { BenchRow, Sample, SuiteContext } from './types.ts'

/** What one measured workload contributes to a row. */
export interface RowInput {
  workload: string
  metric: string
  unit: string
  samples: readonly Sample[]
  /** Metric value from the seconds one sample took (e.g. bytes / s / 1e9 for GB/s). */
  fromSeconds: (seconds: number) => number
}

/** A row stamped with the context's suite, adapter, commit and date. */
export function makeRow(ctx: SuiteContext, input: RowInput): BenchRow {
  const { values, timing } = metricValues(input.samples, input.fromSeconds)
  const { min, median, max } = summarize(values)
  return {
    suite: ctx.suite,
    workload: input.workload,
    metric: input.metric,
    value: median,
    unit: input.unit,
    repeats: values.length,
    min,
    median,
    max,
    timing,
    adapter: adapterLabel(ctx.adapter),
    commit: ctx.commit,
    date: ctx.date,
  }
}

/** `row` compared with `peer` (same unit): peer name, its median, and the direction-aware ratio. */
export function withPeer(row: BenchRow, peer: BenchRow): BenchRow {
  if (row.unit !== peer.unit)
    throw new Error(`withPeer: ${row.workload} (${row.unit}) vs ${peer.workload} (${peer.unit})`)
  return { ...row, peer: peer.workload, peer_value: peer.value, ratio: betterRatio(row.value, peer.value, row.unit) }
}

/**
 * `row` without its peer: for a row copied into another suite (a ceiling), whose peer is a row of
 * the suite that measured it, not of the one it is copied into.
 */
export function withoutPeer(row: BenchRow): BenchRow {
  const { peer: _peer, peer_value: _value, ratio: _ratio, ...rest } = row
  return rest
}

/** The row with the best value among `rows` (all in one unit). */
export function bestRow(rows: readonly BenchRow[]): BenchRow {
  if (rows.length === 0) throw new RangeError('bestRow: no rows')
  return rows.reduce((best, r) => (betterRatio(r.value, best.value, r.unit) > 1 ? r : best))
}
