/**
 * The proxies' one forwarding step (src/serve/relay.ts) against a misbehaving upstream: a ranged
 * answer longer than the bytes asked for is refused (502, nothing of it passed on), an upstream
 * 5xx becomes a 502 whose text has no signature of the pre-signed URL, and a well-behaved ranged
 * answer passes through byte for byte with its headers — through the sharing proxy's file route.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SharingProxy } from '../../../src/serve/sharing-proxy.ts'

const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251))

let upstream: Server
let page: Server
let upstreamUrl: string
let pageUrl: string
let proxy: SharingProxy
let id: string

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<[Server, string]> {
  const server = createServer(handler)
  return new Promise(done =>
    server.listen(0, '127.0.0.1', () => done([server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`])),
  )
}

beforeAll(async () => {
  ;[upstream, upstreamUrl] = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const [, from, to] = /bytes=(\d+)-(\d+)/.exec(String(req.headers.range)) ?? []
    if (url.pathname === '/bucket/broken.parquet') return void res.writeHead(503).end('upstream down')
    if (url.pathname === '/shares')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ items: [{ name: 'demo' }], auth: req.headers.authorization }))
    if (url.pathname.endsWith('/query')) {
      const signed = (name: string) => `${upstreamUrl}/bucket/${name}?X-Amz-Signature=sekrit123&X-Amz-Expires=900`
      const lines = ['good.parquet', 'oversized.parquet', 'broken.parquet'].map(name =>
        JSON.stringify({ file: { url: signed(name), id: name, size: BYTES.length } }),
      )
      return void res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines.join('\n'))
    }
    if (url.pathname === '/bucket/oversized.parquet') {
      // Claims the asked range but sends the whole file.
      res.writeHead(206, { 'content-range': `bytes ${from}-${to}/${BYTES.length}`, 'content-length': BYTES.length })
      return void res.end(BYTES)
    }
    const part = BYTES.subarray(Number(from), Number(to) + 1)
    res.writeHead(206, { 'content-range': `bytes ${from}-${to}/${BYTES.length}`, etag: '"v1"' })
    res.end(part)
  })
  proxy = new SharingProxy()
  id = proxy.register({ shareCredentialsVersion: 1, endpoint: `${upstreamUrl}/`, bearerToken: 'tok' }, 'test profile')
  ;[page, pageUrl] = await listen((req, res) => {
    void proxy.handle(req, res).then(done => {
      if (!done) res.writeHead(404).end()
    })
  })
})

afterAll(async () => {
  for (const s of [upstream, page]) {
    s?.closeAllConnections()
    await new Promise(done => s?.close(done))
  }
})

/**
 * Proxy file URLs for `paths`, as the page gets them: a query through the proxy's REST route,
 * whose answer lines name pre-signed upstream URLs (signature in the query) that it rewrites.
 */
async function fileUrls(): Promise<Record<string, string>> {
  const res = await fetch(`${proxy.endpoint(pageUrl, id)}shares/s/schemas/s/tables/t/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  const lines = (await res.text())
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l))
  return Object.fromEntries(lines.map(l => [new URL(l.file.url).pathname.split('/').pop(), l.file.url]))
}

let urls: Record<string, string>
beforeAll(async () => {
  urls = await fileUrls()
})

describe('sharing proxy file route', () => {
  test('a well-behaved ranged answer passes through byte for byte with its headers', async () => {
    const res = await fetch(urls['good.parquet'], { headers: { range: 'bytes=10-109' } })
    expect(res.status).toBe(206)
    expect(res.headers.get('etag')).toBe('"v1"')
    expect(Buffer.from(await res.arrayBuffer()).equals(BYTES.subarray(10, 110))).toBe(true)
  })

  test('a ranged answer longer than asked is refused, none of it passed on', async () => {
    const res = await fetch(urls['oversized.parquet'], { headers: { range: 'bytes=0-99' } })
    expect(res.status).toBe(502)
    const body = await res.json()
    expect(body.message).toMatch(/longer than 100 bytes/)
  })

  test('an upstream 5xx becomes a 502 without the signature', async () => {
    const res = await fetch(urls['broken.parquet'], { headers: { range: 'bytes=0-9' } })
    expect(res.status).toBe(502)
    const text = await res.text()
    expect(text).toMatch(/503/)
    expect(text).toMatch(/broken\.parquet/)
    expect(text).not.toContain('sekrit123')
  })

  test('the REST route forwards with the bearer token and passes the answer back', async () => {
    const res = await fetch(`${proxy.endpoint(pageUrl, id)}shares`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.items[0].name).toBe('demo')
    expect(body.auth).toBe('Bearer tok')
    expect(Object.values(urls).every(u => u.startsWith(`${pageUrl}/__snaptrain/sharing/`))).toBe(true)
    expect(JSON.stringify(urls)).not.toContain('sekrit123')
  })
})
