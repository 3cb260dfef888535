/**
 * `snaptrain train` (GBDT and recommender, tiny runs in headless Chromium; in-process, main with a
 * captured io, one browser for the file) through the fault-injecting server: retryable faults spread over the whole run (Node precheck, the page's
 * planner and its loader workers) give the fault-free model and metrics byte for byte; a range
 * answered with wrong bytes and a file replaced mid-run make the run fail, exit 1, with a message
 * naming the file's URL and the fault, well before the kill timer.
 * A representative subset of fault-cases.ts runs here (each training costs 15–30 s on 2 shared
 * cores): the retryable faults that cost a retry in every layer (5xx, reset), the non-retryable
 * ones aimed at the Node precheck and at the page's loader workers. scan runs every case
 * (faults-scan.test.ts), through the same fetch layer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO, runMain, shareAppPage, type CliResult } from '../../support/cli.ts'
import { startFaultServer, type FaultRule, type FaultServer } from '../../support/fault-server.ts'
import { everyFourth } from '../../unit/reliability/fault-cases.ts'

const KILL_MS = 150_000

interface Workload {
  name: string
  table: string
  args: string[]
  model: string
}

const GBDT: Workload = {
  name: 'gbdt',
  table: 'public/tables/marketing',
  model: 'model.json',
  args: [
    '--label',
    'y',
    '--features',
    'age,balance,job',
    '--filter',
    'age < 30',
    '--params',
    '{"num_round":3,"max_depth":3}',
  ],
}
const RECSYS: Workload = {
  name: 'recsys',
  table: 'public/tables/clicks',
  model: 'model.bin',
  args: [
    '--model',
    'recsys',
    '--label',
    'label',
    '--features',
    'user_id,item_id,device,dense_0',
    '--filter',
    "hour < 2 AND country = 'AA'",
    '--params',
    '{"epochs":1,"batch_size":256,"layers":[8]}',
  ],
}

interface Run {
  r: CliResult
  model?: string
  metrics?: string
}

/** The faults each workload runs through; `error` marks the ones that must fail. */
const CASES: Array<{ workload: Workload; fault: string; rules: FaultRule[]; error?: RegExp }> = [
  { workload: GBDT, fault: 'status-5xx (every 4th GET)', rules: everyFourth('status-5xx') },
  { workload: GBDT, fault: 'reset (every 4th GET)', rules: everyFourth('reset') },
  {
    workload: GBDT,
    fault: 'range-wrong-bytes (Node precheck, 2nd GET)',
    rules: [{ kind: 'range-wrong-bytes', nth: [2] }],
    error: /\.parquet: wrong bytes: asked for bytes=/,
  },
  {
    workload: GBDT,
    fault: 'range-wrong-bytes (page: a loader worker)',
    rules: [{ kind: 'range-wrong-bytes', pageOnly: true, nth: [2] }],
    error: /\.parquet: wrong bytes: asked for bytes=/,
  },
  {
    workload: GBDT,
    fault: 'replace-file (page: after planning, before the workers read)',
    rules: [{ kind: 'replace-file', pageOnly: true, nth: [2] }],
    error: /\.parquet: file changed while reading/,
  },
  { workload: RECSYS, fault: 'reset (every 4th GET)', rules: everyFourth('reset') },
  {
    workload: RECSYS,
    fault: 'replace-file (2nd GET)',
    rules: [{ kind: 'replace-file', nth: [2] }],
    error: /\.parquet: file changed while reading/,
  },
]

/** metrics.csv without its wall-clock columns (elapsed_seconds), which differ run to run. */
function withoutTimes(csv: string): string {
  const rows = csv
    .trim()
    .split('\n')
    .map(l => l.split(','))
  const keep = rows[0].map((name, i) => (/seconds|elapsed/.test(name) ? -1 : i)).filter(i => i >= 0)
  return rows.map(r => keep.map(i => r[i]).join(',')).join('\n')
}

describe('train through injected faults', () => {
  shareAppPage()
  const servers = new Map<string, FaultServer>()
  const clean = new Map<string, Run>()
  const timings: string[] = []
  let tmp: string

  async function train(w: Workload, rules: FaultRule[]): Promise<Run> {
    const server = servers.get(w.name)!
    server.configure(rules)
    const out = join(tmp, `${w.name}-${Math.random().toString(36).slice(2)}`)
    const r = await runMain(['train', '--table', server.tableUrl, ...w.args, '--out', out, '--json'])
    if (r.code !== 0) return { r }
    return {
      r,
      model: readFileSync(join(out, w.model)).toString('base64'),
      metrics: withoutTimes(readFileSync(join(out, 'metrics.csv'), 'utf8')),
    }
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'snaptrain-faults-'))
    for (const w of [GBDT, RECSYS]) {
      servers.set(w.name, await startFaultServer(join(REPO, w.table), { perRun: true }))
      const run = await train(w, [])
      clean.set(w.name, run)
      timings.push(`${w.name}\tfault-free\t${run.r.code === 0 ? 'ok' : 'FAILED'}\t${Math.round(run.r.ms)}`)
    }
  }, 2 * KILL_MS)
  afterAll(async () => {
    for (const s of servers.values()) await s.close()
    rmSync(tmp, { recursive: true, force: true })
    console.log(`train × fault (ms):\n${timings.join('\n')}`)
  })

  it('fault-free trainings succeed', () => {
    for (const [name, run] of clean) expect(run.r.code, `${name}: ${run.r.stderr}`).toBe(0)
  })

  for (const c of CASES) {
    it(
      `${c.workload.name}, ${c.fault}: ${c.error ? 'fails naming the URL and the fault' : 'same model and metrics'}`,
      async () => {
        const run = await train(c.workload, c.rules)
        const server = servers.get(c.workload.name)!
        timings.push(
          `${c.workload.name}\t${c.fault}\t${run.r.code === 0 ? 'identical' : 'failed'}\t${Math.round(run.r.ms)}\t${server.injected.length} injected`,
        )
        expect(server.injected.length).toBeGreaterThan(0)
        // Faults spread over the run must reach the page too, not only the CLI's checks in Node.
        if (!c.error || c.rules.some(r => r.pageOnly)) expect(server.injected.some(f => f.page)).toBe(true)
        if (c.error) {
          expect(run.r.code, run.r.stderr).toBe(1)
          expect(run.r.stderr).toMatch(c.error)
          expect(run.r.stderr).toContain(server.tableUrl)
          return
        }
        const base = clean.get(c.workload.name)!
        expect(run.r.code, run.r.stderr).toBe(0)
        expect(run.model).toBe(base.model)
        expect(run.metrics).toBe(base.metrics)
      },
      KILL_MS + 10_000,
    )
  }
})
