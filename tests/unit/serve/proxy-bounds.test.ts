/**
 * Both local proxies (sharing and storage) against an upstream that never stops talking: an
 * endless answer to a REST call, to a file read with or without a Range, to a bucket listing,
 * and a declared length far past any bound. Each request through a proxy ends with a 502 that
 * names the bound it hit (the log-file cap, here 1 MiB by SNAPTRAIN_MAX_LOG_BYTES; a ranged
 * answer longer than asked is relay.test.ts's) within seconds, and the upstream sees its
 * connection closed after a few MiB at most: the proxy stopped reading instead of buffering the
 * stream. The page's own POST body is bounded too (413). The upstream stops by itself after
 * 64 MiB per answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SharingProxy } from '../../../src/serve/sharing-proxy.ts'
import { StorageProxy } from '../../../src/serve/storage-proxy.ts'

const MiB = 2 ** 20
/** The log-file cap for this file's requests. */
const CAP = MiB
/** Where the hostile upstream stops an answer by itself (so a proxy that reads forever still ends). */
const HARD_STOP = 64 * MiB
/** Each case must end within this. */
const CASE_MS = 15_000

/** Bytes the upstream wrote per request path, recorded when its answer's connection closed. */
const sent = new Map<string, number>()

/** Streams 64 KiB chunks as fast as the reader takes them, until the connection closes or HARD_STOP. */
function endless(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61)
  let total = 0
  res.on('close', () => sent.set(new URL(req.url ?? '/', 'http://x').pathname, total))
  res.writeHead(status, headers)
  const pump = (): void => {
    while (!res.destroyed && total < HARD_STOP) {
      total += chunk.length
      if (!res.write(chunk)) return void res.once('drain', pump)
    }
    if (!res.destroyed) res.end()
  }
  pump()
}

let upstream: Server
let page: Server
let upstreamUrl: string
let pageUrl: string
const sharing = new SharingProxy()
const storage = new StorageProxy()
let shareId: string
let tableId: string
let savedCap: string | undefined

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<[Server, string]> {
  const server = createServer(handler)
  return new Promise(done =>
    server.listen(0, '127.0.0.1', () => done([server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`])),
  )
}

beforeAll(async () => {
  savedCap = process.env.SNAPTRAIN_MAX_LOG_BYTES
  process.env.SNAPTRAIN_MAX_LOG_BYTES = String(CAP)
  ;[upstream, upstreamUrl] = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path.endsWith('/query')) {
      const signed = (name: string) => `${upstreamUrl}/bucket/${name}?X-Amz-Signature=sekrit123`
      const lines = ['endless.parquet', 'declared.parquet'].map(name =>
        JSON.stringify({ file: { url: signed(name), id: name, size: 1000 } }),
      )
      return void res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines.join('\n'))
    }
    if (path === '/bucket/declared.parquet') {
      // Declares far more than any bound, then streams.
      return endless(req, res, 200, { 'content-length': String(10 * 2 ** 30) })
    }
    if (path === '/') return endless(req, res, 200, { 'content-type': 'application/xml' })
    endless(req, res, 200, { 'content-type': path.startsWith('/api/') ? 'application/x-ndjson' : 'text/plain' })
  })
  shareId = sharing.register({ shareCredentialsVersion: 1, endpoint: `${upstreamUrl}/api/`, bearerToken: 'tok' }, 'p')
  tableId = storage.register(`${upstreamUrl}/warehouse/t/`, {
    resolve: async url => ({ url }),
    rejected: async () => false,
  })
  ;[page, pageUrl] = await listen((req, res) => {
    void sharing
      .handle(req, res)
      .then(done => done || storage.handle(req, res))
      .then(done => {
        if (!done) res.writeHead(404).end()
      })
  })
})

afterAll(async () => {
  if (savedCap === undefined) delete process.env.SNAPTRAIN_MAX_LOG_BYTES
  else process.env.SNAPTRAIN_MAX_LOG_BYTES = savedCap
  for (const s of [upstream, page]) {
    s?.closeAllConnections()
    await new Promise(done => s?.close(done))
  }
})

/** Waits (up to 5 s) until the upstream has seen the answer to `path` closed; its bytes written. */
async function upstreamSent(path: string): Promise<number> {
  for (let i = 0; i < 100 && !sent.has(path); i++) await new Promise(r => setTimeout(r, 50))
  const n = sent.get(path)
  if (n === undefined) throw new Error(`the upstream answer to ${path} was never closed`)
  return n
}

/** A bounded 502: JSON or text naming `bound`, no signature, the upstream cut off early. */
async function expectBounded(res: Response, bound: RegExp, path: string): Promise<void> {
  expect(res.status).toBe(502)
  const text = await res.text()
  expect(text.length).toBeLessThan(2000)
  expect(text).toMatch(bound)
  expect(text).not.toContain('sekrit123')
  expect(await upstreamSent(path)).toBeLessThan(16 * MiB)
}

describe('sharing proxy: an endless upstream answer is cut at its bound', () => {
  test(
    'REST call: 502 naming the log-file cap',
    async () => {
      const res = await fetch(`${sharing.endpoint(pageUrl, shareId)}shares`)
      await expectBounded(res, /longer than 1048576 bytes \(the log-file cap/, '/api/shares')
    },
    CASE_MS,
  )

  test(
    'file read whose upstream ignores the Range or gets none: the log-file cap; a longer declared length is refused unread',
    async () => {
      const res = await fetch(`${sharing.endpoint(pageUrl, shareId)}shares/s/schemas/s/tables/t/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      const urls = Object.fromEntries(
        (await res.text())
          .split('\n')
          .filter(Boolean)
          .map(l => JSON.parse(l).file as { id: string; url: string })
          .map(f => [f.id, f.url]),
      )
      // The upstream ignores the Range and sends 200 forever: the whole-file bound applies.
      await expectBounded(
        await fetch(urls['endless.parquet']!, { headers: { range: 'bytes=0-99' } }),
        /log-file cap/,
        '/bucket/endless.parquet',
      )
      sent.delete('/bucket/endless.parquet')
      await expectBounded(await fetch(urls['endless.parquet']!), /log-file cap/, '/bucket/endless.parquet')
      await expectBounded(
        await fetch(urls['declared.parquet']!),
        /longer than 1048576 bytes/,
        '/bucket/declared.parquet',
      )
    },
    CASE_MS,
  )

  test(
    "the page's POST body over 1 MiB is refused (413), nothing forwarded",
    async () => {
      sent.clear()
      const res = await fetch(`${sharing.endpoint(pageUrl, shareId)}shares/s/schemas/s/tables/t/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(2 * MiB),
      })
      expect(res.status).toBe(413)
      expect(await res.text()).toMatch(/over 1048576 bytes/)
      await new Promise(r => setTimeout(r, 200))
      expect([...sent.keys()]).toEqual([])
    },
    CASE_MS,
  )
})

describe('storage proxy: the same bounds through the same forwarding step', () => {
  test(
    'file read and bucket listing: 502 naming the log-file cap',
    async () => {
      await expectBounded(
        await fetch(storage.tableUrl(pageUrl, tableId) + 'part-0.parquet'),
        /log-file cap/,
        '/warehouse/t/part-0.parquet',
      )
      const prefix = `__snaptrain/storage/${tableId}/_delta_log/`
      await expectBounded(await fetch(`${pageUrl}/?list-type=2&prefix=${prefix}`), /log-file cap/, '/')
    },
    CASE_MS,
  )
})

describe('sharing proxy: only the protocol routes carry the token', () => {
  test('a path outside shares/ is answered 404 and never forwarded', async () => {
    for (const tail of ['admin', 'sharesx', '%2e%2e/secret', 'x/shares']) {
      const res = await fetch(`${sharing.endpoint(pageUrl, shareId)}${tail}`)
      expect(res.status, tail).toBe(404)
      expect(await res.text()).toMatch(/not a Delta Sharing route|no proxy route/)
    }
    const apiPaths = [...sent.keys()].filter(p => p.startsWith('/api/'))
    expect(apiPaths.filter(p => !p.startsWith('/api/shares'))).toEqual([])
  })
})
