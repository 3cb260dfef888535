/**
 * Parameter importance shown beside a sweep, computed in the UI from finished trials: for each
 * parameter, the share of the metric's variance explained by binning the trials on that
 * parameter (variance of the bin means, weighted by bin size, over the total variance) — a
 * first-order, fANOVA-like estimate that needs no model. Shares are normalised to sum to 1.
 * Trials stopped early carry their metric at a lower resource; they are counted as they are
 * (the same evidence the strategy used to stop them).
 */
import type { TrialRecord } from './types.ts'

/** Finished trials needed before importance is shown (fewer give noise, not evidence). */
export const MIN_FINISHED_FOR_IMPORTANCE = 8

/** Bins of a numeric parameter with many distinct values (equal-count, by rank). */
const NUMERIC_BINS = 4

/** One parameter's share of the explained variance, in [0, 1]. */
export interface Importance { name: string; importance: number }

/** Trials that ended (completed or stopped) with a finite metric. */
export function finishedTrials(trials: readonly TrialRecord[]): TrialRecord[] {
  return trials.filter(t => (t.status === 'completed' || t.status === 'stopped') && typeof t.metric === 'number' && Number.isFinite(t.metric))
}

/** Groups of metric values, one per bin of parameter `name`. */
function groupsOf(trials: readonly TrialRecord[], name: string): number[][] {
  const pairs = trials.map(t => ({ v: t.config[name], m: t.metric! }))
  const numeric = pairs.every(p => typeof p.v === 'number')
  const distinct = new Set(pairs.map(p => JSON.stringify(p.v))).size
  if (numeric && distinct > NUMERIC_BINS) {
    const sorted = [...pairs].sort((a, b) => (a.v as number) - (b.v as number))
    const groups: number[][] = Array.from({ length: NUMERIC_BINS }, () => [])
    sorted.forEach((p, i) => groups[Math.floor((i * NUMERIC_BINS) / sorted.length)]!.push(p.m))
    return groups
  }
  const by = new Map<string, number[]>()
  for (const p of pairs) {
    const k = JSON.stringify(p.v)
    by.set(k, [...(by.get(k) ?? []), p.m])
  }
  return [...by.values()]
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length
}

/** Between-bin variance over total variance of the metric for one parameter (0 when the metric is constant). */
function explainedShare(groups: number[][]): number {
  const all = groups.flat()
  const mu = mean(all)
  const total = all.reduce((s, x) => s + (x - mu) ** 2, 0)
  if (total <= 0) return 0
  const between = groups.reduce((s, g) => s + g.length * (mean(g) - mu) ** 2, 0)
  return between / total
}

/**
 * Importance per parameter that varies among the finished trials, largest first; undefined
 * while fewer than MIN_FINISHED_FOR_IMPORTANCE trials finished.
 */
export function paramImportance(trials: readonly TrialRecord[]): Importance[] | undefined {
  const done = finishedTrials(trials)
  if (done.length < MIN_FINISHED_FOR_IMPORTANCE) return undefined
  const names = [...new Set(done.flatMap(t => Object.keys(t.config)))].sort()
  const raw = names.map(name => ({ name, groups: groupsOf(done, name) })).filter(x => x.groups.length > 1)
    .map(x => ({ name: x.name, importance: explainedShare(x.groups) }))
  const sum = raw.reduce((s, x) => s + x.importance, 0)
  return raw.map(x => ({ name: x.name, importance: sum > 0 ? x.importance / sum : 0 }))
    .sort((a, b) => b.importance - a.importance || a.name.localeCompare(b.name))
}
