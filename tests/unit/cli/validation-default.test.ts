/**
 * One validation default for every shell: `snaptrain train` and `snaptrain sweep` without
 * --valid-fraction / --valid-table hold out DEFAULT_VALID_FRACTION of the rows — the share the
 * page's train and sweep forms start with — and say so; `train --valid-fraction 0` asks for none.
 */
import { describe, expect, it } from 'vitest'
import { validationChoice } from '../../../src/cli/data-flags.ts'
import { DEFAULT_VALID_FRACTION } from '../../../src/eval/validation.ts'
import { defaultForm } from '../../../src/ui/sweep-draft.ts'
import { runMain } from '../../support/cli.ts'

const TABLE = 'public/tables/marketing'

describe('validation default', () => {
  it('is one share, said with its source', () => {
    expect(DEFAULT_VALID_FRACTION).toBeGreaterThan(0)
    const d = validationChoice({}, true)
    expect(d.validFraction).toBe(DEFAULT_VALID_FRACTION)
    expect(d.line).toBe(
      `validation: ${DEFAULT_VALID_FRACTION * 100} % of rows by row key (default; --valid-fraction 0 for none)`,
    )
    // A sweep needs validation rows: no "for none" there.
    expect(validationChoice({}, false).line).not.toMatch(/none/)
    expect(validationChoice({ 'valid-fraction': 0.1, 'split-key': ['job'] }, true)).toEqual({
      validFraction: 0.1,
      line: 'validation: 10 % of rows by the row key job (--valid-fraction 0.1)',
    })
    expect(validationChoice({ 'valid-fraction': 0 }, true)).toEqual({
      line: 'validation: none (--valid-fraction 0): no validation metrics',
    })
    expect(validationChoice({ 'valid-table': 'v' }, true).validFraction).toBeUndefined()
  })

  it('refuses what no shell can use, naming the flag', () => {
    expect(() => validationChoice({ 'valid-fraction': 0 }, false)).toThrow(
      /--valid-fraction: must be in \(0, 1\), got 0/,
    )
    expect(() => validationChoice({ 'valid-fraction': 1 }, true)).toThrow(/--valid-fraction: must be in \[0, 1\)/)
    expect(() => validationChoice({ 'valid-fraction': 0.2, 'valid-table': 'v' }, true)).toThrow(/give at most one/)
  })

  it("the page's sweep form starts with the same share", () => {
    expect(Number(defaultForm('gbdt', {}, 'y', []).validFraction)).toBe(DEFAULT_VALID_FRACTION)
  })

  it('train: early stopping works with the default and is refused with --valid-fraction 0', async () => {
    const none = await runMain([
      'train',
      '--table',
      TABLE,
      '--label',
      'y',
      '--valid-fraction',
      '0',
      '--params',
      '{"early_stopping_rounds":2}',
    ])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/early_stopping_rounds: needs a validation set/)
    const key = await runMain([
      'train',
      '--table',
      TABLE,
      '--label',
      'y',
      '--valid-fraction',
      '0',
      '--split-key',
      'job',
    ])
    expect(key.code).toBe(2)
    expect(key.stderr).toMatch(/--split-key: needs a validation share/)
  })

  it('sweep: refuses --valid-fraction 0 before any browser starts', async () => {
    const r = await runMain(['sweep', '--model', 'gbdt', '--table', TABLE, '--label', 'y', '--valid-fraction', '0'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--valid-fraction: must be in \(0, 1\), got 0/)
  })
})
