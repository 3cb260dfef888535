/**
 * The third family end to end through the registry (main with a captured io; the page in one
 * headless Chromium shared by the file): `snaptrain train --model gblinear` on marketing (age < 30)
 * writes an XGBoost gblinear model.json and its manifest; `snaptrain predict` with that model gives
 * margins equal to the model's own on the table's rows; a 2-trial random `snaptrain sweep --model
 * gblinear` keeps a gblinear best model.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lastJson, runMain, shareAppPage } from '../support/cli.ts'
import { fromXGBoostJson } from '../../src/models/gblinear/model-json.ts'
import { xgboostSigmoid } from '../../src/util/float32.ts'

const TABLE = 'public/tables/marketing'
const BASE = ['--table', TABLE, '--label', 'y', '--filter', 'age < 30', '--model', 'gblinear']
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-gblinear-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

shareAppPage()

describe('snaptrain --model gblinear (marketing, age < 30)', () => {
  const run = join(tmp, 'run')

  it('train writes an XGBoost gblinear model.json and its manifest; a rerun the same bytes', async () => {
    const params = '{"num_round":4,"eta":0.5,"lambda":0.001}'
    const rr = await runMain([
      'train',
      ...BASE,
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      params,
      '--out',
      run,
      '--json',
    ])
    expect(rr.code, rr.stderr).toBe(0)
    const s = lastJson<{ model: string; rounds: number; auc: number; adapter: string }>(rr)
    expect(s).toMatchObject({ model: 'gblinear', rounds: 4, adapter: 'cpu (coordinate descent)' })
    expect(s.auc).toBeGreaterThan(0.6)
    const doc = JSON.parse(readFileSync(join(run, 'model.json'), 'utf8'))
    expect(doc.learner.gradient_booster.name).toBe('gblinear')
    const m = fromXGBoostJson(doc)
    expect(doc.learner.gradient_booster.model.weights).toHaveLength(m.featureNames.length + 1)
    const manifest = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8'))
    expect(manifest).toMatchObject({ model: 'gblinear', seed: 3, rounds: 4, filter: 'age < 30' })
    expect(manifest.features.map((f: { name: string }) => f.name)).toEqual(m.featureNames)
    // The string columns are skipped, saying why (XGBoost's gblinear has no categorical support).
    expect(manifest.skipped_columns.map((c: { reason: string }) => c.reason)).toContainEqual(
      expect.stringMatching(/gblinear has no categorical support/),
    )
    // Same seed, same table version: the same model bytes.
    const again = join(tmp, 'again')
    const r3 = await runMain([
      'train',
      ...BASE,
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      params,
      '--out',
      again,
    ])
    expect(r3.code, r3.stderr).toBe(0)
    expect(readFileSync(join(again, 'model.json'), 'utf8')).toBe(readFileSync(join(run, 'model.json'), 'utf8'))
  }, 60_000)

  it('predict with that model: one row per table row, prediction = σ(margin)', async () => {
    const out = join(tmp, 'preds.csv')
    const r = await runMain(['predict', '--model', join(run, 'model.json'), '--table', TABLE, '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(lastJson<{ rows: number }>(r).rows).toBe(45_000)
    const lines = readFileSync(out, 'utf8').trim().split(/\r?\n/)
    const header = lines[0].split(',')
    const mi = header.indexOf('margin'),
      pi = header.indexOf('prediction')
    expect(lines).toHaveLength(45_001)
    for (const line of lines.slice(1, 200)) {
      const cells = line.split(',').map(Number)
      expect(Number.isFinite(cells[mi])).toBe(true)
      expect(cells[pi]).toBeCloseTo(xgboostSigmoid(cells[mi]), 5)
    }
  }, 60_000)

  it('sweep: 2 random trials, the best model is a gblinear model', async () => {
    const space = join(tmp, 'space.json')
    writeFileSync(space, JSON.stringify({ eta: { type: 'uniform', low: 0.2, high: 0.8 }, num_round: 2 }))
    const out = join(tmp, 'sweep')
    const r = await runMain([
      'sweep',
      ...BASE,
      '--strategy',
      'random',
      '--trials',
      '2',
      '--parallel',
      '1',
      '--seed',
      '3',
      '--space',
      space,
      '--out',
      out,
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(lastJson<{ trials: number }>(r).trials).toBe(2)
    expect(fromXGBoostJson(readFileSync(join(out, 'model.json'), 'utf8')).rounds).toBe(2)
  }, 60_000)
})
