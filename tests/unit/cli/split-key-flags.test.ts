/**
 * `--split-key` on the command line: refused without a validation share (--valid-table), and a column the
 * table lacks or that has no canonical serialisation is named before any browser starts.
 */
import { describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli.ts'

const TABLE = 'public/tables/marketing'

describe('--split-key', () => {
  it('needs a validation share', async () => {
    const argv = ['train', '--model', 'gbdt', '--table', TABLE, '--label', 'y', '--split-key', 'job']
    const r = await runMain([...argv, '--valid-table', TABLE])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/--split-key: needs a validation share/)
  })

  it.each(['gbdt', 'recsys'])('%s: an unknown key column is named before training', async model => {
    const r = await runMain([
      'train',
      '--model',
      model,
      '--table',
      TABLE,
      '--label',
      'y',
      '--valid-fraction',
      '0.2',
      '--split-key',
      'job,nope',
    ])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/--split-key: no column nope in the table/)
    expect(r.stderr).not.toMatch(/round|epoch/)
  })
})
