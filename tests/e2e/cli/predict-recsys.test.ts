/**
 * `snaptrain predict` with a recommender's model.bin in-process (main with a captured io; the page
 * in one headless Chromium shared by the file): a tiny model trained on a generated 3000-row clicks
 * table (CPU reference, in Node) scores the same table in the page, one `logit,prediction` line per
 * live row in table order, equal within 1e-5 to the reference model run in Node on the
 * checkpoint's own weights and feature layout (GPU model, and --cpu). Bad input exits non-zero
 * naming the column, the flag or the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createLoader } from '../../../src/data/loader.ts'
import { planScan } from '../../../src/data/plan.ts'
import { decodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import { featurize } from '../../../src/models/recsys/features.ts'
import { modelPredict } from '../../../src/models/recsys/model-ref.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'
import { tinyRecommender, type TinyRecommender } from '../../support/tiny-recommender.ts'

let fixture: TinyRecommender
let tmp: string
let TABLE: string
let modelPath: string
let reference: Float32Array
let liveRows: number

beforeAll(async () => {
  fixture = await tinyRecommender('snaptrain-predict-recsys-')
  ;({ tmp, modelPath } = fixture)
  TABLE = join(tmp, 'data', 'clicks')
  const url = fixture.url
  // The reference model on the checkpoint's weights, over the table's rows in table order.
  const ck = decodeCheckpoint(fixture.model)
  const snapshot = await openSnapshot(url)
  const plan = await planScan(snapshot, {})
  const spec: Record<string, 'hash32' | 'float32' | 'fixed_list'> = { label: 'float32' }
  for (const f of ck.layout.sparse) spec[f.name] = 'hash32'
  for (const f of ck.layout.dense) spec[f.name] = 'float32'
  for (const f of ck.layout.lists) spec[f.name] = 'fixed_list'
  const loader = createLoader(plan, { assign: { epoch: 0, worldSize: 1, rank: 0 }, batchSize: 1000, spec, workers: 0 })
  const parts: number[] = []
  for await (const b of loader.batches())
    parts.push(...modelPredict(ck.shape, ck.state.weights, featurize(ck.layout, b)))
  await loader.close()
  reference = Float32Array.from(parts)
  liveRows = plan.stats.rows
}, 60_000)
afterAll(() => fixture?.close())

shareAppPage()

function readPreds(path: string): { logit: number[]; prediction: number[] } {
  const [header, ...lines] = readFileSync(path, 'utf8').trim().split('\n')
  expect(header).toBe('logit,prediction')
  const rows = lines.map(l => l.split(',').map(Number))
  return { logit: rows.map(r => r[0]), prediction: rows.map(r => r[1]) }
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]))
  return d
}

describe('snaptrain predict --model model.bin (recommender)', () => {
  it('GPU model and --cpu: one line per live row in table order, the reference scores within 1e-5', async () => {
    expect(liveRows).toBeGreaterThan(1000)
    expect(new Set(reference).size).toBeGreaterThan(100) // a model whose scores tell rows apart
    for (const cpu of [false, true]) {
      const out = join(tmp, `preds-${cpu}.csv`)
      const r = await runMain([
        'predict',
        '--model',
        modelPath,
        '--table',
        TABLE,
        '--out',
        out,
        '--json',
        ...(cpu ? ['--cpu'] : []),
      ])
      expect(r.code, r.stderr).toBe(0)
      const s = JSON.parse(r.stdout.trim().split('\n').pop()!)
      expect(s).toMatchObject({ rows: liveRows, out })
      if (cpu) expect(s.adapter).toMatch(/cpu/)
      const p = readPreds(out)
      expect(p.prediction).toHaveLength(liveRows)
      expect(maxDiff(p.prediction, reference)).toBeLessThan(1e-5)
      expect(
        maxDiff(
          p.logit.map(z => 1 / (1 + Math.exp(-z))),
          p.prediction,
        ),
      ).toBeLessThan(1e-6)
    }
  }, 60_000)

  it('a table without a model feature column names it', async () => {
    const r = await runMain([
      'predict',
      '--model',
      modelPath,
      '--table',
      'public/tables/marketing',
      '--out',
      join(tmp, 'x.csv'),
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/model feature \w+: no such column/)
  }, 60_000)

  it('--contribs and a truncated model.bin exit 2 before a browser starts, naming the flag / file', async () => {
    const c = await runMain(['predict', '--model', modelPath, '--table', TABLE, '--contribs'])
    expect(c.code).toBe(2)
    expect(c.stderr).toMatch(/--contribs: .*GBDT/)
    const cut = join(tmp, 'cut.bin')
    writeFileSync(cut, readFileSync(modelPath).subarray(0, 200))
    const t = await runMain(['predict', '--model', cut, '--table', TABLE])
    expect(t.code).toBe(2)
    expect(t.stderr).toMatch(/--model .*cut\.bin: not a recsys checkpoint/)
  })
})
