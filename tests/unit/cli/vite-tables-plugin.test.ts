import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { listingMiddleware, listingOptions, tableFilesMiddleware } from '../../../src/serve/vite-tables-plugin.ts'

let root: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'vite-tables-'))
  mkdirSync(join(root, 'tables', 't', '_delta_log'), { recursive: true })
  writeFileSync(join(root, 'tables', 't', '_delta_log', '00000000000000000000.json'), '{}\n')
  writeFileSync(join(root, 'tables', 't', 'a b%3A.parquet'), 'PAR1')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Runs a connect middleware on a fake request; resolves to the response or 'next'. */
function call(
  mw: (req: IncomingMessage, res: ServerResponse, next: () => void) => void,
  url: string,
  method = 'GET',
  reqHeaders: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: string; headers: Record<string, string> } | 'next'>(done => {
    const headers: Record<string, string> = {}
    const res = {
      statusCode: 200,
      setHeader: (k: string, v: string) => {
        headers[k.toLowerCase()] = v
      },
      end(body = '') {
        done({ status: this.statusCode, body, headers })
      },
    }
    mw({ url, method, headers: reqHeaders } as unknown as IncomingMessage, res as unknown as ServerResponse, () =>
      done('next'),
    )
  })
}

test('listingOptions parses ListObjectsV2 queries at / only', () => {
  expect(listingOptions('/?list-type=2&prefix=tables%2F&delimiter=%2F&max-keys=5&continuation-token=abc')).toEqual({
    prefix: 'tables/',
    delimiter: '/',
    continuationToken: 'abc',
    startAfter: undefined,
    maxKeys: 5,
    encodingType: undefined,
  })
  expect(listingOptions('/?list-type=2')).toMatchObject({ prefix: '' })
  expect(listingOptions('/')).toBeUndefined()
  expect(listingOptions('/tables/?list-type=2')).toBeUndefined()
  expect(listingOptions('/?list-type=1')).toBeUndefined()
})

test('listing middleware answers table folders and log files; passes other requests on', async () => {
  const mw = listingMiddleware([{ key: '', dir: root }])
  const tables = await call(mw, '/?list-type=2&prefix=tables/&delimiter=/')
  expect(tables).not.toBe('next')
  if (tables === 'next') return
  expect(tables.status).toBe(200)
  expect(tables.headers['content-type']).toBe('application/xml')
  expect(tables.body).toContain('<CommonPrefixes><Prefix>tables/t/</Prefix></CommonPrefixes>')
  const log = await call(mw, '/?list-type=2&prefix=tables/t/_delta_log/')
  expect(log !== 'next' && log.body).toContain('<Key>tables/t/_delta_log/00000000000000000000.json</Key>')
  expect(await call(mw, '/index.html')).toBe('next')
  expect(await call(mw, '/?list-type=2', 'POST')).toBe('next')
  const bad = await call(mw, '/?list-type=2&max-keys=-1')
  expect(bad !== 'next' && bad.status).toBe(400)
})

test('a folder listed under a key: keys shown under it, the folders above it rolled up', async () => {
  const mw = listingMiddleware([{ key: 'tables/t/', dir: join(root, 'tables', 't') }])
  const found = await call(mw, '/?list-type=2&prefix=tables/&delimiter=/')
  expect(found !== 'next' && found.body).toContain('<CommonPrefixes><Prefix>tables/t/</Prefix></CommonPrefixes>')
  expect(found !== 'next' && found.body).toContain('<Prefix>tables/</Prefix>')
  const top = await call(mw, '/?list-type=2&prefix=&delimiter=/')
  expect(top !== 'next' && top.body).toContain('<CommonPrefixes><Prefix>tables/</Prefix></CommonPrefixes>')
  const log = await call(mw, '/?list-type=2&prefix=tables/t/_delta_log/&delimiter=/')
  expect(log !== 'next' && log.body).toContain('<Key>tables/t/_delta_log/00000000000000000000.json</Key>')
  expect(log !== 'next' && log.body).toContain('<Prefix>tables/t/_delta_log/</Prefix>')
  const encoded = await call(mw, '/?list-type=2&prefix=tables/t/&encoding-type=url')
  expect(encoded !== 'next' && encoded.body).toContain('<Key>tables/t/a%20b%253A.parquet</Key>')
  const other = await call(mw, '/?list-type=2&prefix=tables/u/&delimiter=/')
  expect(other !== 'next' && other.body).toContain('<KeyCount>0</KeyCount>')
})

test('missing files under /tables/ get 404 instead of the SPA index.html; existing ones pass', async () => {
  const mw = tableFilesMiddleware(root)
  const missing = await call(mw, '/tables/nope/_delta_log/_last_checkpoint')
  expect(missing !== 'next' && missing.status).toBe(404)
  expect(missing !== 'next' && missing.body).toContain('NoSuchKey')
  expect(await call(mw, '/tables/t/_delta_log/00000000000000000000.json')).toBe('next')
  expect(await call(mw, '/tables/t/a%20b%253A.parquet')).toBe('next') // %-decoded once, as sirv does
  const dir = await call(mw, '/tables/t/')
  expect(dir !== 'next' && dir.status).toBe(404)
  const escaped = await call(mw, '/tables/../../etc/passwd')
  expect(escaped === 'next' || escaped.status === 404).toBe(true)
  expect(await call(mw, '/src/main.ts')).toBe('next')
})

test('suffix ranges become explicit offsets (sirv would serve the head); others pass untouched', async () => {
  const mw = tableFilesMiddleware(root)
  const url = '/tables/t/a%20b%253A.parquet' // 4 bytes
  const suffix = { range: 'bytes=-2' }
  expect(await call(mw, url, 'GET', suffix)).toBe('next')
  expect(suffix.range).toBe('bytes=2-3')
  const longer = { range: 'bytes=-100' }
  expect(await call(mw, url, 'GET', longer)).toBe('next')
  expect(longer.range).toBe('bytes=0-3')
  const explicit = { range: 'bytes=1-2' }
  expect(await call(mw, url, 'GET', explicit)).toBe('next')
  expect(explicit.range).toBe('bytes=1-2')
  const empty = await call(mw, url, 'GET', { range: 'bytes=-0' })
  expect(empty !== 'next' && [empty.status, empty.headers['content-range']]).toEqual([416, 'bytes */4'])
})
