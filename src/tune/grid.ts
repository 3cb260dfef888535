/**
 * Grid search: the cartesian product of every searchable parameter's grid values, in a fixed
 * order (keys sorted, the last key varying fastest, like itertools.product), capped at `trials`.
 */
import type { ParamDomain, SearchSpace, StrategyOptions, TrialConfig } from './types.ts'
import { searchDims } from './space.ts'
import { FlatStrategy, resourceFrom } from './flat.ts'
import { bestPrior } from './book.ts'

/**
 * Grid values of one domain: `points` evenly spaced values for continuous domains (log-spaced for
 * loguniform and log ints; ints rounded and de-duplicated), every choice for categoricals.
 * With points = 1 the middle of the range.
 */
export function gridValues(d: ParamDomain, points: number): unknown[] {
  if (d.type === 'fixed') return [d.value]
  if (d.type === 'categorical') return [...d.choices]
  const log = d.type === 'loguniform' || (d.type === 'int' && d.log === true)
  const a = log ? Math.log(d.low) : d.low,
    b = log ? Math.log(d.high) : d.high
  const ts = points === 1 ? [0.5] : Array.from({ length: points }, (_, i) => i / (points - 1))
  const vals = ts.map(t => (log ? Math.exp(a + t * (b - a)) : a + t * (b - a)))
  if (d.type !== 'int') return dedupe(vals)
  return dedupe(vals.map(v => Math.min(d.high, Math.max(d.low, Math.round(v)))))
}

function dedupe(vals: number[]): number[] {
  return vals.filter((v, i) => vals.indexOf(v) === i)
}

/** Number of grid points of `space` (may exceed 2^53 for huge spaces: then Infinity-ish). */
export function gridSize(space: SearchSpace, points: number): number {
  return searchDims(space).reduce((n, k) => n * gridValues(space[k], points).length, 1)
}

/** The `index`-th grid configuration (mixed radix over searchDims, last dim fastest). */
export function gridConfig(space: SearchSpace, points: number, index: number): TrialConfig {
  const out: TrialConfig = {}
  let rest = index
  const keys = Object.keys(space).sort()
  for (let i = keys.length - 1; i >= 0; i--) {
    const vals = gridValues(space[keys[i]], points)
    out[keys[i]] = vals[rest % vals.length]
    rest = Math.floor(rest / vals.length)
  }
  return Object.fromEntries(keys.map(k => [k, out[k]]))
}

/** The first `limit` grid configurations (all when omitted), in grid order. */
export function grid(space: SearchSpace, points: number, limit = Infinity): TrialConfig[] {
  const n = Math.min(limit, gridSize(space, points))
  return Array.from({ length: n }, (_, i) => gridConfig(space, points, i))
}

/**
 * Grid strategy: min(trials, grid size) configurations (gridPoints default 3), each at its full
 * resource. Warm-started, the best prior configuration comes first, then the grid (one more
 * configuration, still capped at `trials`).
 */
export function createGrid(space: SearchSpace, o: StrategyOptions): FlatStrategy {
  const points = o.gridPoints ?? 3
  const first = bestPrior(o.prior, o.direction)
  const total = Math.min(o.trials ?? Infinity, gridSize(space, points) + (first ? 1 : 0))
  if (!Number.isFinite(total))
    throw new RangeError(
      `gridPoints: the grid of this space is too large (${gridSize(space, points)} points); set trials`,
    )
  return new FlatStrategy(
    'grid',
    total,
    o.maxResource,
    i => (first ? (i === 0 ? first : gridConfig(space, points, i - 1)) : gridConfig(space, points, i)),
    resourceFrom(o.resourceParam, o.maxResource),
  )
}
