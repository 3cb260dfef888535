import { expect, it } from 'vitest'
import * as tune from '../../../src/tune/index.ts'

it('re-exports the engine API', () => {
  for (const name of ['parseSpace', 'defaultSpace', 'createStrategy', 'resolveStrategyOptions', 'validateStrategyOptions', 'hyperbandPlan', 'ashaRungs',
    'tpeSuggest', 'bestTrial', 'bestSoFar', 'gpuSecondsTotal', 'fullBudgetSeconds', 'planCost', 'parameterImportance', 'sweepImportance', 'exportSweep', 'importSweep',
    'trialsCsv', 'MemoryStore', 'IdbStore', 'grid', 'sample', 'encode', 'decode']) {
    expect(typeof (tune as Record<string, unknown>)[name], name).toBe('function')
  }
  const space = tune.parseSpace(tune.defaultSpace('gbdt'), 'gbdt')
  const s = tune.createStrategy(space, tune.resolveStrategyOptions('gbdt', { strategy: 'hyperband', trials: 27 }))
  expect(tune.planCost(s.plan(), 81)).toMatchObject({ configs: 27, fullBudget: 27 * 81 })
})
