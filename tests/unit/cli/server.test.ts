import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveDirectory } from '../../../src/serve/server.ts'

/** Raw HTTP request: the path goes on the wire as written (fetch would normalise '..' and '%2e'). */
function raw(base: string, path: string, opts: { method?: string; headers?: Record<string, string> } = {}) {
  const { hostname, port } = new URL(base)
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request({ hostname, port, path, method: opts.method ?? 'GET', headers: opts.headers }, res => {
        const chunks: Buffer[] = []
        res.on('data', c => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      })
      req.setTimeout(5000, () => req.destroy(new Error(`timeout ${path}`)))
      req.on('error', reject)
      req.end()
    },
  )
}

let dir: string
let root: string
let server: { url: string; close(): Promise<void> }
const DATA = Buffer.from('0123456789abcdefghij') // 20 bytes

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-server-'))
  root = join(dir, 'root')
  await mkdir(join(root, '_delta_log'), { recursive: true })
  await mkdir(join(root, 'letter=%2F%2520%25f'), { recursive: true })
  await writeFile(join(root, 'data.bin'), DATA)
  await writeFile(join(root, 'empty.bin'), '')
  await writeFile(join(root, 'letter=%2F%2520%25f', 'part-0.parquet'), 'PAR1')
  for (let v = 0; v < 5; v++)
    await writeFile(join(root, '_delta_log', `${String(v).padStart(20, '0')}.json`), `{"v":${v}}\n`)
  await writeFile(join(dir, 'secret.txt'), 'top secret')
  await symlink(join(dir, 'secret.txt'), join(root, 'escape.txt'))
  await symlink(dir, join(root, 'escape-dir'))
  await symlink(join(root, 'data.bin'), join(root, 'inside-link.bin'))
  server = await serveDirectory(root)
})

afterAll(async () => {
  await server?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('serveDirectory: files', () => {
  it('binds to 127.0.0.1 on a free port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(Number(new URL(server.url).port)).toBeGreaterThan(0)
  })

  it('GET returns the file with Content-Length, ETag, Last-Modified and isolation headers', async () => {
    const res = await fetch(server.url + 'data.bin')
    expect(res.status).toBe(200)
    expect(Buffer.from(await res.arrayBuffer())).toEqual(DATA)
    expect(res.headers.get('content-length')).toBe('20')
    expect(res.headers.get('etag')).toMatch(/^".+"$/)
    expect(Date.parse(res.headers.get('last-modified')!)).not.toBeNaN()
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    expect(res.headers.get('cross-origin-embedder-policy')).toBe('require-corp')
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin')
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('HEAD gives the headers and no body', async () => {
    const res = await raw(server.url, '/data.bin', { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(res.headers['content-length']).toBe('20')
    expect(res.body.length).toBe(0)
  })

  it('serves single byte ranges with 206 and Content-Range', async () => {
    const cases: [string, string, string][] = [
      ['bytes=2-5', '2345', 'bytes 2-5/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=18-100', 'ij', 'bytes 18-19/20'],
    ]
    for (const [range, body, contentRange] of cases) {
      const res = await fetch(server.url + 'data.bin', { headers: { range } })
      expect(res.status, range).toBe(206)
      expect(await res.text(), range).toBe(body)
      expect(res.headers.get('content-range'), range).toBe(contentRange)
      expect(res.headers.get('content-length'), range).toBe(String(body.length))
    }
  })

  it('answers 416 for unsatisfiable ranges', async () => {
    for (const [file, range] of [
      ['data.bin', 'bytes=20-'],
      ['data.bin', 'bytes=-0'],
      ['empty.bin', 'bytes=0-'],
    ]) {
      const res = await fetch(server.url + file, { headers: { range: range! } })
      expect(res.status, `${file} ${range}`).toBe(416)
      expect(res.headers.get('content-range')).toMatch(/^bytes \*\/\d+$/)
    }
  })

  it('serves the whole file for multi-range or malformed Range', async () => {
    for (const range of ['bytes=0-1,4-5', 'items=0-3', 'bytes=5-2']) {
      const res = await fetch(server.url + 'data.bin', { headers: { range } })
      expect(res.status, range).toBe(200)
      expect((await res.arrayBuffer()).byteLength).toBe(20)
    }
  })

  it('404 for a missing file or a folder', async () => {
    expect((await fetch(server.url + 'nope.parquet')).status).toBe(404)
    expect((await fetch(server.url + '_delta_log/')).status).toBe(404)
  })

  it('decodes the path once: a file named with % is requested with %25', async () => {
    const res = await fetch(server.url + 'letter=%252F%252520%2525f/part-0.parquet')
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('PAR1')
    expect((await fetch(server.url + 'letter=%2F%2520%25f/part-0.parquet')).status).toBe(404)
  })

  it('follows a symlink that stays inside the root', async () => {
    expect((await fetch(server.url + 'inside-link.bin')).status).toBe(200)
  })

  it('405 for other methods', async () => {
    expect((await raw(server.url, '/data.bin', { method: 'PUT' })).status).toBe(405)
  })
})

describe('serveDirectory: paths outside the root are refused', () => {
  const attempts = [
    '/../secret.txt',
    '/_delta_log/../../secret.txt',
    '/%2e%2e%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/_delta_log/%2e%2e/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/%2F..%2Fsecret.txt',
    '/%2fetc%2fpasswd',
    '/data.bin%00.json',
    '/escape.txt',
    '/escape-dir/secret.txt',
    '/..\\secret.txt',
  ]
  for (const path of attempts) {
    it(`403 for ${path}`, async () => {
      const res = await raw(server.url, path)
      expect(res.status).toBe(403)
      expect(res.body.toString()).not.toContain('top secret')
    })
  }
})

describe('serveDirectory: S3 ListObjectsV2', () => {
  it('lists keys under a prefix with size, ETag and LastModified', async () => {
    const res = await fetch(server.url + '?list-type=2&prefix=_delta_log/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('xml')
    const xml = await res.text()
    const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map(m => m[1])
    expect(keys).toEqual([0, 1, 2, 3, 4].map(v => `_delta_log/${String(v).padStart(20, '0')}.json`))
    expect(xml).toContain('<KeyCount>5</KeyCount>')
    expect(xml).toContain('<IsTruncated>false</IsTruncated>')
    expect(xml).toMatch(/<Size>8<\/Size>/)
    expect(xml).toMatch(/<LastModified>\d{4}-\d\d-\d\dT[\d:.]+Z<\/LastModified>/)
  })

  it('rolls folders up into CommonPrefixes with delimiter=/', async () => {
    const xml = await (await fetch(server.url + '?list-type=2&prefix=&delimiter=%2F')).text()
    const prefixes = [...xml.matchAll(/<Prefix>([^<]*)<\/Prefix>/g)].map(m => m[1]).slice(1)
    expect(prefixes).toEqual(['_delta_log/', 'letter=%2F%2520%25f/'])
    const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map(m => m[1])
    expect(keys).toEqual(['data.bin', 'empty.bin', 'inside-link.bin'])
    expect(xml).not.toContain('escape')
  })

  it('pages with max-keys and continuation-token', async () => {
    const seen: string[] = []
    let token: string | undefined
    for (let page = 0; page < 10; page++) {
      const q = `?list-type=2&prefix=_delta_log/&max-keys=2${token ? `&continuation-token=${encodeURIComponent(token)}` : ''}`
      const xml = await (await fetch(server.url + q)).text()
      seen.push(...[...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map(m => m[1]!))
      token = /<NextContinuationToken>([^<]*)</.exec(xml)?.[1]
      expect(xml).toContain(`<IsTruncated>${token !== undefined}</IsTruncated>`)
      if (!token) break
    }
    expect(seen).toEqual([0, 1, 2, 3, 4].map(v => `_delta_log/${String(v).padStart(20, '0')}.json`))
  })

  it('lists a sub-folder as a path-style bucket, keys relative to it', async () => {
    const xml = await (await fetch(server.url + '_delta_log/?list-type=2&prefix=0000000000000000000')).text()
    const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map(m => m[1])
    expect(keys).toEqual([0, 1, 2, 3, 4].map(v => `${String(v).padStart(20, '0')}.json`))
    expect((await raw(server.url, '/%2e%2e/?list-type=2')).status).toBe(403)
  })

  it('rejects a bad max-keys', async () => {
    expect((await fetch(server.url + '?list-type=2&max-keys=x')).status).toBe(400)
  })
})

describe('serveDirectory: options', () => {
  it('answers a range longer than one file read (1 MiB) with exactly its bytes, and no CORS or timing headers by default', async () => {
    const big = new Uint8Array(3 * 2 ** 20 + 12_345).map((_, i) => (i * 7 + (i >> 11)) & 255)
    await writeFile(join(root, 'big.bin'), big)
    const s = await serveDirectory(root)
    try {
      const res = await fetch(s.url + 'big.bin', { headers: { Range: 'bytes=1000-3146727' } })
      expect(res.status).toBe(206)
      const got = Buffer.from(await res.arrayBuffer())
      expect(got.length).toBe(3146728 - 1000)
      expect(got.equals(big.subarray(1000, 3146728))).toBe(true)
      const whole = await fetch(s.url + 'big.bin')
      expect(Buffer.from(await whole.arrayBuffer()).equals(big)).toBe(true)
      expect(whole.headers.get('access-control-allow-origin')).toBeNull()
      expect(whole.headers.get('timing-allow-origin')).toBeNull()
    } finally {
      await s.close()
    }
  })

  it('sends CORS headers only with cors: true', async () => {
    const s = await serveDirectory(root, { cors: true })
    try {
      const res = await fetch(s.url + 'data.bin')
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-expose-headers')).toContain('Content-Range')
      // The page's Resource Timing may show request → first byte → last byte of range answers.
      expect(res.headers.get('timing-allow-origin')).toBe('*')
      const pre = await raw(s.url, '/data.bin', {
        method: 'OPTIONS',
        headers: { origin: 'http://x', 'access-control-request-headers': 'range' },
      })
      expect(pre.status).toBe(204)
      expect(String(pre.headers['access-control-allow-headers'])).toContain('Range')
    } finally {
      await s.close()
    }
  })
})
