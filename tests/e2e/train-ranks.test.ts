/**
 * GBDT over rank workers end to end: window.snaptrain.train with ranks 2 in the app page
 * (each rank reading its share of marketing, on its own WebGPU device) returns the model R = 1
 * returns, byte for byte, with the ranks and per-collective totals in the summary and manifest;
 * then `snaptrain train --ranks 2 --json` prints them and writes that same model.json. The CLI
 * runs are in-process (main with a captured io) on this file's page server and browser; the CLI
 * as a process: tests/e2e/cli.test.ts.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { useApp } from '../support/app-harness.ts'
import type { TrainResult } from '../../src/api-types.ts'
import { lastJson, runMain } from '../support/cli.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'

const WAIT = { timeout: 120_000 }
const app = useApp()
beforeAll(() => useAppPageHost({ url: app.server.url, newPage: () => app.browser.newPage() }))
afterAll(() => useAppPageHost(undefined))
const FILTER = 'age < 35 AND balance > 500'
const PARAMS = { max_depth: 3, num_round: 3, subsample: 0.8, colsample_bytree: 0.8, seed: 7 }

/** R = 1's model from the page test, which the CLI's R = 2 model.json must equal. */
let pageModel: string | undefined

test('ranks 2 in the page: the same model as R = 1, with per-collective totals', async () => {
  const page = await (await app.browser.newContext({ bypassCSP: true })).newPage()
  const pageErrors: string[] = []
  page.on('pageerror', e => pageErrors.push(e.message))
  await page.goto(app.server.url, WAIT)
  await page.waitForFunction('window.snaptrain !== undefined', null, WAIT)
  const run = (ranks: number): Promise<TrainResult> =>
    page.evaluate<TrainResult>(`window.snaptrain.train({ table: 'tables/marketing', label: 'y',
    filter: ${JSON.stringify(FILTER)}, validFraction: 0.2, seed: 3, ranks: ${ranks}, params: ${JSON.stringify(PARAMS)} })`)
  const one = await run(1)
  // What window.snaptrain.train returns (tests/e2e/train.test.ts leaves it to this file): a model
  // of one tree per round, a manifest, and one metrics row per round.
  expect(one.metrics).toHaveLength(PARAMS.num_round)
  expect(JSON.parse(one.model).learner.gradient_booster.model.trees).toHaveLength(PARAMS.num_round)
  expect(one.summary.auc).toBeGreaterThan(0.5)
  expect(one.manifest.kind).toBe('snaptrain-run')
  const two = await run(2)
  expect(two.model).toBe(one.model)
  pageModel = one.model
  expect(two.metrics).toEqual(one.metrics)
  expect(two.summary.ranks).toBe(2)
  const allreduce = two.summary.collectives!.find(s => s.op === 'allreduce')!
  expect(allreduce.calls).toBeGreaterThan(3)
  expect(allreduce.bytes).toBeGreaterThan(0)
  expect(two.manifest.collectives).toEqual(two.summary.collectives)
  // The app page is cross-origin isolated (COOP/COEP), so allreduce goes through shared memory.
  expect(two.summary.collective_transport).toBe('shared memory')
  console.log(JSON.stringify(two.summary.collectives))
  expect(two.manifest.table.digest).toBe(one.manifest.table.digest)
  expect(await page.evaluate('window.snaptrain.version')).toBeTruthy()
  expect(pageErrors).toEqual([])
})

test('snaptrain train --ranks 2 --json reports collectives and writes the R = 1 model', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'snaptrain-ranks-'))
  const args = (ranks: number) => [
    'train',
    '--table',
    'public/tables/marketing',
    '--label',
    'y',
    '--filter',
    FILTER,
    '--valid-fraction',
    '0.2',
    '--seed',
    '3',
    '--params',
    JSON.stringify(PARAMS),
    '--ranks',
    String(ranks),
    '--out',
    join(dir, `r${ranks}`),
    '--json',
  ]
  if (pageModel === undefined) {
    const r1 = await runMain(args(1))
    expect(r1.code, r1.stderr).toBe(0)
    pageModel = readFileSync(join(dir, 'r1', 'model.json'), 'utf8')
  }
  const r2 = await runMain(args(2))
  expect(r2.code, r2.stderr).toBe(0)
  const s = lastJson<{ ranks: number; collectives: Array<{ op: string; calls: number; bytes: number; ms: number }> }>(
    r2,
  )
  expect(s.ranks).toBe(2)
  expect(s.collectives.map(c => c.op)).toEqual(expect.arrayContaining(['allreduce', 'broadcast', 'allgather']))
  expect(readFileSync(join(dir, 'r2', 'model.json'), 'utf8')).toBe(pageModel)
  // Rank 0's manifest names the folder, not the loopback server the ranks read it from.
  const m = JSON.parse(readFileSync(join(dir, 'r2', 'manifest.json'), 'utf8'))
  expect(m.table.url).toBe(`${pathToFileURL(resolve('public/tables/marketing')).href}/`)
  console.log(JSON.stringify(s.collectives))
})

test('snaptrain train --model recsys --ranks 2 --json: two rank workers, dense allreduce and sparse allgather each step', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'snaptrain-recsys-ranks-'))
  const params = { epochs: 1, batch_size: 256, embedding_dim: 4, layers: [16], lr: 0.01, eval_every: 1000 }
  const r = await runMain([
    'train',
    '--model',
    'recsys',
    '--table',
    'public/tables/clicks',
    '--label',
    'label',
    '--filter',
    'user_id < 2000',
    '--valid-fraction',
    '0.1',
    '--params',
    JSON.stringify(params),
    '--ranks',
    '2',
    '--out',
    dir,
    '--json',
  ])
  expect(r.code, r.stderr).toBe(0)
  const s = lastJson<{
    ranks: number
    steps: number
    auc: number
    collectives: Array<{ op: string; calls: number; bytes: number }>
  }>(r)
  expect(s.ranks).toBe(2)
  expect(s.auc).toBeGreaterThan(0.5)
  const byOp = Object.fromEntries(s.collectives.map(c => [c.op, c]))
  // One dense allreduce and one sparse allgather per global step.
  expect(byOp.allreduce.calls).toBeGreaterThanOrEqual(s.steps)
  expect(byOp.allgather.calls).toBeGreaterThanOrEqual(s.steps)
  expect(byOp.allreduce.bytes).toBeGreaterThan(0)
  console.log(JSON.stringify(s))
})
