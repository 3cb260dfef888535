/**
 * `snaptrain scan` through the fault-injecting server, one case per fault (fault-cases.ts):
 * retryable faults give exactly the fault-free rows (same digest, same summary); wrong bytes and
 * a file replaced mid-run fail with exit 1 and a message naming the file's URL and the fault.
 * Runs the command in-process (scan.ts `run`), on a small clicks table written here (three
 * versions, v0 in 4 files of 4 row groups each, as the sample table but 20,000 rows): every
 * request kind the faults aim at (log, footer, row groups read one by one: 10 GETs per v0 file)
 * without the 200k rows, read 14 times. At 4,000 rows a file is read whole in 2 GETs, and the
 * faults on a third GET find nothing to fault (the check below on n = 3 fails).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../src/cli/scan.ts'
import { writeClicks } from '../../../tools/datagen/clicks.ts'
import { startFaultServer, type FaultServer } from '../../support/fault-server.ts'
import { FAULT_CASES } from '../../unit/reliability/fault-cases.ts'

const ARGS = ['--columns', 'user_id,device,label']

interface ScanOutcome {
  code: number
  digest: string
  rows: number
  stderr: string
  ms: number
}

async function scanThrough(server: FaultServer, extra: string[] = []): Promise<ScanOutcome> {
  const out: string[] = []
  const err: string[] = []
  const t0 = performance.now()
  const table = server.tableUrl
  const code = await run(['--table', table, ...ARGS, ...extra], {
    out: l => out.push(l),
    err: l => err.push(l),
  })
  const text = out.join('\n')
  // Each run has its own mount (perRun): the summary's table URL is the one thing that differs.
  const located = text.replaceAll(table.replace(/\/$/, ''), '<table>')
  return {
    code,
    digest: createHash('sha256').update(located).digest('hex'),
    rows: text ? text.split('\n').length : 0,
    stderr: err.join('\n'),
    ms: performance.now() - t0,
  }
}

describe('scan through injected faults', () => {
  let root: string
  /** The table's live rows as its generator counted them. */
  let generatedRows: number
  let server: FaultServer
  let clean: ScanOutcome
  const timings: string[] = []

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'snaptrain-faults-scan-'))
    generatedRows = (await writeClicks({ dir: join(root, 'clicks'), rows: 20_000, seed: 42 })).finalRows
    server = await startFaultServer(join(root, 'clicks'), { perRun: true })
    clean = await scanThrough(server)
  })
  afterAll(async () => {
    await server?.close()
    if (root) rmSync(root, { recursive: true, force: true })
    console.log(`scan × fault (ms):\n${timings.join('\n')}`)
  })

  it('fault-free baseline reads every row', () => {
    expect(clean.code).toBe(0)
    expect(clean.rows).toBe(generatedRows)
    expect(server.injected).toEqual([])
  })

  for (const c of FAULT_CASES) {
    it(`${c.name}: ${c.error ? 'fails naming the URL and the fault' : 'same rows as fault-free'}`, async () => {
      server.configure(c.rules)
      const r = await scanThrough(server)
      timings.push(`${c.name}\t${r.code === 0 ? 'identical' : 'failed'}\t${Math.round(r.ms)}`)
      expect(server.injected.length).toBeGreaterThan(0)
      // A rule on request 3 hit a data file's third read (a column chunk, past the footer).
      if (c.rules.some(rule => rule.nth?.includes(3)))
        expect(server.injected.some(f => f.n === 3 && f.path.endsWith('.parquet'))).toBe(true)
      if (c.error) {
        expect(r.code).toBe(1)
        expect(r.stderr).toMatch(c.error)
        expect(r.stderr).toContain(server.tableUrl)
      } else {
        expect(r.stderr).toBe('')
        expect(r.code).toBe(0)
        expect(r.digest).toBe(clean.digest)
      }
    })
  }

  it('a persistent 503 fails after the retries, naming the URL and the status', async () => {
    server.configure([{ kind: 'status-5xx', nth: Array.from({ length: 20 }, (_, i) => i + 1) }])
    const r = await scanThrough(server)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`GET ${server.tableUrl}part-[^ ]+\\.parquet: 503`))
  })

  it('the --json summary is the same through faults', async () => {
    server.configure([])
    const a = await scanThrough(server, ['--json'])
    server.configure([{ kind: 'reset', path: /\.(parquet|json)$/, nth: [1, 2] }])
    const b = await scanThrough(server, ['--json'])
    expect(server.injected.length).toBeGreaterThan(0)
    expect(b.code).toBe(0)
    expect(b.digest).toBe(a.digest)
  })
})
