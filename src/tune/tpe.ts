/**
 * A compact Tree-structured Parzen Estimator (Bergstra et al. 2011) over the unit cube of a space
 * (log scales are linear there). After `nStartup` random configurations, finished results are split
 * at the γ quantile into good (l) and bad (g); each dimension gets its own Parzen estimator
 * (independent TPE); `candidates` draws from l are scored by Σ log l − log g and the best is taken.
 * Parallel use: pending (running) trials are ignored — the simple "constant liar"-free variant,
 * so parallel workers may receive similar configurations.
 */
import type { ParamDomain, SearchSpace, StrategyOptions, TrialConfig } from './types.ts'
import { Rng } from '../util/rng.ts'
import { choiceIndex, decode, encodeDim, sample, searchDims } from './space.ts'
import { bestPrior, priorObservations, score, type Observation } from './book.ts'
import { categoricalSample, fitCategorical, fitParzen, parzenLogPdf, parzenSample, type Parzen } from './parzen.ts'
import { FlatStrategy, resourceFrom } from './flat.ts'
import { DEFAULT_TRIALS } from './defaults.ts'

/** TPE knobs (defaults: nStartup 10, gamma 0.25, candidates 24). */
export interface TpeOptions {
  nStartup?: number
  gamma?: number
  candidates?: number
}

type DimModel = { kind: 'num'; l: Parzen; g: Parzen } | { kind: 'cat'; l: number[]; g: number[] }

/**
 * Suggests one configuration from finished `obs` (metric by `direction`); random while fewer
 * than nStartup (≥ 2) observations. Consumes `rng` deterministically.
 */
export function tpeSuggest(
  space: SearchSpace,
  obs: readonly Observation[],
  direction: 'maximize' | 'minimize',
  rng: Rng,
  opts: TpeOptions = {},
): TrialConfig {
  const nStartup = Math.max(2, opts.nStartup ?? 10)
  if (obs.length < nStartup) return sample(space, rng)
  const sorted = [...obs].sort((a, b) => score(b.metric, direction) - score(a.metric, direction))
  const nGood = Math.min(sorted.length - 1, Math.max(1, Math.ceil((opts.gamma ?? 0.25) * sorted.length)))
  const good = sorted.slice(0, nGood),
    bad = sorted.slice(nGood)
  const dims = searchDims(space)
  const models = dims.map(k => fitDim(space[k], k, good, bad))
  let best: number[] = [],
    bestScore = -Infinity
  for (let c = 0; c < (opts.candidates ?? 24); c++) {
    const u = models.map(m => drawDim(m, rng))
    const s = models.reduce((acc, m, i) => acc + ratio(m, u[i]), 0)
    if (s > bestScore || best.length === 0) {
      best = u
      bestScore = s
    }
  }
  return decode(
    space,
    best.map((u, i) => (models[i].kind === 'cat' ? (u + 0.5) / (models[i] as { l: number[] }).l.length : u)),
  )
}

function fitDim(d: ParamDomain, k: string, good: readonly Observation[], bad: readonly Observation[]): DimModel {
  if (d.type === 'categorical') {
    const idx = (os: readonly Observation[]): number[] =>
      os.map(o => choiceIndex(d.choices, o.config[k])).filter(i => i >= 0)
    return {
      kind: 'cat',
      l: fitCategorical(idx(good), d.choices.length),
      g: fitCategorical(idx(bad), d.choices.length),
    }
  }
  const xs = (os: readonly Observation[]): number[] => os.map(o => encodeDim(d, o.config[k]))
  return { kind: 'num', l: fitParzen(xs(good)), g: fitParzen(xs(bad)) }
}

/** A draw from l: a unit coordinate (num) or a choice index (cat). */
function drawDim(m: DimModel, rng: Rng): number {
  return m.kind === 'num' ? parzenSample(m.l, rng) : categoricalSample(m.l, rng)
}

function ratio(m: DimModel, u: number): number {
  if (m.kind === 'num') return parzenLogPdf(m.l, u) - parzenLogPdf(m.g, u)
  return Math.log(m.l[u]) - Math.log(m.g[u])
}

/**
 * TPE strategy: `trials` (default DEFAULT_TRIALS) configurations, each at its full resource.
 * Warm-started, the first is the best prior configuration and the prior trials join the finished
 * ones TPE fits (so its model starts from them, past the random start-up when there are enough).
 */
export function createTpe(space: SearchSpace, o: StrategyOptions, tpe: TpeOptions = {}): FlatStrategy {
  const rng = new Rng(o.seed)
  const first = bestPrior(o.prior, o.direction)
  const prior = priorObservations(o.prior, o.maxResource)
  const propose = (i: number, book: { observations(): Observation[] }): TrialConfig =>
    i === 0 && first ? first : tpeSuggest(space, [...prior, ...book.observations()], o.direction, rng, tpe)
  return new FlatStrategy(
    'tpe',
    o.trials ?? DEFAULT_TRIALS,
    o.maxResource,
    propose,
    resourceFrom(o.resourceParam, o.maxResource),
  )
}
