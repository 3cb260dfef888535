/**
 * A run's quantisation in real loader module workers (bin-workers.ts binOffThread, as the page's
 * GBDT runs make it) equals buildCuts + binMatrix on this thread, for 2 and 3 workers.
 */
import { expect, it } from 'vitest'
import { binOffThread } from '../../src/models/gbdt/bin-workers.ts'
import { buildCuts } from '../../src/models/gbdt/cuts.ts'
import { binMatrix } from '../../src/models/gbdt/binned.ts'
import { generateSynthetic } from '../../tools/datagen/synthetic.ts'

it('cuts and binned matrix from 2 and 3 module workers equal the same-thread ones', async () => {
  const { columns } = generateSynthetic(30_000, 7) // 28 features, some with missing values
  const cuts = buildCuts(columns, 256)
  const want = { cuts, binned: binMatrix(columns, cuts) }
  expect(want.binned.missOff.some(x => x === 1)).toBe(true)
  for (const workers of [2, 3]) expect(await binOffThread(columns, 256, undefined, undefined, workers)).toEqual(want)
})
