/**
 * The loader's acceptance through the CLI (`snaptrain scan …` in-process, main with a captured io;
 * tables served by the CLI's loopback server or by a fault-injecting proxy here): sharding covers every
 * live row once, shuffles are seeded per epoch, cursors resume exactly, a 10%-failing server
 * changes nothing, and filter pushdown prunes yet returns exactly the filtered rows.
 *
 * Expected sets never come from the code under test's own data path: the live rows come from the
 * plain file-order scan (table reader, no plan) zipped with its ids, filtered here in the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { createLoader } from '../../../src/data/loader.ts'
import { planScan } from '../../../src/data/plan.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { lastJson, runMain, type CliResult } from '../../support/cli.ts'

const DV_TABLE = 'tests/conformance/golden/table-with-dv-large'
const SEED = '3'

let tmp = ''
let clicks = ''

/** `snaptrain scan` with args; fails the test with stderr on a non-zero exit unless `allowFail`. */
async function scan(args: string[], env: Record<string, string> = {}, allowFail = false): Promise<CliResult> {
  const res = await runMain(['scan', ...args], env)
  if (!allowFail) expect(res.code, res.stderr).toBe(0)
  return res
}

/** Ids printed with `--format ids --json`: every stdout line but the summary. */
function ids(res: CliResult): string[] {
  const lines = res.stdout.split('\n').filter(l => l !== '')
  return lines[lines.length - 1]?.startsWith('{') ? lines.slice(0, -1) : lines
}

/** Runs jobs at most `n` at a time (in-process runs overlap their I/O; the machine has 2 cores). */
async function pool<T>(jobs: (() => Promise<T>)[], n = 3): Promise<T[]> {
  const out: T[] = new Array(jobs.length)
  let next = 0
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++
        out[i] = await jobs[i]!()
      }
    }),
  )
  return out
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'snaptrain-accept-'))
  const gen = await runMain(['data', '--out', tmp, '--rows', '3000', '--marketing-rows', '500', '--tables', 'clicks'])
  expect(gen.code, gen.stderr).toBe(0)
  clicks = join(tmp, 'clicks')
}, 90_000)
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

/** Live rows of clicks in table order: ids (plan path) zipped with values (plain reader path). */
async function clicksTableOrder(): Promise<{ id: string; country: string; hour: number }[]> {
  const [idRun, rowRun, plain] = await Promise.all([
    scan(['--table', clicks, '--format', 'ids']),
    scan(['--table', clicks, '--columns', 'country,hour']),
    scan(['--table', clicks, '--json']),
  ])
  const list = ids(idRun)
  const rows = rowRun.stdout
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as { country: string; hour: number })
  expect(list).toHaveLength(rows.length)
  expect(list).toHaveLength(lastJson<{ rows: number }>(plain).rows) // reader's live count (DVs/removes applied)
  return list.map((id, i) => ({ id, ...rows[i]! }))
}

describe.each([
  { name: 'clicks with a filter', table: () => clicks, filter: 'hour < 12' },
  { name: 'table-with-dv-large (deletion vectors)', table: () => DV_TABLE, filter: undefined },
])('sharding $name', ({ table, filter }) => {
  const base = (): string[] => ['--table', table(), ...(filter ? ['--filter', filter] : [])]
  let live: string[] = []
  const runs = new Map<string, CliResult>()
  const shardArgs = (k: number, r: number, extra: string[] = []): string[] => [
    ...base(),
    '--shards',
    String(k),
    '--shard',
    String(r),
    '--seed',
    SEED,
    '--format',
    'ids',
    '--json',
    ...extra,
  ]

  beforeAll(async () => {
    const jobs: [string, string[]][] = [['live', [...base(), '--format', 'ids']]]
    for (const k of [1, 2, 3, 4]) for (let r = 0; r < k; r++) jobs.push([`drop ${k}/${r}`, shardArgs(k, r)])
    for (const k of [3, 4]) for (let r = 0; r < k; r++) jobs.push([`pad ${k}/${r}`, shardArgs(k, r, ['--mode', 'pad'])])
    const results = await pool(
      jobs.map(
        ([, args]) =>
          () =>
            scan(args),
      ),
    )
    jobs.forEach(([key], i) => runs.set(key, results[i]!))
    live = ids(runs.get('live')!)
  }, 90_000)

  it("the unsharded live set is the reader's live rows (filter applied in the test)", async () => {
    if (filter) {
      const expected = (await clicksTableOrder()).filter(r => r.hour < 12).map(r => r.id)
      expect(live).toEqual(expected)
    } else {
      const plain = await scan(['--table', table(), '--json'])
      expect(live).toHaveLength(lastJson<{ rows: number }>(plain).rows)
      expect(new Set(live).size).toBe(live.length)
    }
    expect(live.length).toBeGreaterThan(100)
  })

  it.each([1, 2, 3, 4])('K=%i, drop_last: disjoint, equal-sized, union = live rows minus the reported drop', k => {
    const n = live.length
    const shards = Array.from({ length: k }, (_, r) => runs.get(`drop ${k}/${r}`)!)
    const seen = new Set<string>()
    for (const res of shards) {
      const got = ids(res)
      const summary = lastJson<{ rows: number; rows_dropped: number }>(res)
      expect(got).toHaveLength(Math.floor(n / k))
      expect(summary.rows).toBe(got.length)
      expect(summary.rows_dropped).toBe(n % k)
      for (const id of got) {
        expect(seen.has(id)).toBe(false)
        seen.add(id)
      }
    }
    const liveSet = new Set(live)
    for (const id of seen) expect(liveSet.has(id)).toBe(true)
    expect(seen.size).toBe(n - (n % k))
  })

  it.each([3, 4])('K=%i, pad: every live row delivered, equal sizes, repeats reported', k => {
    const n = live.length
    const union = new Set<string>()
    for (let r = 0; r < k; r++) {
      const res = runs.get(`pad ${k}/${r}`)!
      expect(ids(res)).toHaveLength(Math.ceil(n / k))
      expect(lastJson<{ rows_padded: number }>(res).rows_padded).toBe((k - (n % k)) % k)
      for (const id of ids(res)) union.add(id)
    }
    expect([...union].sort()).toEqual([...live].sort())
  })

  it('epochs reshuffle and the same seed reproduces the same order', async () => {
    const epoch0 = ids(runs.get('drop 1/0')!)
    const [again, epoch1] = await pool([() => scan(shardArgs(1, 0)), () => scan(shardArgs(1, 0, ['--epoch', '1']))])
    expect(ids(again)).toEqual(epoch0)
    expect(ids(epoch1)).not.toEqual(epoch0)
    expect([...ids(epoch1)].sort()).toEqual([...live].sort())
    expect(epoch0).not.toEqual(live) // seeded: not table order
  }, 60_000)

  it('a run stopped at a position and resumed from its cursor delivers exactly the remainder', async () => {
    const full = ids(runs.get('drop 2/1')!)
    const stops = [1, Math.floor(full.length * 0.6)]
    const cursors = stops.map(n => join(tmp, `cursor-${filter ? 'f' : 'dv'}-${n}.json`))
    const stopped = await pool(
      stops.map((n, i) => () => scan(shardArgs(2, 1, ['--stop-after', String(n), '--cursor-out', cursors[i]!]))),
    )
    const resumed = await pool(cursors.map(c => () => scan([...base(), '--resume', c, '--format', 'ids', '--json'])))
    stops.forEach((n, i) => {
      expect(ids(stopped[i]!)).toHaveLength(n)
      expect([...ids(stopped[i]!), ...ids(resumed[i]!)]).toEqual(full)
      expect(lastJson<{ rows: number }>(resumed[i]!).rows).toBe(full.length - n)
    })
  }, 60_000)
})

describe('cursors that do not fit are refused', () => {
  it('another version, another table, conflicting flags', async () => {
    const cursor = join(tmp, 'refuse.json')
    await scan(['--table', clicks, '--seed', SEED, '--stop-after', '10', '--cursor-out', cursor, '--format', 'ids'])
    const made = JSON.parse(await readFile(cursor, 'utf8')) as { version: number }
    expect(made.version).toBe(2)
    const older = join(tmp, 'refuse-v1.json')
    await writeFile(older, JSON.stringify({ ...made, version: 1 }))
    const [v1, other, conflict] = await pool([
      () => scan(['--table', clicks, '--resume', older, '--format', 'ids'], {}, true),
      () => scan(['--table', DV_TABLE, '--resume', cursor, '--format', 'ids'], {}, true),
      () => scan(['--table', clicks, '--resume', cursor, '--seed', '9', '--epoch', '2', '--format', 'ids'], {}, true),
    ])
    expect(v1.code).toBe(1)
    expect(v1.stdout).toBe('')
    expect(v1.stderr).toMatch(/another scan plan|version/)
    expect(other.code).toBe(1)
    expect(other.stderr).toContain('made for table')
    expect(conflict.code).toBe(2)
    expect(conflict.stderr).toContain('--seed')
    expect(conflict.stderr).toContain('--epoch')
  }, 60_000)
})

/**
 * A proxy in front of the loopback file server that answers ~10% of requests with 503, chosen by
 * a seeded generator; the same request never fails more than twice in a row so the client's
 * bounded retries (4 attempts) always get through.
 */
async function flakyProxy(root: string): Promise<{ url: string; failures: () => number; close: () => Promise<void> }> {
  const upstream: ServedDirectory = await serveDirectory(root)
  let state = 12345
  let failures = 0
  const streak = new Map<string, number>()
  const server: Server = createServer((req, res) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    const key = `${req.url} ${req.headers.range ?? ''}`
    const failed = streak.get(key) ?? 0
    if (state % 10 === 0 && failed < 2) {
      failures++
      streak.set(key, failed + 1)
      res.writeHead(503).end('injected failure')
      return
    }
    streak.delete(key)
    const headers: Record<string, string> = {}
    if (req.headers.range) headers.range = req.headers.range
    fetch(upstream.url + (req.url ?? '/').slice(1), { headers }).then(
      async up => {
        const body = Buffer.from(await up.arrayBuffer())
        const pass: Record<string, string> = {}
        for (const h of ['content-type', 'content-range', 'etag', 'accept-ranges']) {
          const v = up.headers.get(h)
          if (v) pass[h] = v
        }
        res.writeHead(up.status, pass).end(body)
      },
      () => res.writeHead(502).end(),
    )
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/`,
    failures: () => failures,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await upstream.close()
    },
  }
}

describe('a server failing 10% of requests', () => {
  it('delivers the identical id and row sequences', async () => {
    const proxy = await flakyProxy(tmp)
    try {
      const args = ['--filter', 'hour < 12', '--shards', '2', '--shard', '1', '--seed', SEED]
      const env = { SNAPTRAIN_HTTP_TIMEOUT_MS: '5000' }
      // In-process runs at the same time share one environment: the clean runs get the timeout too.
      const [flakyIds, flakyRows, cleanIds, cleanRows] = await pool(
        [
          () => scan(['--table', `${proxy.url}clicks/`, ...args, '--format', 'ids'], env),
          () =>
            scan(
              ['--table', `${proxy.url}clicks/`, ...args, '--format', 'jsonl', '--columns', 'user_id,country,emb'],
              env,
            ),
          () => scan(['--table', clicks, ...args, '--format', 'ids'], env),
          () => scan(['--table', clicks, ...args, '--format', 'jsonl', '--columns', 'user_id,country,emb'], env),
        ],
        4,
      )
      expect(proxy.failures()).toBeGreaterThan(3)
      expect(ids(flakyIds).length).toBeGreaterThan(500)
      expect(ids(flakyIds)).toEqual(ids(cleanIds))
      expect(flakyRows.stdout).toBe(cleanRows.stdout)
    } finally {
      await proxy.close()
    }
  }, 60_000)
})

describe('filter pushdown on clicks', () => {
  it('prunes row groups/files for a narrow country range and returns exactly the filtered rows', async () => {
    const rows = await clicksTableOrder()
    const first = [...new Set(rows.map(r => r.country))].sort()[0]! // v0 is sorted by country
    const filter = `country = '${first}'`
    const res = await scan(['--table', clicks, '--filter', filter, '--format', 'ids', '--json'])
    const summary = lastJson<{ files_pruned: number; row_groups_pruned: number; rows: number }>(res)
    expect(summary.files_pruned + summary.row_groups_pruned).toBeGreaterThan(0)
    const expected = rows.filter(r => r.country === first).map(r => r.id)
    expect(expected.length).toBeGreaterThan(0)
    expect(ids(res)).toEqual(expected)
    expect(summary.rows).toBe(expected.length)
  }, 60_000)
})

describe('typed batches from the snapshot', () => {
  it("the array column arrives as a flat Float32Array of n × 8, row for row the reader's values", async () => {
    const [idRun, rowRun, cliOrder] = await Promise.all([
      scan(['--table', clicks, '--format', 'ids']),
      scan(['--table', clicks, '--columns', 'emb,label']),
      scan(['--table', clicks, '--seed', '3', '--format', 'ids']),
    ])
    const delivered: string[] = []
    const byId = new Map<string, { emb: number[]; label: number }>()
    const rows = rowRun.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as { emb: number[]; label: number })
    ids(idRun).forEach((id, i) => byId.set(id, rows[i]!))
    const served = await serveDirectory(tmp)
    try {
      const snapshot = await openSnapshot(`${served.url}clicks/`)
      const plan = await planScan(snapshot, { columns: ['emb', 'label'] })
      const loader = createLoader(plan, {
        assign: { seed: 3, epoch: 0, worldSize: 1, rank: 0 },
        batchSize: 500,
        workers: 0,
        ids: true,
        spec: { emb: 'fixed_list', label: 'int32' },
      })
      let n = 0
      for await (const b of loader.batches()) {
        const emb = b.columns.emb!
        expect(emb.values).toBeInstanceOf(Float32Array)
        expect(emb.length).toBe(8)
        expect(emb.values.length).toBe(b.size * 8)
        for (let i = 0; i < b.size; i++) {
          const unit = plan.units[b.ids!.unit[i]!]!
          const id = `${plan.files[unit.fileIndex]!.path}:${b.ids!.row[i]!}`
          delivered.push(id)
          const want = byId.get(id)!
          expect(Array.from(emb.values.subarray(i * 8, i * 8 + 8))).toEqual(want.emb.map(Math.fround))
          expect(b.columns.label!.values[i]).toBe(want.label)
        }
        n += b.size
      }
      await loader.close()
      expect(n).toBe(byId.size)
      expect(delivered).toEqual(ids(cliOrder)) // the loader delivers the CLI's order for the same seed
    } finally {
      await served.close()
    }
  }, 60_000)
})
