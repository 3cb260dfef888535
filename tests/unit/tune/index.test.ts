import { expect, it } from 'vitest'
import * as tune from '../../../src/tune/index.ts'
import * as sweep from '../../../src/sweep/index.ts'
import { MODEL_PARAMS } from '../../../src/sweep/model-params.ts'
import { familyOf } from '../../../src/models/registry.ts'

it('re-exports the engine API', () => {
  for (const name of [
    'parseSpace',
    'defaultSpace',
    'createStrategy',
    'resolveStrategyOptions',
    'validateStrategyOptions',
    'hyperbandPlan',
    'ashaRungs',
    'tpeSuggest',
    'bestTrial',
    'bestSoFar',
    'gpuSecondsTotal',
    'fullBudgetSeconds',
    'planCost',
    'parameterImportance',
    'sweepImportance',
    'exportSweep',
    'importSweep',
    'trialsCsv',
    'optunaJournal',
    'warmStartFromJournal',
    'grid',
    'sample',
    'encode',
    'decode',
  ]) {
    expect(typeof (tune as Record<string, unknown>)[name], name).toBe('function')
  }
  // The stores are the sweep runtime's (the engine imports no store).
  for (const name of ['MemoryStore', 'IdbStore']) {
    expect(typeof (sweep as Record<string, unknown>)[name], name).toBe('function')
    expect((tune as Record<string, unknown>)[name], name).toBeUndefined()
  }
  const space = tune.parseSpace(tune.defaultSpace(familyOf('gbdt')), MODEL_PARAMS.gbdt)
  const s = tune.createStrategy(
    space,
    tune.resolveStrategyOptions(familyOf('gbdt'), { strategy: 'hyperband', trials: 27 }),
  )
  expect(tune.planCost(s.plan(), 81)).toMatchObject({ configs: 27, fullBudget: 27 * 81 })
})
