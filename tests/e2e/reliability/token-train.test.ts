/**
 * A bearer token for `train` (GBDT and recommender), `predict` and `sweep`: the Node precheck and
 * the page (its planner and loader workers) send `Authorization: Bearer T` to the table's origin
 * and to no other (the log points one data file at a second server), and the token appears in no
 * output: stdout, stderr, the out folder's files (manifest, metrics, model, sweep.json,
 * trials.csv) or preds.csv. Without the token the table's origin answers 401 and the run fails
 * naming the URL. The runs are in-process (main with a captured io) on one browser for the file;
 * each page run still costs seconds on 2 shared cores, so the runs are tiny.
 */
import { describe, expect, it } from 'vitest'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { runMain, shareAppPage, type CliResult } from '../../support/cli.ts'
import { useTwoOrigins } from '../../support/two-origins.ts'
import { httpFor } from '../../../src/run/config.ts'
import { sweepRunConfig } from '../../../src/sweep/data-cache.ts'
import type { SweepConfig } from '../../../src/tune/types.ts'

const TOKEN = 'tr41n-t0ken-77c1'
const AUTH = `Bearer ${TOKEN}`
const KILL_MS = 150_000
const GBDT = [
  '--label',
  'y',
  '--features',
  'age,balance,job',
  '--filter',
  'age < 30',
  '--params',
  '{"num_round":2,"max_depth":3}',
]

const origins = useTwoOrigins(AUTH, 'snaptrain-token-')
shareAppPage()

/** Every file under `folder` as text, joined (binary files too: a token would show as bytes). */
async function allText(folder: string): Promise<string> {
  const names = await readdir(folder, { recursive: true, withFileTypes: true })
  const texts = await Promise.all(
    names.filter(n => n.isFile()).map(n => readFile(join(n.parentPath, n.name), 'latin1')),
  )
  return texts.join('\n')
}

/** Clears both servers' request logs, runs the CLI, and checks where the token went. */
async function runWithToken(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  origins.a.requests.length = 0
  origins.b.requests.length = 0
  const r = await runMain(args, env)
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout + r.stderr).not.toContain(TOKEN)
  const gets = origins.a.requests.filter(q => q.method === 'GET')
  for (const q of gets) expect(q.authorization, q.path).toBe(AUTH)
  // The page read the table too (its requests carry the app page's Origin), with the token.
  expect(gets.filter(q => q.origin !== undefined).length).toBeGreaterThan(0)
  expect(origins.b.requests.length).toBeGreaterThan(0) // the file on B was read …
  for (const q of origins.b.requests) expect(q.authorization, q.path).toBeUndefined() // … without the token
  return r
}

describe('headers for a second table', () => {
  it('go only to the origin of the training table (a validation table elsewhere gets none)', () => {
    const h = { Authorization: AUTH }
    const config = { table: 'https://data.test/t/', headers: h }
    expect(httpFor(config, 'https://data.test/v/')).toEqual({ headers: h })
    expect(httpFor(config, 'http://127.0.0.1:5/v/')).toEqual({})
    expect(httpFor({ table: config.table }, config.table)).toEqual({})
    // A sweep's reads: the cache's HTTP options go to every table, its headers to the training table's origin only.
    const c = { table: config.table } as SweepConfig
    const run = sweepRunConfig(c, { workers: 0, http: { timeoutMs: 5, headers: h } })
    expect(run.workers).toBe(0)
    expect(httpFor(run, 'https://data.test/v/')).toEqual({ timeoutMs: 5, headers: h })
    expect(httpFor(run, 'https://other.test/v/')).toEqual({ timeoutMs: 5 })
  })
})

describe('--token for the page commands', () => {
  it(
    'train (gbdt) and predict: the token reaches the table origin only and no output holds it',
    async () => {
      const out = join(origins.dir, 'gbdt')
      await runWithToken(['train', '--table', origins.a.tableUrl, ...GBDT, '--token', TOKEN, '--out', out, '--json'])
      const files = await allText(out)
      expect(files).toContain('"kind": "snaptrain-run"')
      expect(files).not.toContain(TOKEN)
      const preds = join(origins.dir, 'preds.csv')
      await runWithToken(
        ['predict', '--model', join(out, 'model.json'), '--table', origins.a.tableUrl, '--out', preds, '--json'],
        { SNAPTRAIN_TOKEN: TOKEN },
      )
      const csv = await readFile(preds, 'utf8')
      expect(csv.split('\n')[0]).toBe('margin,prediction')
      expect(csv).not.toContain(TOKEN)
    },
    2 * KILL_MS,
  )

  it(
    'without a token, train fails naming the URL with 401 (Node precheck, before a browser starts)',
    async () => {
      const r = await runMain(['train', '--table', origins.a.tableUrl, ...GBDT, '--out', join(origins.dir, 'none')])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`${origins.a.tableUrl}\\S*: 401`))
    },
    KILL_MS,
  )

  it(
    'train (recsys) with SNAPTRAIN_TOKEN',
    async () => {
      const out = join(origins.dir, 'recsys')
      // The GBDT runs' filter: a seventh of the rows, and still the file on B.
      await runWithToken(
        [
          'train',
          '--model',
          'recsys',
          '--table',
          origins.a.tableUrl,
          '--label',
          'y',
          '--features',
          'age,marital,balance',
          '--filter',
          'age < 30',
          '--params',
          '{"epochs":1,"batch_size":256,"layers":[8]}',
          '--out',
          out,
          '--json',
        ],
        { SNAPTRAIN_TOKEN: TOKEN },
      )
      expect(await allText(out)).not.toContain(TOKEN)
    },
    KILL_MS,
  )

  it(
    'sweep: one tiny trial; sweep.json, trials.csv and the best model hold no token',
    async () => {
      const out = join(origins.dir, 'sweep')
      await runWithToken([
        'sweep',
        '--table',
        origins.a.tableUrl,
        ...GBDT.slice(0, 6),
        '--model',
        'gbdt',
        '--strategy',
        'random',
        '--trials',
        '1',
        '--parallel',
        '1',
        '--max-resource',
        '2',
        '--token',
        TOKEN,
        '--out',
        out,
        '--json',
      ])
      const sweep = await readFile(join(out, 'sweep.json'), 'utf8')
      expect(sweep).toContain(origins.a.tableUrl)
      const files = await allText(out)
      expect(files).not.toContain(TOKEN)
      expect(files).not.toMatch(/"headers"|Authorization/i)
    },
    KILL_MS,
  )
})
