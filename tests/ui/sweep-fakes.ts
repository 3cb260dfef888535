/** Test data for the sweep UI: trials and sweep states built from a few numbers. */
import type { SweepConfig, SweepState, TrialRecord, TrialStatus } from '../../src/ui/types.ts'

/** A trial whose curve has one point per resource 1…reached, metric rising towards `metric`. */
export function trial(
  id: number,
  status: TrialStatus,
  config: Record<string, unknown>,
  metric: number | undefined,
  reached = 3,
  resource = 9,
): TrialRecord {
  const curve =
    metric === undefined
      ? []
      : Array.from({ length: reached }, (_, i) => ({
          resource: i + 1,
          metric: metric - (reached - 1 - i) * 0.01,
          elapsedMs: (i + 1) * 100,
        }))
  return {
    id,
    config,
    status,
    bracket: 0,
    rung: status === 'stopped' ? 0 : 1,
    resource,
    curve,
    metric,
    gpuSeconds: id * 0.5 + 0.25,
    wallSeconds: 1,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
    error: status === 'failed' ? `trial ${id}: out of memory` : undefined,
  }
}

export const CONFIG: SweepConfig = {
  model: 'gbdt',
  table: 'http://h/tables/m/',
  version: 0,
  label: 'y',
  strategy: 'hyperband',
  seed: 1,
  minResource: 1,
  maxResource: 9,
  eta: 3,
  space: { eta: { type: 'loguniform', low: 0.01, high: 0.3 }, max_depth: { type: 'int', low: 2, high: 8 } },
}

/** n trials with varying eta / max_depth; metric grows with max_depth so importance favours it. */
export function trials(n: number): TrialRecord[] {
  return Array.from({ length: n }, (_, i) =>
    trial(
      i,
      i % 3 === 2 ? 'stopped' : 'completed',
      { eta: 0.01 * (1 + (i % 4)), max_depth: 2 + (i % 5), grow: i % 2 ? 'lossguide' : 'depthwise' },
      0.7 + (i % 5) * 0.02,
      i % 3 === 2 ? 1 : 3,
    ),
  )
}

/** A stand-in for window.snaptrain.sweepImportance: undefined below 8 trials, else max_depth 90 %, eta 10 %. */
export function importanceOf(s: SweepState): Array<{ param: string; importance: number }> | undefined {
  return s.trials.length < 8
    ? undefined
    : [
        { param: 'max_depth', importance: 0.9 },
        { param: 'eta', importance: 0.1 },
      ]
}

/** A finished sweep over `ts` with its best trial. */
export function sweepState(id: string, ts: TrialRecord[], over: Partial<SweepState> = {}): SweepState {
  const best = ts.filter(t => t.metric !== undefined).sort((a, b) => b.metric! - a.metric!)[0]
  return {
    id,
    config: CONFIG,
    status: 'finished',
    trials: ts,
    best: best && { trial: best.id, params: best.config, metric: best.metric! },
    stoppedEarly: ts.filter(t => t.status === 'stopped').length,
    gpuSeconds: 3,
    gpuSecondsFullBudget: 9,
    wallSeconds: 4,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:01:00.000Z',
    ...over,
  }
}
