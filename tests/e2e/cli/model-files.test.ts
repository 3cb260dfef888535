/**
 * Model file flags of the CLI (headless Chromium shared by the file): `train --model-format ubj
 * --init-model model.json` continues a model into DIR/model.ubj, and `predict --model model.ubj`
 * gives the margins of the CPU predictor; bad model flags exit before any browser starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { readTable } from '../../../src/eval/dataset.ts'
import { modelFeatures } from '../../../src/models/gbdt/predict-run.ts'
import { categoriesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { decodeModel } from '../../../src/models/gbdt/model-file.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'

const TABLE = 'public/tables/marketing'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-model-files-'))
let server: ServedDirectory
let initPath: string

beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  const r = await runTraining({
    table: `${server.url}marketing/`,
    label: 'y',
    features: ['age', 'job', 'balance'],
    params: { num_round: 2, max_depth: 3 },
    backend: 'cpu',
    workers: 0,
  })
  initPath = join(tmp, 'init.json')
  writeFileSync(initPath, r.model)
}, 60_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

shareAppPage()

describe('model file flags', () => {
  it('train --model-format ubj --init-model, then predict --model model.ubj', async () => {
    const out = join(tmp, 'run')
    const t = await runMain([
      'train',
      '--table',
      TABLE,
      '--label',
      'y',
      '--init-model',
      initPath,
      '--model-format',
      'ubj',
      '--params',
      '{"num_round":2,"max_depth":3}',
      '--backend',
      'cpu',
      '--out',
      out,
      '--json',
    ])
    expect(t.stderr).toMatch(/continuing a model of 2 trees/)
    expect(t.code).toBe(0)
    expect(JSON.parse(t.stdout.trim().split('\n').pop()!).model_path).toBe(join(out, 'model.ubj'))
    const json = decodeModel(readFileSync(join(out, 'model.ubj')))
    const booster = fromXGBoostJson(json)
    expect(booster.trees).toHaveLength(4)
    expect(booster.featureNames).toEqual(['age', 'job', 'balance'])
    const init = fromXGBoostJson(readFileSync(initPath, 'utf8'))
    expect(booster.trees.slice(0, 2)).toEqual(init.trees)

    const preds = join(tmp, 'preds.csv')
    const p = await runMain(['predict', '--model', join(out, 'model.ubj'), '--table', TABLE, '--cpu', '--out', preds])
    expect(p.code, p.stderr).toBe(0)
    const url = `${server.url}marketing/`
    const snapshot = await openSnapshot(url)
    const cats = categoriesOf(json)
    const table = await readTable(snapshot, modelFeatures(booster, snapshot.schema, cats, url), cats, { workers: 0 })
    const want = predictMargins(booster, table.columns)
    const got = readFileSync(preds, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map(l => Number(l.split(',')[0]))
    expect(got).toHaveLength(want.length)
    got.forEach((m, i) => expect(Math.abs(m - want[i])).toBeLessThanOrEqual(1e-6))
  }, 180_000)

  it.each([
    [['--init-model', 'nope.json'], 2, /--init-model .*nope\.json: no such file/],
    [['--model', 'recsys', '--model-format', 'ubj'], 2, /--model-format: only for --model gbdt/],
    [['--model-format', 'bin'], 2, /--model-format: expected one of json, ubj/],
  ])('refuses %j before any browser starts', async (flags, code, message) => {
    const r = await runMain(['train', '--table', TABLE, '--label', 'y', ...flags])
    expect(r.code).toBe(code)
    expect(r.stderr).toMatch(message)
  })

  it('refuses an init model whose features the table lacks, naming the feature', async () => {
    const bad = join(tmp, 'bad.json')
    writeFileSync(bad, readFileSync(initPath, 'utf8').replace('"feature_names":["age"', '"feature_names":["agex"'))
    const r = await runMain(['train', '--table', TABLE, '--label', 'y', '--init-model', bad])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/model feature agex: no such column/)
  })
})
