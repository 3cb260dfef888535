/**
 * `snaptrain scan` in-process (main with a captured io) on conformance tables and on broken copies
 * of them; the spawned CLI's exit codes and output: tests/e2e/cli.test.ts. Expected row counts come from the DAT expected parquet files, never from
 * the reader under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cp, mkdtemp, mkdir, readdir, readFile, rm, truncate, unlink, writeFile, stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { createServer as createHttpServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { toJsonValue } from '../../../src/cli/format.ts'
import { REPO, runMain, type CliResult } from '../../support/cli.ts'

/** Relative to the repo: CI runs in a clean clone with shared/ beside it. */
const CONFORMANCE = 'tests/conformance'
const BASIC = `${CONFORMANCE}/dat/basic_append`

/** Runs `snaptrain scan …` in-process, `env` set for the run. */
function scan(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runMain(['scan', ...args], env)
}

/** Rows of the DAT expected parquet files of `basic_append` at `which` ('v0' | 'latest'). */
async function expectedRows(which: string): Promise<Record<string, unknown>[]> {
  const dir = join(REPO, BASIC, 'expected', which, 'table_content')
  const rows: Record<string, unknown>[] = []
  for (const name of (await readdir(dir)).filter(n => n.endsWith('.parquet'))) {
    const buf = await readFile(join(dir, name))
    const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
    expect(Number(parquetMetadata(file).num_rows)).toBeGreaterThan(0)
    rows.push(...(await parquetReadObjects({ file, compressors })))
  }
  return rows
}

function canonical(rows: Record<string, unknown>[]): string[] {
  return rows.map(r => JSON.stringify(toJsonValue({ letter: r.letter, number: r.number, a_float: r.a_float }))).sort()
}

function lastJson(stdout: string): Record<string, any> {
  const lines = stdout.trim().split('\n')
  return JSON.parse(lines.at(-1)!)
}

describe('snaptrain scan on basic_append', () => {
  it('--json prints a summary whose row count matches the expected parquet', async () => {
    const [res, expected] = await Promise.all([scan(['--table', `${BASIC}/delta`, '--json']), expectedRows('latest')])
    expect(res.stderr).toBe('')
    expect(res.code).toBe(0)
    const meta = JSON.parse(await readFile(join(REPO, BASIC, 'expected/latest/table_version_metadata.json'), 'utf8'))
    const summary = lastJson(res.stdout)
    expect(res.stdout.trim().split('\n')).toHaveLength(1) // --json alone: the summary only
    expect(summary.rows).toBe(expected.length)
    expect(summary.version).toBe(meta.version)
    expect(summary.files).toBe(2)
    expect(summary.table).toBe(resolve(REPO, BASIC, 'delta'))
    expect(summary.columns).toEqual([
      { name: 'letter', type: 'string', nullable: true },
      { name: 'number', type: 'long', nullable: true },
      { name: 'a_float', type: 'double', nullable: true },
    ])
  })

  it('--version 0 reads the first version only', async () => {
    const [res, expected] = await Promise.all([
      scan(['--table', `${BASIC}/delta`, '--version', '0', '--json']),
      expectedRows('v0'),
    ])
    expect(res.code).toBe(0)
    expect(lastJson(res.stdout)).toMatchObject({ version: 0, files: 1, rows: expected.length })
  })

  it('prints every row as JSONL by default, equal to the expected rows', async () => {
    const [res, expected] = await Promise.all([scan(['--table', `${BASIC}/delta`]), expectedRows('latest')])
    expect(res.code).toBe(0)
    const rows = res.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(canonical(rows)).toEqual(canonical(expected))
  })

  it('--columns picks and orders columns, --limit stops early', async () => {
    const res = await scan(['--table', `${BASIC}/delta`, '--columns', 'number,letter', '--limit', '2'])
    expect(res.code).toBe(0)
    const rows = res.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(rows).toHaveLength(2)
    for (const row of rows) expect(Object.keys(row)).toEqual(['number', 'letter'])
  })

  it('--format csv writes a header and one record per row; --json then adds the summary last', async () => {
    const [res, expected] = await Promise.all([
      scan(['--table', `${BASIC}/delta`, '--format', 'csv', '--json']),
      expectedRows('latest'),
    ])
    expect(res.code).toBe(0)
    const lines = res.stdout.trim().split('\n')
    expect(lines[0]).toBe('letter,number,a_float')
    expect(lines.slice(1, -1)).toHaveLength(expected.length)
    expect(
      lines
        .slice(1, -1)
        .map(l => l.split(',')[0])
        .sort(),
    ).toEqual(expected.map(r => String(r.letter)).sort())
    expect(lastJson(res.stdout).rows).toBe(expected.length)
  })

  it('usage errors exit 2 and name the flag or column', async () => {
    const bad = await scan(['--table', `${BASIC}/delta`, '--version', 'x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--version: expected a non-negative integer, got 'x'")
    const col = await scan(['--table', `${BASIC}/delta`, '--columns', 'nope'])
    expect(col.code).toBe(2)
    expect(col.stderr).toContain("'nope'")
    const both = await scan(['--table', `${BASIC}/delta`, '--version', '0', '--timestamp', '2020-01-01T00:00:00Z'])
    expect(both.code).toBe(2)
  })
})

/** Asserts a clean failure: non-zero exit, one stderr line matching every pattern, within 10 s. */
function expectFailure(res: CliResult, ...patterns: (string | RegExp)[]): void {
  const lines = res.stderr.trim().split('\n')
  expect(res.code, res.stderr).not.toBe(0)
  expect(lines, res.stderr).toHaveLength(1)
  for (const p of patterns) {
    if (typeof p === 'string') expect(lines[0]).toContain(p)
    else expect(lines[0]).toMatch(p)
  }
  expect(res.ms).toBeLessThan(10_000)
}

describe('snaptrain scan on bad input', () => {
  let tmp: string
  /** A fresh copy of basic_append/delta named `name` inside the temp dir. */
  async function copyTable(name: string): Promise<string> {
    const dst = join(tmp, name)
    await cp(join(REPO, BASIC, 'delta'), dst, { recursive: true })
    return dst
  }
  async function dataFiles(table: string): Promise<string[]> {
    return (await readdir(table)).filter(n => n.endsWith('.parquet')).sort()
  }

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'snaptrain-scan-'))
  })
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true })
  })

  it('a missing data file: names the file and the 404', async () => {
    const table = await copyTable('missing-file')
    const [victim] = await dataFiles(table)
    await unlink(join(table, victim!))
    expectFailure(await scan(['--table', table, '--json']), join(table, victim!), /404/)
  })

  it('a truncated parquet file: names the file and says it is corrupt', async () => {
    const table = await copyTable('truncated')
    const [victim] = await dataFiles(table)
    const size = (await stat(join(table, victim!))).size
    await truncate(join(table, victim!), Math.floor(size / 2))
    expectFailure(await scan(['--table', table, '--json']), victim!, /corrupt|truncat|invalid|size/i)
  })

  it('garbage instead of parquet: names the file and says it is corrupt', async () => {
    const table = await copyTable('garbage')
    const [victim] = await dataFiles(table)
    const size = (await stat(join(table, victim!))).size
    await writeFile(join(table, victim!), Buffer.alloc(size, 7))
    expectFailure(await scan(['--table', table]), victim!, /corrupt|parquet|invalid/i)
  })

  it('a malformed commit line: names the commit file', async () => {
    const table = await copyTable('bad-commit')
    const commit = join(table, '_delta_log', '00000000000000000001.json')
    const lines = (await readFile(commit, 'utf8')).split('\n')
    lines[1] = '{"add": {"path": "x.parquet", '
    await writeFile(commit, lines.join('\n'))
    expectFailure(await scan(['--table', table, '--json']), '00000000000000000001.json', /malformed|json|parse/i)
  })

  it('a version that does not exist: names the version', async () => {
    expectFailure(await scan(['--table', `${BASIC}/delta`, '--version', '999']), '999', /version/i)
  })

  it('an empty folder: says it is not a Delta table and names it', async () => {
    const empty = join(tmp, 'empty')
    await mkdir(empty)
    expectFailure(await scan(['--table', empty]), empty, /delta|_delta_log|table/i)
  })

  it('a folder that does not exist: usage error naming it', async () => {
    const res = await scan(['--table', join(tmp, 'nope')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(join(tmp, 'nope'))
  })

  it('an unsupported reader version: names it', async () => {
    expectFailure(
      await scan(['--table', `${CONFORMANCE}/golden/deltalog-invalid-protocol-version`]),
      /99|reader version/i,
    )
  })

  it('an unsupported reader feature: names it', async () => {
    expectFailure(await scan(['--table', `${CONFORMANCE}/golden/spark-variant-checkpoint`]), 'variantType-preview')
  })
})

describe('snaptrain scan against misbehaving servers', () => {
  const servers: { close(): void }[] = []
  afterAll(() => {
    for (const s of servers) s.close()
  })

  function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<string> {
    servers.push(server)
    return new Promise(res =>
      server.listen(0, '127.0.0.1', () => {
        const addr = server.address() as { port: number }
        res(`http://127.0.0.1:${addr.port}/table/`)
      }),
    )
  }

  it('a server that accepts and never answers: timeout error naming the URL', async () => {
    const sockets: import('node:net').Socket[] = []
    const stall = createServer(socket => {
      sockets.push(socket)
    })
    servers.push({
      close: () => {
        for (const s of sockets) s.destroy()
        stall.close()
      },
    })
    const url = await listen(stall)
    const res = await scan(['--table', url, '--json'], { SNAPTRAIN_HTTP_TIMEOUT_MS: '100' })
    expectFailure(res, url, /timed out|timeout/i)
  })

  it('--timeout-ms overrides the environment', async () => {
    const stall = createServer(() => {})
    const url = await listen(stall)
    const res = await scan(['--table', url, '--timeout-ms', '100'], { SNAPTRAIN_HTTP_TIMEOUT_MS: '600000' })
    expectFailure(res, url, /timed out|timeout/i)
  })

  it('a server that always answers 500: bounded retries, error naming the URL and status', async () => {
    let hits = 0
    const failing = createHttpServer((_req, res) => {
      hits++
      res.writeHead(500).end('boom')
    })
    const url = await listen(failing)
    expectFailure(await scan(['--table', url]), url, /500/)
    expect(hits).toBeGreaterThan(1) // retried…
    expect(hits).toBeLessThan(50) // …but not forever
  })

  it('a URL that is not a Delta table (404 everywhere): names the URL', async () => {
    const notFound = createHttpServer((_req, res) => {
      res.writeHead(404).end()
    })
    const url = await listen(notFound)
    expectFailure(await scan(['--table', url]), url, /delta|_delta_log|table/i)
  })
})
