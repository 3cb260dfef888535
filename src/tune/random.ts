/** Random search: `trials` configurations drawn from the space with the sweep's seed, each at its full resource. */
import type { SearchSpace, StrategyOptions } from './types.ts'
import { Rng } from '../util/rng.ts'
import { sample } from './space.ts'
import { FlatStrategy, resourceFrom } from './flat.ts'
import { DEFAULT_TRIALS } from './defaults.ts'

/** Random strategy (trials default DEFAULT_TRIALS); draws are in issue order from one Rng(seed). */
export function createRandom(space: SearchSpace, o: StrategyOptions): FlatStrategy {
  const rng = new Rng(o.seed)
  return new FlatStrategy(
    'random',
    o.trials ?? DEFAULT_TRIALS,
    o.maxResource,
    () => sample(space, rng),
    resourceFrom(o.resourceParam, o.maxResource),
  )
}
