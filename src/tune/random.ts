/**
 * Random search: `trials` configurations drawn from the space with the sweep's seed, each at its
 * full resource; warm-started, the first of them is the best prior configuration.
 */
import type { SearchSpace, StrategyOptions } from './types.ts'
import { Rng } from '../util/rng.ts'
import { sample } from './space.ts'
import { FlatStrategy, resourceFrom } from './flat.ts'
import { bestPrior } from './book.ts'
import { DEFAULT_TRIALS } from './defaults.ts'

/** Random strategy (trials default DEFAULT_TRIALS); draws are in issue order from one Rng(seed). */
export function createRandom(space: SearchSpace, o: StrategyOptions): FlatStrategy {
  const rng = new Rng(o.seed)
  const first = bestPrior(o.prior, o.direction)
  return new FlatStrategy(
    'random',
    o.trials ?? DEFAULT_TRIALS,
    o.maxResource,
    i => (i === 0 && first ? first : sample(space, rng)),
    resourceFrom(o.resourceParam, o.maxResource),
  )
}
