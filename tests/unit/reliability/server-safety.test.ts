/**
 * The loopback servers expose only what they were asked to serve: the CLI mounts a table folder
 * under its own name (siblings unreachable, the root listing shows only it), every spelling of a
 * traversal (`..`, `%2e%2e%2f`, `%2e%2e/`, double-encoded, absolute, backslash) and symlinks
 * leading out are 403, CORS is off unless asked for and then open only to the named origins,
 * answers carry COOP/COEP and a data-only CSP; the vite plugin refuses symlinks out of public/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { request, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { openTableLocation, type TableLocation } from '../../../src/cli/table-url.ts'
import { pageTable, type PageTable } from '../../../src/cli/page-run.ts'
import { tableFilesMiddleware } from '../../../src/serve/vite-tables-plugin.ts'

interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** Raw HTTP request: the path goes on the wire as written (fetch would normalise '..' and '%2e'). */
function raw(
  base: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: opts.method ?? 'GET', headers: opts.headers }, res => {
      const chunks: Buffer[] = []
      res.on('data', c => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      )
    })
    req.setTimeout(5000, () => req.destroy(new Error(`timeout ${path}`)))
    req.on('error', reject)
    req.end()
  })
}

let dir: string
let table: string
let location: TableLocation

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-safety-'))
  table = join(dir, 'tbl')
  await mkdir(join(table, '_delta_log'), { recursive: true })
  await mkdir(join(dir, 'sibling'), { recursive: true })
  await writeFile(join(table, '_delta_log', '00000000000000000000.json'), '{}\n')
  await writeFile(join(table, 'part-0.parquet'), 'PAR1')
  await writeFile(join(dir, 'sibling', 'secret.txt'), 'top secret')
  await writeFile(join(dir, 'secret.txt'), 'top secret')
  await symlink(join(dir, 'secret.txt'), join(table, 'link-out.txt'))
  await symlink(join(dir, 'sibling'), join(table, 'dir-out'))
  location = await openTableLocation(table)
})

afterAll(async () => {
  await location?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('CLI table server: only the table folder', () => {
  it('binds 127.0.0.1 and mounts the folder under its name', async () => {
    expect(location.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tbl\/$/)
    const res = await raw(location.url, '/tbl/_delta_log/00000000000000000000.json')
    expect(res.status).toBe(200)
    expect(res.body).toBe('{}\n')
  })

  it('siblings of the table folder are not reachable (the parent is not served)', async () => {
    for (const path of ['/sibling/secret.txt', '/secret.txt', '/tbl/../sibling/secret.txt', '/tbl/../secret.txt']) {
      const res = await raw(location.url, path)
      expect([403, 404], path).toContain(res.status)
      expect(res.body).not.toContain('top secret')
    }
  })

  const traversals = [
    '/tbl/../secret.txt',
    '/tbl/%2e%2e/secret.txt',
    '/tbl/%2e%2e%2fsecret.txt',
    '/tbl/%2E%2E%2Fsibling%2Fsecret.txt',
    '/tbl/..%2fsecret.txt',
    '/tbl/%252e%252e%252fsecret.txt',
    '/tbl/%252e%252e/secret.txt',
    '/tbl//etc/passwd',
    '/tbl/%2fetc%2fpasswd',
    '/tbl/..%5csecret.txt',
    '/tbl/a\\..\\..\\secret.txt',
    '/tbl/link-out.txt',
    '/tbl/dir-out/secret.txt',
    '/tbl/%00secret.txt',
  ]
  for (const path of traversals) {
    it(`403 for ${path}`, async () => {
      const res = await raw(location.url, path)
      expect(res.status).toBe(403)
      expect(res.body).not.toContain('top secret')
    })
  }

  it('the bucket listing shows only keys under the table folder', async () => {
    const inside = await raw(location.url, '/?list-type=2&prefix=tbl/_delta_log/')
    expect(inside.status).toBe(200)
    expect(inside.body).toContain('<Key>tbl/_delta_log/00000000000000000000.json</Key>')
    for (const prefix of ['', 'sibling/', 'tb', 'tbl']) {
      const res = await raw(location.url, `/?list-type=2&prefix=${prefix}`)
      expect(res.status, prefix).toBe(404)
      expect(res.body).not.toContain('secret')
    }
  })

  it('answers carry COOP/COEP, nosniff and a data-only CSP; no CORS unless asked', async () => {
    const res = await raw(location.url, '/tbl/part-0.parquet', { headers: { origin: 'http://evil.test' } })
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin')
    expect(res.headers['cross-origin-embedder-policy']).toBe('require-corp')
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox")
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
    const pre = await raw(location.url, '/tbl/part-0.parquet', {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test' },
    })
    expect(pre.status).toBe(405)
  })
})

describe('CORS open to named origins only', () => {
  let server: ServedDirectory
  beforeAll(async () => {
    server = await serveDirectory(table, { cors: ['http://page.test:1'], mount: 'tbl' })
  })
  afterAll(async () => {
    await server?.close()
  })

  it('reflects an allowed origin, never a wildcard, and ignores others', async () => {
    const ok = await raw(server.url, '/tbl/part-0.parquet', { headers: { origin: 'http://page.test:1' } })
    expect(ok.headers['access-control-allow-origin']).toBe('http://page.test:1')
    expect(ok.headers.vary).toContain('Origin')
    expect(String(ok.headers['access-control-expose-headers'])).toContain('Content-Range')
    const other = await raw(server.url, '/tbl/part-0.parquet', { headers: { origin: 'http://evil.test' } })
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    const pre = await raw(server.url, '/tbl/part-0.parquet', {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test' },
    })
    expect(pre.status).toBe(405)
  })

  it('allowOrigin adds an origin later (the app page, once its server runs)', async () => {
    server.allowOrigin('http://localhost:5')
    const pre = await raw(server.url, '/tbl/part-0.parquet', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5', 'access-control-request-headers': 'range' },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:5')
  })

  it('a mount name with a slash is refused', async () => {
    await expect(serveDirectory(table, { mount: 'a/b' })).rejects.toThrow(/mount must be a plain folder name/)
  })
})

describe('page tables (train/predict)', () => {
  let served: PageTable
  beforeAll(async () => {
    served = await pageTable(table)
  })
  afterAll(async () => {
    await served?.close()
  })

  it('mount the folder only, and send no CORS before the page origin is known', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tbl\/$/)
    const sibling = await raw(served.url, '/sibling/secret.txt')
    expect(sibling.status).toBe(404)
    const res = await raw(served.url, '/tbl/part-0.parquet', { headers: { origin: 'http://evil.test' } })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('vite plugin: public/ tables', () => {
  it('403 for a symlink out of the public folder; files inside pass to vite', async () => {
    const publicDir = join(dir, 'public')
    await mkdir(join(publicDir, 'tables', 't'), { recursive: true })
    await writeFile(join(publicDir, 'tables', 't', 'ok.parquet'), 'PAR1')
    await symlink(join(dir, 'secret.txt'), join(publicDir, 'tables', 't', 'out.parquet'))
    const mw = tableFilesMiddleware(publicDir)
    const call = (url: string) =>
      new Promise<number | 'next'>(done => {
        const res = {
          statusCode: 200,
          setHeader: () => undefined,
          end() {
            done(this.statusCode)
          },
        }
        mw({ url, method: 'GET', headers: {} } as unknown as IncomingMessage, res as unknown as ServerResponse, () =>
          done('next'),
        )
      })
    expect(await call('/tables/t/ok.parquet')).toBe('next')
    expect(await call('/tables/t/out.parquet')).toBe(403)
  })
})
