/**
 * Hostile requests and hostile logs against the local servers and the reader: every server
 * snaptrain starts answers a foreign Host header (DNS rebinding) with 403 and its own loopback
 * names with 200; with an allow-list, a data file the log places on another origin is refused
 * before any request reaches it, while the table's own origin and the listed ones are read.
 * Tables are built at test time; each case answers within 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../../src/cli/main.ts'
import { hostAllowed } from '../../../src/serve/host-check.ts'
import { serveDirectory } from '../../../src/serve/server.ts'
import { openTableLocation, type TableLocation } from '../../../src/cli/table-url.ts'
import { pageTable, type PageTable } from '../../../src/cli/page-run.ts'
import { startPageServer, type PageServer } from '../../../src/serve/page-server.ts'
import { retryingFetch } from '../../../src/table/http.ts'
import { TableError } from '../../../src/table/types.ts'
import { startFaultServer, type FaultServer } from '../../support/fault-server.ts'
import { frame, writeTable } from './bad-tables.ts'

const ANSWER_MS = 10_000

/** GET `path` from the server at `base` (connecting to its address) with `host` as the Host header. */
function getWithHost(base: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers: { Host: host } }, res => {
      const chunks: Buffer[] = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }))
    })
    req.setTimeout(5000, () => req.destroy(new Error(`timeout ${path}`)))
    req.on('error', reject)
    req.end()
  })
}

/** Runs the CLI in-process; returns exit code, stdout and stderr. */
async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, {
    out: l => {
      out.push(l)
    },
    err: l => {
      err.push(l)
    },
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

let tmp: string
let table: string

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'snaptrain-hostile-server-'))
  table = join(tmp, 'good')
  await writeTable(table, frame())
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

/** Foreign names the check must refuse, for a server on `port`. */
const foreign = (port: string) => [
  'evil.example',
  `evil.example:${port}`,
  `127.0.0.2:${port}`,
  'localhost:1',
  '127.0.0.1:1',
  '[::1]:1',
  '127.0.0.1',
  `localhost.evil.example:${port}`,
]
/** The server's own names. */
const own = (port: string) => [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]

describe('Host check: the one function', () => {
  it('accepts loopback names with the port, configured names with any port; refuses the rest', () => {
    expect(hostAllowed('localhost:8080', 8080, [])).toBe(true)
    expect(hostAllowed('[::1]:8080', 8080, [])).toBe(true)
    expect(hostAllowed('127.0.0.1', 80, [])).toBe(true)
    expect(hostAllowed('127.0.0.1', 8080, [])).toBe(false)
    expect(hostAllowed('localhost:8081', 8080, [])).toBe(false)
    expect(hostAllowed('evil.example:8080', 8080, [])).toBe(false)
    expect(hostAllowed('my.box:9999', 8080, ['my.box'])).toBe(true)
    expect(hostAllowed(undefined, 8080, [])).toBe(false)
    expect(hostAllowed('a:b:c', 8080, [])).toBe(false)
    // The interface a server binds is its own name: with its port only, as loopback names.
    expect(hostAllowed('box.lan:8080', 8080, [], 'box.lan')).toBe(true)
    expect(hostAllowed('box.lan:1', 8080, [], 'box.lan')).toBe(false)
    expect(hostAllowed('[fe80::1]:8080', 8080, [], 'fe80::1')).toBe(true)
    expect(hostAllowed('127.0.0.1:1', 8080, [], '127.0.0.1')).toBe(false)
    expect(hostAllowed('0.0.0.0:8080', 8080, [], '0.0.0.0')).toBe(false)
  })
})

describe('every server answers only its own host names', () => {
  let scanServer: TableLocation
  let trainServer: PageTable
  let page: PageServer
  beforeAll(async () => {
    scanServer = await openTableLocation(table)
    trainServer = await pageTable(table)
    page = await startPageServer()
  }, 30_000)
  afterAll(async () => {
    await scanServer?.close()
    await trainServer?.close()
    await page?.close()
  })

  const servers = (): Array<[string, string, string]> => [
    ['scan table server', scanServer.url, '_delta_log/00000000000000000000.json'],
    ['train/predict/sweep table server', trainServer.url, '_delta_log/00000000000000000000.json'],
    ['app page server', page.url, ''],
  ]

  for (const which of [0, 1, 2]) {
    it(
      `server ${which}: foreign Host → 403 with a short body, own names → 200`,
      async () => {
        const [name, url, file] = servers()[which]!
        const { port, pathname } = new URL(url)
        for (const host of foreign(port)) {
          const r = await getWithHost(url, `${pathname}${file}`, host)
          expect(r.status, `${name}, Host: ${host}`).toBe(403)
          expect(r.body.length).toBeLessThan(200)
        }
        for (const host of own(port)) {
          expect((await getWithHost(url, `${pathname}${file}`, host)).status, `${name}, Host: ${host}`).toBe(200)
        }
      },
      ANSWER_MS,
    )
  }

  it(
    'names in SNAPTRAIN_ALLOWED_HOSTS or ServeOptions.allowedHosts are answered too',
    async () => {
      const before = process.env.SNAPTRAIN_ALLOWED_HOSTS
      process.env.SNAPTRAIN_ALLOWED_HOSTS = 'Table.Box, other.box'
      const a = await serveDirectory(table, { allowedHosts: ['proxy.lan'] })
      try {
        expect((await getWithHost(a.url, '/_delta_log/00000000000000000000.json', 'table.box:1234')).status).toBe(200)
        expect((await getWithHost(a.url, '/_delta_log/00000000000000000000.json', 'proxy.lan')).status).toBe(200)
        expect((await getWithHost(a.url, '/_delta_log/00000000000000000000.json', 'evil.example')).status).toBe(403)
      } finally {
        if (before === undefined) delete process.env.SNAPTRAIN_ALLOWED_HOSTS
        else process.env.SNAPTRAIN_ALLOWED_HOSTS = before
        await a.close()
      }
    },
    ANSWER_MS,
  )
})

describe("allow-list of origins a table's files may come from", () => {
  let other: FaultServer
  let remote: string
  beforeAll(async () => {
    // The table's data file lives on another origin (another loopback port), named absolutely in the log.
    other = await startFaultServer(table)
    remote = join(tmp, 'remote')
    await writeTable(remote, frame())
    type Action = Record<string, { path?: string }>
    const actions = async (dir: string) =>
      (await readFile(join(dir, '_delta_log', '00000000000000000000.json'), 'utf8'))
        .trim()
        .split('\n')
        .map(l => JSON.parse(l) as Action)
    const lines = await actions(remote)
    const goodPath = (await actions(table)).find(l => l.add)!.add.path!
    lines.find(l => l.add)!.add.path = `${other.tableUrl}${goodPath}`
    await writeFile(
      join(remote, '_delta_log', '00000000000000000000.json'),
      lines.map(l => JSON.stringify(l)).join('\n') + '\n',
    )
  })
  afterAll(async () => {
    await other?.close()
  })

  it(
    'no list: any http(s) origin is read (the default)',
    async () => {
      const r = await cli(['scan', '--table', remote, '--json'])
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      expect(JSON.parse(r.out.split('\n').at(-1)!).rows).toBe(64)
    },
    ANSWER_MS,
  )

  it(
    'a data file on an origin not listed is refused before any request reaches it',
    async () => {
      const seen = other.requests.length
      const r = await cli(['scan', '--table', remote, '--allow-origin', 'https://bucket.example.com', '--json'])
      expect(r.code).toBe(1)
      expect(r.err).toContain(`${other.tableUrl}`)
      const own = 'http:\\/\\/127\\.0\\.0\\.1:\\d+'
      expect(r.err).toMatch(
        new RegExp(`origin ${own} is not allowed \\(allowed: ${own}, https://bucket\\.example\\.com`),
      )
      expect(other.requests.length).toBe(seen)
    },
    ANSWER_MS,
  )

  it(
    "the table's own origin is always allowed, listed origins too (repeatable, comma-separated)",
    async () => {
      const origin = new URL(other.url).origin
      const list = ['--allow-origin', 'https://a.example,https://b.example', '--allow-origin', `${origin}/`]
      const r = await cli(['scan', '--table', remote, ...list, '--json'])
      expect(r.err).toBe('')
      expect(JSON.parse(r.out.split('\n').at(-1)!).rows).toBe(64)
      expect((await cli(['scan', '--table', table, '--allow-origin', 'https://a.example', '--json'])).code).toBe(0)
    },
    ANSWER_MS,
  )

  it(
    'train refuses it too (Node precheck, before a browser starts)',
    async () => {
      const out = join(tmp, 'run')
      const r = await cli([
        'train',
        '--table',
        remote,
        '--label',
        'label',
        '--allow-origin',
        'https://a.example',
        '--out',
        out,
      ])
      expect(r.code).toBe(1)
      expect(r.err).toMatch(/snaptrain train: .*is not allowed/)
    },
    ANSWER_MS,
  )

  it(
    '--allow-origin that is not an http(s) origin is a usage error',
    async () => {
      for (const bad of ['ftp://x.example', 'https://x.example/path', 'not a url', 'https://u:p@x.example']) {
        const train = ['--table', table, '--label', 'label']
        const cmds = [
          ['scan', '--table', table],
          ['train', ...train],
          ['sweep', ...train, '--model', 'gbdt'],
          ['predict', '--model', 'm.json', '--table', table],
        ]
        for (const cmd of cmds) {
          const r = await cli([...cmd, '--allow-origin', bad])
          expect(r.code, `${cmd[0]} ${bad}`).toBe(2)
          expect(r.err).toContain('--allow-origin: expected an http(s) origin')
        }
      }
    },
    ANSWER_MS,
  )

  it('the page API: HttpOptions.allowOrigins is enforced in send(), fetch never called', async () => {
    const calls: string[] = []
    const fetch = async (u: string) => {
      calls.push(u)
      return new Response('x')
    }
    const opts = { fetch, allowOrigins: ['https://b.example'], attempts: 1 }
    const f = retryingFetch(opts, 'https://t.example/table/')
    await expect(f('https://c.example/part-0.parquet')).rejects.toThrow(TableError)
    await expect(f('http://127.0.0.1:9/x')).rejects.toThrow(/origin http:\/\/127\.0\.0\.1:9 is not allowed/)
    expect(calls).toEqual([])
    await f('https://t.example/table/part-0.parquet')
    await f('https://b.example/elsewhere/part-1.parquet')
    expect(calls).toEqual(['https://t.example/table/part-0.parquet', 'https://b.example/elsewhere/part-1.parquet'])
  })
})
