/**
 * `--allow-origin` covers what is actually fetched: a share whose pre-signed URLs point to an
 * origin outside the list is refused before any byte of that origin is requested — by `scan` in
 * Node (the reader checks the URL its resolver hands out, not its own stand-in URL) and by the
 * sharing proxy the page of train, predict and sweep reads through (it checks the URL it forwards
 * to). Listed, the same origin is read.
 *
 * The servers: the test sharing server, a "bucket" origin that serves its files (as object stores
 * serve a share's files, on a host of their own), and in front of the API an origin that rewrites
 * the answered file URLs onto the bucket. All on 127.0.0.1, closed after the file.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SharingProxy } from '../../../src/serve/sharing-proxy.ts'
import { parseProfile } from '../../../src/sharing/profile.ts'
import { runMain } from '../../support/cli.ts'
import { conformanceTable, writeProfile } from '../../support/share-fixture.ts'
import { startSharingServer, type SharingServer } from '../../support/sharing-server.ts'

const TOKEN = 'share-token-51b'
const TABLE = 'lab.golden.letters'

interface Front {
  origin: string
  seen: string[]
  close(): Promise<void>
}

/** A loopback server passing requests on to `upstream`, bodies rewritten by `rewrite`; logs each path. */
async function front(upstream: string, rewrite: (body: string) => string = b => b): Promise<Front> {
  const seen: string[] = []
  const target = new URL(upstream)
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`)
    const out = request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
    })
    out.on('response', answer => {
      const chunks: Buffer[] = []
      answer.on('data', (c: Buffer) => chunks.push(c))
      answer.on('end', () => {
        const body = Buffer.from(rewrite(Buffer.concat(chunks).toString('latin1')), 'latin1')
        const headers = { ...answer.headers, 'content-length': String(body.length) }
        res.writeHead(answer.statusCode ?? 502, headers)
        res.end(body)
      })
    })
    out.on('error', () => res.destroy())
    req.pipe(out)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () =>
      new Promise<void>(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const dir = mkdtempSync(join(tmpdir(), 'snaptrain-allow-origin-share-'))
let sharing: SharingServer
let bucket: Front
let api: Front
let profile: string

beforeAll(async () => {
  sharing = await startSharingServer({
    tables: [
      { share: 'lab', schema: 'golden', table: 'letters', dir: conformanceTable('dat/basic_partitioned/delta') },
    ],
    tokens: [TOKEN],
  })
  bucket = await front(sharing.origin)
  api = await front(sharing.origin, body => body.replaceAll(`${sharing.origin}/files/`, `${bucket.origin}/files/`))
  profile = writeProfile(dir, 'lab.share', {
    shareCredentialsVersion: 1,
    endpoint: `${api.origin}/delta-sharing/`,
    bearerToken: TOKEN,
  })
})

afterAll(async () => {
  await api?.close()
  await bucket?.close()
  await sharing?.close()
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(() => {
  bucket.seen.length = 0
  api.seen.length = 0
})

describe('scan of a share with --allow-origin', () => {
  it('refuses pre-signed URLs on an origin outside the list; that origin is sent nothing', async () => {
    const r = await runMain(['scan', '--table', `${profile}#${TABLE}`, '--allow-origin', 'https://bucket.example.com'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(`(its request goes to ${bucket.origin}): origin ${bucket.origin} is not allowed`)
    expect(r.stderr).not.toContain(TOKEN)
    expect(r.stderr).not.toMatch(/X-Sharing-Signature=[0-9a-f]/)
    expect(api.seen.some(s => s.startsWith('POST ') && s.includes('/query'))).toBe(true)
    expect(bucket.seen).toEqual([])
  })

  it('reads the table when the files’ origin is listed (the endpoint is always allowed)', async () => {
    const r = await runMain(['scan', '--table', `${profile}#${TABLE}`, '--allow-origin', bucket.origin, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(bucket.seen.length).toBeGreaterThan(0)
    expect(JSON.parse(r.stdout.trimEnd().split('\n').at(-1)!).rows).toBeGreaterThan(0)
  })
})

describe('the sharing proxy (the page of train, predict and sweep) with an allow-list', () => {
  /** A loopback server answering with `proxy`; its origin. */
  async function proxyServer(proxy: SharingProxy): Promise<{ origin: string; close(): Promise<void> }> {
    const server = createServer((req, res) => {
      proxy.handle(req, res).then(done => done || res.writeHead(404).end())
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    return {
      origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      close: () =>
        new Promise<void>(resolve => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    }
  }

  /** The proxy's file URLs from a query of the table through it. */
  async function proxiedFiles(origin: string, proxy: SharingProxy, allowOrigins: string[]): Promise<string[]> {
    const parsed = parseProfile(
      JSON.stringify({ shareCredentialsVersion: 1, endpoint: `${api.origin}/delta-sharing/`, bearerToken: TOKEN }),
      'lab.share',
    )
    const id = proxy.register(parsed, 'lab.share', { allowOrigins })
    const res = await fetch(`${proxy.endpoint(origin, id)}shares/lab/schemas/golden/tables/letters/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    })
    expect(res.status).toBe(200)
    const lines = (await res.text()).split('\n').filter(l => l.includes('"file"'))
    return lines
      .map(l => (JSON.parse(l) as { file: { url?: string; deltaSingleAction?: { add: { path: string } } } }).file)
      .map(f => f.url ?? f.deltaSingleAction!.add.path)
  }

  it('a file URL on an origin outside the list answers 502 naming it; that origin is sent nothing', async () => {
    const proxy = new SharingProxy()
    const server = await proxyServer(proxy)
    try {
      const files = await proxiedFiles(server.origin, proxy, ['https://bucket.example.com'])
      expect(files.length).toBeGreaterThan(0)
      const res = await fetch(files[0]!, { signal: AbortSignal.timeout(10_000) })
      expect(res.status).toBe(502)
      expect(await res.text()).toContain(`origin ${bucket.origin} is not allowed`)
      expect(bucket.seen).toEqual([])
    } finally {
      await server.close()
    }
  })

  it('listed, the file is read through the proxy', async () => {
    const proxy = new SharingProxy()
    const server = await proxyServer(proxy)
    try {
      const files = await proxiedFiles(server.origin, proxy, [bucket.origin])
      const res = await fetch(files[0]!, { signal: AbortSignal.timeout(10_000) })
      expect(res.status).toBe(200)
      expect(new Uint8Array(await res.arrayBuffer()).subarray(0, 4)).toEqual(new TextEncoder().encode('PAR1'))
      expect(bucket.seen.length).toBe(1)
    } finally {
      await server.close()
    }
  })
})
