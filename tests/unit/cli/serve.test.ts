/**
 * `snaptrain serve`: the built app and a local table on one origin — the page with its isolation
 * headers, the table in the root listing where the app's discovery looks, its files by Range, and
 * nothing of the table's siblings.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { serveTable, tableFolders } from '../../../src/cli/serve.ts'
import type { PageServer } from '../../../src/serve/page-server.ts'

let dir: string
let server: PageServer

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'snaptrain-serve-'))
  mkdirSync(join(dir, 'my table', '_delta_log'), { recursive: true })
  writeFileSync(join(dir, 'my table', '_delta_log', '00000000000000000000.json'), '{"commitInfo":{}}\n')
  writeFileSync(join(dir, 'my table', 'part-0.parquet'), 'PAR1-body-PAR1')
  mkdirSync(join(dir, 'sibling'))
  writeFileSync(join(dir, 'sibling', 'secret.txt'), 'no')
  server = await serveTable({ table: 'my table' }, dir)
})

afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

test('serves the built app with the page headers, on loopback', async () => {
  expect(server.url).toMatch(/^http:\/\/localhost:\d+\/$/)
  const res = await fetch(server.url)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/html/)
  expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin')
  expect(res.headers.get('cross-origin-embedder-policy')).toBe('require-corp')
  expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
  expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  const html = await res.text()
  const script = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1]
  expect(script, html).toBeDefined()
  const js = await fetch(new URL(script!, server.url))
  expect(js.status).toBe(200)
  expect(js.headers.get('content-type')).toMatch(/^text\/javascript/)
})

test('lists the table under /tables/ where the app looks, and its log', async () => {
  const tables = await (await fetch(`${server.url}?list-type=2&prefix=tables/&delimiter=/`)).text()
  expect(tables).toContain('<CommonPrefixes><Prefix>tables/my table/</Prefix></CommonPrefixes>')
  expect(tables).not.toContain('sibling')
  const log = await (
    await fetch(`${server.url}?list-type=2&prefix=${encodeURIComponent('tables/my table/_delta_log/')}`)
  ).text()
  expect(log).toContain('<Key>tables/my table/_delta_log/00000000000000000000.json</Key>')
})

test('answers Range requests on a data file with 206, suffix ranges included', async () => {
  const url = `${server.url}tables/my%20table/part-0.parquet`
  const head = await fetch(url, { headers: { Range: 'bytes=0-3' } })
  expect(head.status).toBe(206)
  expect(head.headers.get('content-range')).toBe('bytes 0-3/14')
  expect(await head.text()).toBe('PAR1')
  const tail = await fetch(url, { headers: { Range: 'bytes=-4' } })
  expect(tail.status).toBe(206)
  expect(await tail.text()).toBe('PAR1')
})

test('nothing outside the table folder answers', async () => {
  for (const path of ['tables/sibling/secret.txt', 'tables/my%20table/..%2F..%2Fsibling%2Fsecret.txt', 'nope.js']) {
    const res = await fetch(`${server.url}${path}`)
    expect([403, 404], path).toContain(res.status)
  }
})

test('a folder of tables is listed as such; a missing folder names --table', async () => {
  expect(await tableFolders(dir)).toEqual([{ key: 'tables/', dir }])
  await expect(serveTable({ table: 'missing' }, dir)).rejects.toThrow(/^--table: .*missing: no such folder/)
})
