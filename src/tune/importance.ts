/**
 * Parameter importance, fANOVA-style: a small seeded random forest fitted to the finished trials
 * (configurations in the unit cube → metric), each parameter's main-effect share of the variance
 * averaged over the trees. Deterministic for a given seed and trial list.
 */
import type { SearchSpace, SweepFamily, SweepState, TrialRecord } from './types.ts'
import { Rng } from '../util/rng.ts'
import { encode, parseSpace, searchDims, withoutParams } from './space.ts'
import { defaultSpace } from './defaults.ts'
import { reachedResource } from './cost.ts'
import { fitForest, mainEffects } from './forest.ts'

/** One parameter's importance: fraction of the metric's variance its main effect explains, in [0, 1]. */
export interface ParamImportance {
  param: string
  importance: number
}

/** Options (defaults: minTrials 8, trees 16, maxDepth 4, seed 0). */
export interface ImportanceOptions {
  minTrials?: number
  trees?: number
  maxDepth?: number
  seed?: number
}

/**
 * Importance of each searchable parameter of `space`, highest first (ties by name); undefined
 * until `minTrials` trials finished with a metric. In a multi-fidelity sweep (Hyperband, ASHA)
 * uses the trials at the largest resource reached by minTrials of them, else all finished.
 */
export function parameterImportance(
  space: SearchSpace,
  trials: readonly TrialRecord[],
  o: ImportanceOptions = {},
): ParamImportance[] | undefined {
  const minTrials = o.minTrials ?? 8
  const done = trials.filter(
    t =>
      t.status !== 'failed' &&
      t.status !== 'running' &&
      t.status !== 'pending' &&
      t.metric !== undefined &&
      Number.isFinite(t.metric),
  )
  // Metrics at different resources are comparable only when the resource is itself a searched
  // parameter (grid / random / TPE); in a multi-fidelity sweep (promotions, early stops) use one resource.
  const multiFidelity = done.some(t => t.rung > 0 || t.status === 'stopped')
  const used = (multiFidelity ? atLargestResource(done, minTrials) : undefined) ?? done
  const dims = searchDims(space)
  if (used.length < minTrials || dims.length === 0) return undefined
  const X = used.map(t => encode(space, t.config)),
    y = used.map(t => t.metric!)
  const forest = fitForest(X, y, o.trees ?? 16, new Rng(o.seed ?? 0), { maxDepth: o.maxDepth ?? 4, minLeaf: 2 })
  const sums = new Array<number>(dims.length).fill(0)
  for (const tree of forest)
    mainEffects(tree, dims.length).forEach((v, j) => {
      sums[j] += v / forest.length
    })
  return dims
    .map((param, j) => ({ param, importance: sums[j] }))
    .sort((a, b) => b.importance - a.importance || a.param.localeCompare(b.param))
}

/**
 * parameterImportance of a stored or running sweep: its space (the config's, else `family`'s
 * default; family: the description of the sweep's model) over its trials, seeded by the sweep's seed. Parameters no trial's configuration
 * carries are left out: Hyperband, ASHA and BOHB set the resource per rung instead of sampling it.
 */
export function sweepImportance(
  state: SweepState,
  family: SweepFamily,
  o: ImportanceOptions = {},
): ParamImportance[] | undefined {
  const space = parseSpace(state.config.space ?? defaultSpace(family))
  const carried = new Set(state.trials.flatMap(t => Object.keys(t.config)))
  const searched = withoutParams(
    space,
    Object.keys(space).filter(k => !carried.has(k)),
  )
  return parameterImportance(searched, state.trials, { seed: state.config.seed ?? 0, ...o })
}

function atLargestResource(done: readonly TrialRecord[], minTrials: number): TrialRecord[] | undefined {
  const by = new Map<number, TrialRecord[]>()
  for (const t of done) by.set(reachedResource(t), [...(by.get(reachedResource(t)) ?? []), t])
  const r = [...by.keys()].sort((a, b) => b - a).find(k => by.get(k)!.length >= minTrials)
  return r === undefined ? undefined : by.get(r)
}
