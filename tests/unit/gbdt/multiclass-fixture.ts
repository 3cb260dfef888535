/** A hand-built multiclass booster (random trees with covers, round-major), for the model-file, predict and SHAP tests. */
import { DEFAULT_PARAMS } from '../../../src/models/gbdt/params.ts'
import type { Booster, GbdtParams } from '../../../src/models/gbdt/types.ts'
import type { Rng } from '../../../src/util/rng.ts'
import { shapTree } from './shap-fixture.ts'

/**
 * K classes × `rounds` rounds of random trees (depth ≤ 4, categorical splits on the first
 * `catFeatures` features) over F features, round-major (tree t is class t % K), with random loss
 * changes; base_score 0.5 as XGBoost's multiclass default.
 */
export function multiclassBooster(
  rng: Rng,
  K: number,
  rounds: number,
  F: number,
  catFeatures = 0,
  objective: GbdtParams['objective'] = 'multi:softprob',
  labelValues?: Array<string | number>,
): Booster {
  const trees = Array.from({ length: K * rounds }, () => {
    const t = shapTree(rng, F, 4, catFeatures)
    for (let k = 0; k < t.left.length; k++) {
      if (t.left[k] >= 0) t.lossChange[k] = rng.uniform(0, 3)
      t.baseWeight[k] = t.left[k] < 0 ? t.splitCondition[k] : rng.uniform(-1, 1)
    }
    return t
  })
  return {
    params: { ...DEFAULT_PARAMS, objective, num_class: K, eval_metric: ['mlogloss'], num_round: rounds },
    featureNames: Array.from({ length: F }, (_, f) => `f${f}`),
    featureTypes: Array.from({ length: F }, (_, f) => (f < catFeatures ? 'c' : 'float')),
    baseScore: 0.5,
    trees,
    numClass: K,
    ...(labelValues ? { labelValues } : {}),
    history: [],
    bestIteration: rounds - 1,
  }
}
