/**
 * `snaptrain train --weight COL --base-margin COL` and `snaptrain predict --base-margin COL`
 * in-process (one shared headless Chromium) on a small table written here: the manifest names the
 * weight and base margin columns, neither becomes a feature, and the model loads; predicting with
 * the base margin column starts each row's margin there instead of at base_score; a negative
 * weight is refused naming the column, file and row before any browser starts, and --weight with
 * a family that takes no weights is a usage error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { baseMargin } from '../../../src/models/gbdt/objective.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'
import { frame, ROWS, SPECS, writeTable } from '../../unit/reliability/bad-tables.ts'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-weights-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
shareAppPage()

const WSPECS = [
  ...SPECS,
  { name: 'w', type: 'double', nullable: false },
  { name: 'm', type: 'double', nullable: false },
] as const
const good = join(tmp, 'weighted'),
  negative = join(tmp, 'negative-weight')
const weights = Float64Array.from({ length: ROWS }, (_, i) => (i % 5 === 0 ? 0 : 0.5 + (i % 3)))
const margins = Float64Array.from({ length: ROWS }, (_, i) => ((i * 11) % 7) / 7 - 0.5)

beforeAll(async () => {
  await writeTable(good, frame({ w: weights, m: margins }, [...WSPECS]), [...WSPECS])
  await writeTable(negative, frame({ w: weights.map((v, i) => (i === 9 ? -2 : v)), m: margins }, [...WSPECS]), [
    ...WSPECS,
  ])
})

const RUN = ['--backend', 'cpu', '--params', '{"num_round":2,"max_depth":2,"base_score":0.5}']

describe('snaptrain train --weight / --base-margin', () => {
  it('records the columns in the manifest, keeps them out of the features; predict starts at the base margin', async () => {
    const out = join(tmp, 'run')
    const r = await runMain([
      'train',
      '--table',
      good,
      '--label',
      'label',
      '--weight',
      'w',
      '--base-margin',
      'm',
      '--valid-fraction',
      '0.25',
      '--out',
      out,
      ...RUN,
    ])
    expect(r.code, r.stderr).toBe(0)
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(m).toMatchObject({ label: 'label', weight: 'w', base_margin: 'm' })
    // The continue jobs take no weights yet: the bundle is not written, saying why.
    expect(m.continue_error).toMatch(/row weights \(--weight w\) and base margins \(--base-margin m\) are not carried/)
    expect(r.stderr).toMatch(/continue bundle not written/)
    expect(m.features.map((f: { name: string }) => f.name)).toEqual(['x', 'z', 'cat'])
    expect(m.columns).toEqual(expect.arrayContaining(['w', 'm']))
    const model = fromXGBoostJson(readFileSync(join(out, 'model.json'), 'utf8'))
    expect(model.featureNames).toEqual(['x', 'z', 'cat'])
    expect(model.trees).toHaveLength(2)

    let calls = 0
    const preds = async (extra: string[]) => {
      const file = join(tmp, `preds-${calls++}.csv`)
      const p = await runMain(['predict', '--model', join(out, 'model.json'), '--table', good, '--out', file, ...extra])
      expect(p.code, p.stderr).toBe(0)
      return readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map(l => Number(l.split(',')[0]))
    }
    // The page's predictor (GPU kernel) with base margins; the CPU reference's start is unit-tested.
    const plain = await preds(['--cpu']),
      shifted = await preds(['--base-margin', 'm'])
    const base = baseMargin(model.params.objective, model.baseScore)
    expect(shifted).toHaveLength(ROWS)
    shifted.forEach((v, i) => expect(v).toBeCloseTo(plain[i] - base + margins[i], 5))
  }, 60_000)

  it('a negative weight is refused naming the column, file and row, before any browser', async () => {
    const r = await runMain(['train', '--table', negative, '--label', 'label', '--weight', 'w', ...RUN])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/weight column w: negative weight -2 at part-[^ ]+\.parquet row 9/)
    expect(r.ms).toBeLessThan(10_000)
  })

  it('a weight column that is the label, --weight for gblinear, a missing base margin column are refused', async () => {
    const asLabel = await runMain(['train', '--table', good, '--label', 'label', '--weight', 'label', ...RUN])
    expect(asLabel.stderr).toMatch(/weight column label: it is the label column/)
    expect(asLabel.code).not.toBe(0)
    const linear = await runMain(['train', '--model', 'gblinear', '--table', good, '--label', 'label', '--weight', 'w'])
    expect(linear.stderr).toMatch(/--weight: only for --model gbdt/)
    expect(linear.code).toBe(2)
    // predict: a base margin column the table lacks (the model from the first test).
    const model = join(tmp, 'run', 'model.json')
    const p = await runMain(['predict', '--model', model, '--table', good, '--cpu', '--base-margin', 'nope'])
    expect(p.stderr).toMatch(/base margin column nope: not in the table \(columns: label, x, z, cat, w, m\)/)
    expect(p.code).toBe(1)
  })
})
