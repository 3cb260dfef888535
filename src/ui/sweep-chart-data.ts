/**
 * Pure data builders of the sweep charts (uPlot's column layout: x values, then one array per
 * series, null where a series has no point): learning curves of all trials, best-so-far over
 * time, and the parallel-coordinates lines (params vs metric, each axis normalised to [0, 1]).
 */
import type { SweepState, TrialRecord } from './types.ts'
import { minimizes } from '../tune/sweep-state.ts'

/** uPlot AlignedData without the uPlot import: x, then one y array per series. */
export type Columns = [number[], ...Array<Array<number | null>>]

/** 'maximize' for auc, 'minimize' for logloss (SweepConfig.metric; tune/sweep-state.ts minimizes). */
export function directionOf(state: Pick<SweepState, 'config'>): 'maximize' | 'minimize' {
  return minimizes(state.config) ? 'minimize' : 'maximize'
}

/** Learning curves: x = every resource any trial reported (sorted); one series per trial with points. */
export interface CurvesData {
  columns: Columns
  trials: TrialRecord[]
}

/** One series per trial that reported at least once; a trial's y is null at resources it did not reach. */
export function curvesData(trials: readonly TrialRecord[]): CurvesData {
  const drawn = trials.filter(t => t.curve.length > 0).sort((a, b) => a.id - b.id)
  const xs = [...new Set(drawn.flatMap(t => t.curve.map(p => p.resource)))].sort((a, b) => a - b)
  const at = new Map(xs.map((x, i) => [x, i]))
  const ys = drawn.map(t => {
    const y: Array<number | null> = xs.map(() => null)
    for (const p of t.curve) y[at.get(p.resource)!] = p.metric
    return y
  })
  return { columns: [xs, ...ys], trials: drawn }
}

/**
 * Best reported metric so far against seconds since the first trial started: one point per
 * report that improved on the best. A report's time is its trial's startedAt + elapsedMs.
 */
export function bestSoFar(trials: readonly TrialRecord[], direction: 'maximize' | 'minimize'): Columns {
  const reports = trials
    .flatMap(t => {
      const start = t.startedAt ? Date.parse(t.startedAt) : NaN
      return Number.isFinite(start)
        ? t.curve.filter(p => Number.isFinite(p.metric)).map(p => ({ at: start + p.elapsedMs, metric: p.metric }))
        : []
    })
    .sort((a, b) => a.at - b.at)
  if (reports.length === 0) return [[], []]
  const t0 = Math.min(...trials.flatMap(t => (t.startedAt ? [Date.parse(t.startedAt)] : [])))
  const xs: number[] = [],
    ys: number[] = []
  let best = direction === 'maximize' ? -Infinity : Infinity
  for (const r of reports) {
    if (direction === 'maximize' ? r.metric <= best : r.metric >= best) continue
    best = r.metric
    xs.push((r.at - t0) / 1000)
    ys.push(best)
  }
  return [xs, ys]
}

/** One axis of the parallel-coordinates plot; `categories` for non-numeric parameters. */
export interface ParallelAxis {
  name: string
  min: number
  max: number
  log: boolean
  categories?: string[]
}

/** One trial's line: y per axis in [0, 1]; `score` in [0, 1] with 1 = best metric (for colour). */
export interface ParallelLine {
  trial: number
  metric: number
  y: number[]
  score: number
}

/** Axes (varying params, then the metric) and one line per trial with a metric. */
export interface ParallelData {
  axes: ParallelAxis[]
  lines: ParallelLine[]
}

/** True when `space[name]` is a log-scaled domain (loguniform, or int with log). */
function isLog(space: Record<string, unknown> | undefined, name: string): boolean {
  const d = space?.[name] as { type?: string; log?: boolean } | undefined
  return d?.type === 'loguniform' || (d?.type === 'int' && d.log === true)
}

/** The axis of parameter `name` over `trials`, or undefined when it does not vary. */
function paramAxis(
  trials: readonly TrialRecord[],
  name: string,
  space?: Record<string, unknown>,
): ParallelAxis | undefined {
  const values = trials.map(t => t.config[name])
  if (values.every(v => typeof v === 'number')) {
    const nums = values as number[]
    const min = Math.min(...nums),
      max = Math.max(...nums)
    return min === max ? undefined : { name, min, max, log: isLog(space, name) && min > 0 }
  }
  const categories = [...new Set(values.map(v => JSON.stringify(v)))].sort()
  return categories.length < 2 ? undefined : { name, min: 0, max: categories.length - 1, log: false, categories }
}

/** `v` on `axis` mapped to [0, 1] (log axes in log space; categories by their index). */
export function normalise(axis: ParallelAxis, v: unknown): number {
  const x = axis.categories ? axis.categories.indexOf(JSON.stringify(v)) : Number(v)
  const f = axis.log ? Math.log : (z: number) => z
  const span = f(axis.max) - f(axis.min)
  return span > 0 ? (f(x) - f(axis.min)) / span : 0.5
}

/**
 * Parallel coordinates of trials that have a metric (failed ones excluded): an axis per
 * parameter that varies among them (log-scaled where the space says so), then the metric axis.
 */
export function parallelData(
  trials: readonly TrialRecord[],
  direction: 'maximize' | 'minimize',
  space?: Record<string, unknown>,
  metricName = 'metric',
): ParallelData {
  const done = trials
    .filter(t => t.status !== 'failed' && typeof t.metric === 'number' && Number.isFinite(t.metric))
    .sort((a, b) => a.id - b.id)
  if (done.length === 0) return { axes: [], lines: [] }
  const names = [...new Set(done.flatMap(t => Object.keys(t.config)))].sort()
  const axes = names.map(n => paramAxis(done, n, space)).filter((a): a is ParallelAxis => a !== undefined)
  const metrics = done.map(t => t.metric!)
  const metricAxis: ParallelAxis = {
    name: metricName,
    min: Math.min(...metrics),
    max: Math.max(...metrics),
    log: false,
  }
  axes.push(metricAxis)
  const lines = done.map(t => {
    const m = normalise(metricAxis, t.metric)
    return {
      trial: t.id,
      metric: t.metric!,
      y: axes.map((a, i) => (i === axes.length - 1 ? m : normalise(a, t.config[a.name]))),
      score: direction === 'maximize' ? m : 1 - m,
    }
  })
  return { axes, lines }
}

/** uPlot columns of the parallel plot: x = axis index 0…A−1, one series per line. */
export function parallelColumns(p: ParallelData): Columns {
  return [p.axes.map((_, i) => i), ...p.lines.map(l => l.y)]
}

/** Colour of a score in [0, 1]: blue (worst) → red (best). */
export function scoreColour(score: number): string {
  const s = Math.min(1, Math.max(0, Number.isFinite(score) ? score : 0))
  return `hsl(${Math.round((1 - s) * 220)}, 70%, 45%)`
}
