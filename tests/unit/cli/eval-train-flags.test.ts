/**
 * `--eval-train` on the command line (training-rows metrics, GBDT): refused for another family and
 * with --ranks > 1 (a rank holds a share of the rows), naming the flag, before any browser starts;
 * set, it reaches the run's config as evalTrain.
 */
import { describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli.ts'
import { trainConfig, type TrainFlags } from '../../../src/cli/train.ts'

const TABLE = 'public/tables/marketing'
const train = (...args: string[]) => runMain(['train', '--table', TABLE, '--label', 'y', ...args])

describe('--eval-train', () => {
  it('only for the GBDT, and on one rank', async () => {
    const r = await train('--model', 'recsys', '--eval-train')
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--eval-train: only for --model gbdt/)
    const ranks = await train('--model', 'gbdt', '--eval-train', '--ranks', '2')
    expect(ranks.code).toBe(2)
    expect(ranks.stderr).toMatch(/--eval-train: training-rows metrics need the rows on one rank; got --ranks 2/)
  })

  it('reaches the config as evalTrain; absent, the config has none', () => {
    const flags = { label: 'y', features: [], 'split-key': [], params: '{}', ranks: 1 } as unknown as TrainFlags
    const table = { url: 'http://h/t/', path: '/t' } as unknown as Parameters<typeof trainConfig>[1]
    expect(trainConfig({ ...flags, 'eval-train': true }, table).evalTrain).toBe(true)
    expect('evalTrain' in trainConfig({ ...flags, 'eval-train': false }, table)).toBe(false)
  })
})
