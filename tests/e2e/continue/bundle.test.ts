/**
 * The continue bundle (src/continue/bundle.ts) from real runs, in-process (main with a captured io;
 * the page in one headless Chromium shared by the file, CPU reference backend):
 * - GBDT on a generated 1500-row marketing table (string columns job, marital), filtered, 3 rounds:
 *   `snaptrain train` writes DIR/continue/ in the same group as the model; the manifest links it;
 *   continue.json's features are the model's feature_names in order, job's and marital's
 *   dictionaries the model's attribute, the validation key/seed/rows the manifest's, rounds 3; its
 *   scan.args run through `snaptrain scan` read the pinned version with exactly the label, features
 *   and key columns and the run's filter (rows = training + validation rows); continue/model.json is
 *   the run's model.json, and a UBJSON model gives the same JSON text; the page's continue.zip
 *   (bundleZip) unzips to the CLI folder's bytes; `snaptrain continue` rewrites the same bytes,
 *   `--engine dask` only the Dask job;
 * - the recommender on a generated 2000-row clicks table (its bag column): features in the model's
 *   input order (sparse, bag, dense, list) with their kinds, steps and epochs of the checkpoint;
 * - bad input: a missing folder or model file, a manifest without a pinned version, a model
 *   without feature names, an engine of the other family → RangeError / exit 2 naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { lastJson, runMain, shareAppPage } from '../../support/cli.ts'
import { continueBundle, continueFiles, continueSpec } from '../../../src/continue/bundle.ts'
import { bundleZip } from '../../../src/continue/zip.ts'
import type { ContinueSpec } from '../../../src/continue/spec.ts'
import { categoriesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import { decodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import type { RunManifest } from '../../../src/run/manifest.ts'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-bundle-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const MARKETING = join(tmp, 'data', 'marketing')
const CLICKS = join(tmp, 'data', 'clicks')
const GBDT = join(tmp, 'gbdt')
const FEATURES = ['age', 'job', 'balance', 'marital', 'duration']

beforeAll(async () => {
  const gen = await runMain([
    'data',
    '--out',
    join(tmp, 'data'),
    '--rows',
    '2000',
    '--marketing-rows',
    '1500',
    '--tables',
    'marketing,clicks',
  ])
  expect(gen.code, gen.stderr).toBe(0)
}, 60_000)
shareAppPage()

/** Every file under `dir`, by relative path → bytes. */
function folder(dir: string, prefix = ''): Record<string, Buffer> {
  const out: Record<string, Buffer> = {}
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory()) Object.assign(out, folder(join(dir, e.name), `${prefix}${e.name}/`))
    else out[prefix + e.name] = readFileSync(join(dir, e.name))
  }
  return out
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T

describe('GBDT: snaptrain train writes the bundle (marketing, age < 60, 3 rounds)', () => {
  let manifest: RunManifest
  let spec: ContinueSpec
  let modelText: string
  beforeAll(async () => {
    const r = await runMain([
      'train',
      '--table',
      MARKETING,
      '--label',
      'y',
      '--features',
      FEATURES.join(','),
      '--filter',
      'age < 60',
      '--valid-fraction',
      '0.25',
      '--seed',
      '5',
      '--params',
      '{"num_round":3,"max_depth":3,"eval_metric":["logloss","auc"]}',
      '--backend',
      'cpu',
      '--out',
      GBDT,
    ])
    expect(r.code, r.stderr).toBe(0)
    manifest = readJson(join(GBDT, 'manifest.json'))
    spec = readJson(join(GBDT, 'continue', 'continue.json'))
    modelText = readFileSync(join(GBDT, 'model.json'), 'utf8')
  }, 120_000)

  it("continue.json: the model's features and dictionaries, the run's split, table, rounds and metric", () => {
    expect(manifest.continue).toBe('continue/continue.json')
    const model = decodeModel(modelText) as { learner: { feature_names: string[] } }
    const dictionaries = categoriesOf(model)
    expect(Object.keys(dictionaries).sort()).toEqual(['job', 'marital'])
    expect(spec.features.map(f => f.name)).toEqual(model.learner.feature_names)
    for (const f of spec.features) {
      expect(f.kind).toBe(f.name in dictionaries ? 'categorical' : 'numeric')
      expect(f.dictionary).toEqual(dictionaries[f.name])
      expect(f.delta_type).toBe(manifest.features.find(m => m.name === f.name)!.delta_type)
    }
    expect(spec.features.find(f => f.name === 'job')!.delta_type).toBe('string')
    if (manifest.validation.kind !== 'fraction') throw new Error('expected a fraction split')
    expect(spec.validation).toEqual({
      kind: 'fraction',
      fraction: 0.25,
      seed: 5,
      key: manifest.validation.key,
      rows: manifest.rows_valid,
    })
    expect(manifest.seed).toBe(5)
    expect(spec).toMatchObject({
      kind: 'snaptrain-continue',
      family: 'gbdt',
      source: { kind: 'run' },
      table: {
        url: manifest.table.url,
        path: MARKETING,
        version: manifest.table.version,
        digest: manifest.table.digest,
      },
      label: 'y',
      filter: 'age < 60',
      metric: 'auc',
      seed: 5,
      done: { rounds: 3 },
      files: { model: 'model.json', jobs: ['xgboost_dask.py', 'xgboost_spark.py'] },
    })
    expect(spec.params).toEqual(manifest.params)
    expect(readFileSync(join(GBDT, 'continue', 'model.json'), 'utf8')).toBe(modelText)
    expect(readdirSync(join(GBDT, 'continue')).sort()).toEqual(
      ['continue.json', 'model.json', 'snaptrain_continue.py', 'xgboost_dask.py', 'xgboost_spark.py'].sort(),
    )
  })

  it('scan.args read the pinned version: label, features and key columns, filtered, every row of the run', async () => {
    const args = spec.scan.args
    expect(args.slice(-2)).toEqual(['--format', 'npy'])
    expect(args.slice(0, 4)).toEqual(['--table', MARKETING, '--version', String(manifest.table.version)])
    // --json instead of the npy stream: the summary names the columns read and counts the rows.
    const r = await runMain(['scan', ...args.slice(0, -2), '--json'])
    expect(r.code, r.stderr).toBe(0)
    const s = lastJson<{ version: number; rows: number; columns: Array<{ name: string }> }>(r)
    const key = manifest.validation.kind === 'fraction' ? manifest.validation.key : []
    const expected = ['y', ...FEATURES]
    for (const k of key) if (!expected.includes(k)) expected.push(k)
    expect(s.columns.map(c => c.name).sort()).toEqual(expected.sort())
    expect(s.version).toBe(manifest.table.version)
    expect(s.rows).toBe(manifest.rows_train + manifest.rows_valid)
    expect(s.rows).toBeLessThan(1500) // the filter is applied
  }, 30_000)

  it("the page's continue.zip unzips to the CLI folder's bytes; a UBJSON model gives the same bundle", () => {
    const files = continueBundle({ manifest, model: modelText })
    const cli = folder(join(GBDT, 'continue'))
    const zip = unzipSync(bundleZip(files))
    expect(Object.keys(zip).sort()).toEqual(
      Object.keys(cli)
        .map(n => `continue/${n}`)
        .sort(),
    )
    for (const [n, bytes] of Object.entries(cli)) expect(Buffer.from(zip[`continue/${n}`]).equals(bytes), n).toBe(true)
    expect(Buffer.from(bundleZip(files)).equals(Buffer.from(bundleZip(files)))).toBe(true) // deterministic
    const ubj = encodeModel(decodeModel(modelText), 'ubj')
    const fromUbj = continueBundle({ manifest, model: ubj })
    expect(fromUbj.map(f => [f.name, f.data])).toEqual(files.map(f => [f.name, f.data]))
  })

  it('snaptrain continue rewrites the same bytes; --engine dask writes only the Dask job', async () => {
    const out = join(tmp, 'again')
    const r = await runMain(['continue', '--run', GBDT, '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(folder(out)).toEqual(folder(join(GBDT, 'continue')))
    expect(lastJson(r)).toMatchObject({ out, family: 'gbdt', source: { kind: 'run' } })
    const dask = join(tmp, 'dask')
    expect((await runMain(['continue', '--run', GBDT, '--out', dask, '--engine', 'dask'])).code).toBe(0)
    expect(readdirSync(dask).sort()).toEqual([
      'continue.json',
      'model.json',
      'snaptrain_continue.py',
      'xgboost_dask.py',
    ])
    expect(readJson<ContinueSpec>(join(dask, 'continue.json')).files.jobs).toEqual(['xgboost_dask.py'])
    const torch = await runMain(['continue', '--run', GBDT, '--out', join(tmp, 'torch'), '--engine', 'torch'])
    expect(torch.code).toBe(2)
    expect(torch.stderr).toMatch(/engine torch: no job for a gbdt model/)
    expect(existsSync(join(tmp, 'torch'))).toBe(false)
  })

  it('bad input: RangeError or exit 2 naming the folder, file or field', async () => {
    const noVersion = { ...manifest, table: { ...manifest.table, version: undefined } } as unknown as RunManifest
    expect(() => continueSpec({ manifest: noVersion, model: modelText })).toThrow(/manifest\.table\.version is missing/)
    const nameless = JSON.parse(modelText)
    delete nameless.learner.feature_names
    expect(() => continueSpec({ manifest, model: JSON.stringify(nameless) })).toThrow(/no feature_names/)
    const renamed = modelText.replace('"feature_names":["age"', '"feature_names":["agez"')
    expect(() => continueSpec({ manifest, model: renamed })).toThrow(
      /model feature agez is not among manifest\.features/,
    )
    const missing = await runMain(['continue', '--run', join(tmp, 'nope')])
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/--run .*nope: no such folder/)])
    const bare = join(tmp, 'bare')
    mkdirSync(bare)
    writeFileSync(join(bare, 'manifest.json'), readFileSync(join(GBDT, 'manifest.json')))
    const noModel = await runMain(['continue', '--run', bare])
    expect([noModel.code, noModel.stderr]).toEqual([
      2,
      expect.stringMatching(/no model file \(looked for model\.json, model\.ubj\)/),
    ])
    writeFileSync(join(bare, 'model.json'), JSON.stringify(nameless))
    const bad = await runMain(['continue', '--run', bare])
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringMatching(/--run .*bare: continue bundle: model file: no feature_names/),
    ])
    expect(existsSync(join(bare, 'continue'))).toBe(false)
  })
})

describe('recommender: the bundle of a small clicks run (bag and list columns)', () => {
  it("features in the model's input order with their kinds, steps and epochs of the checkpoint", async () => {
    const out = join(tmp, 'recsys')
    const r = await runMain([
      'train',
      '--model',
      'recsys',
      '--table',
      CLICKS,
      '--label',
      'label',
      '--valid-fraction',
      '0.2',
      '--params',
      '{"epochs":1,"batch_size":512,"layers":[8],"embedding_dim":4,"eval_every":4}',
      '--backend',
      'cpu',
      '--out',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    const manifest = readJson<RunManifest & { epochs: number }>(join(out, 'manifest.json'))
    const spec = readJson<ContinueSpec>(join(out, 'continue', 'continue.json'))
    const ck = decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'model.bin'))))
    const l = ck.layout
    expect(spec.features.map(f => [f.name, f.kind])).toEqual([
      ...l.sparse.map(x => [x.name, 'sparse']),
      ...(l.bags ?? []).map(x => [x.name, 'bag']),
      ...l.dense.map(x => [x.name, 'dense']),
      ...l.lists.map(x => [x.name, 'list']),
    ])
    expect(l.bags?.length).toBeGreaterThan(0)
    expect(l.lists.length).toBeGreaterThan(0)
    expect(spec.features.find(f => f.kind === 'bag')!.delta_type).toMatch(/^array<\w+>$/)
    expect(spec.done).toEqual({ steps: ck.state.opt.step, epochs: manifest.epochs })
    expect(ck.state.opt.step).toBeGreaterThan(0)
    expect(spec).toMatchObject({ family: 'recsys', metric: 'auc', seed: manifest.seed, label: 'label' })
    expect(spec.files).toEqual({
      features: 'features.json',
      weights: 'model.safetensors',
      optimizer: 'optimizer.safetensors',
      jobs: ['torch_ddp.py'],
    })
    expect(manifest.continue).toBe('continue/continue.json')
    const again = continueFiles(spec, new Uint8Array(readFileSync(join(out, 'model.bin'))))
    for (const f of again) expect(Buffer.from(f.data).equals(readFileSync(join(out, f.name))), f.name).toBe(true)
    expect(() =>
      continueSpec({ manifest, model: new Uint8Array(readFileSync(join(out, 'model.bin'))), engine: 'dask' }),
    ).toThrow(/engine dask: no job for a recsys model/)
  }, 120_000)
})
