import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { renderListObjectsV2 } from '../../../src/serve/s3-listing.ts'
import { listingOptions } from '../../../src/serve/vite-tables-plugin.ts'
import { listTables, parseListing } from '../../../src/sources/folder/catalog.ts'
import { indexedListing } from '../../../src/table/listing.ts'
import type { FetchLike } from '../../../src/table/types.ts'

let root: string
const TABLES = ['clicks', 'marketing', 'with space', 'ümlaut']

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'catalog-'))
  for (const t of TABLES) {
    mkdirSync(join(root, 'tables', t, '_delta_log'), { recursive: true })
    writeFileSync(join(root, 'tables', t, '_delta_log', '00000000000000000000.json'), '{}\n')
  }
  writeFileSync(join(root, 'tables', 'README.txt'), 'not a table')
  for (const hidden of ['.clicks.tmp-1', '_staging']) {
    mkdirSync(join(root, 'tables', hidden), { recursive: true })
    writeFileSync(join(root, 'tables', hidden, 'part-0.parquet'), 'PAR1')
  }
  writeFileSync(join(root, 'index.html'), '<!doctype html>')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A fetch answering ListObjectsV2 from `root` the way the vite plugin does, `maxKeys` per page. */
function listingFetch(maxKeys?: number, seen: string[] = []): FetchLike {
  return async url => {
    seen.push(url)
    const opts = listingOptions(url)
    if (!opts) return new Response('<!doctype html>', { status: 200 })
    return new Response(await renderListObjectsV2(root, { ...opts, maxKeys: maxKeys ?? opts.maxKeys }))
  }
}

describe('listTables', () => {
  test('folders under the base URL, sorted, with table URLs; plain files and hidden folders are not tables', async () => {
    const seen: string[] = []
    const tables = await listTables('http://h:1/tables/', { fetch: listingFetch(undefined, seen) })
    expect(tables).toEqual([
      { name: 'clicks', url: 'http://h:1/tables/clicks/' },
      { name: 'marketing', url: 'http://h:1/tables/marketing/' },
      { name: 'with space', url: 'http://h:1/tables/with%20space/' },
      { name: 'ümlaut', url: 'http://h:1/tables/%C3%BCmlaut/' },
    ])
    expect(seen).toEqual(['http://h:1/?list-type=2&prefix=tables%2F&delimiter=%2F'])
  })

  test('follows continuation tokens across pages', async () => {
    const seen: string[] = []
    const tables = await listTables('http://h:1/tables', { fetch: listingFetch(1, seen) })
    expect(tables.map(t => t.name)).toEqual(TABLES)
    expect(seen.length).toBe(7) // 6 prefixes + README.txt, one entry per page; the last page is not truncated
    expect(seen.slice(1).every(u => u.includes('continuation-token='))).toBe(true)
  })

  test('a server without listing gets an error naming the URL', async () => {
    const fetch: FetchLike = async () => new Response('<!doctype html><title>app</title>')
    await expect(listTables('http://h:1/tables/', { fetch })).rejects.toThrow(
      /http:\/\/h:1\/\?list-type=2.*not an S3 ListObjectsV2 response/,
    )
  })

  test('a 404 from the listing is a TableError naming the URL', async () => {
    const fetch: FetchLike = async () => new Response('nope', { status: 404 })
    await expect(listTables('http://h:1/tables/', { fetch, attempts: 1 })).rejects.toMatchObject({
      name: 'TableError',
      code: 'http',
    })
  })
})

describe("listTables on a static host (no listing): the folder's index.json", () => {
  /** A static host: the listing request gets the app page (query ignored), files by path, else 404. */
  function staticFetch(files: Record<string, string>, seen: string[] = []): FetchLike {
    return async url => {
      seen.push(url)
      const path = new URL(url).pathname
      if (path === '/') return new Response('<!doctype html><title>app</title>')
      return path in files ? new Response(files[path]) : new Response('not found', { status: 404 })
    }
  }

  test('names the tables, sorted, with their URLs, after one listing request', async () => {
    const seen: string[] = []
    const index = JSON.stringify({ tables: [{ name: 'marketing' }, { name: 'clicks' }] })
    const tables = await listTables('http://h:1/demo/tables/', {
      fetch: staticFetch({ '/demo/tables/index.json': index }, seen),
    })
    expect(tables).toEqual([
      { name: 'clicks', url: 'http://h:1/demo/tables/clicks/' },
      { name: 'marketing', url: 'http://h:1/demo/tables/marketing/' },
    ])
    expect(seen).toEqual([
      'http://h:1/?list-type=2&prefix=demo%2Ftables%2F&delimiter=%2F',
      'http://h:1/demo/tables/index.json',
    ])
  })

  test('a listing that 404s also falls back to the index', async () => {
    const fetch: FetchLike = async url =>
      url.endsWith('/index.json')
        ? new Response(JSON.stringify({ tables: [{ name: 'a' }] }))
        : new Response('no', { status: 404 })
    expect(await listTables('http://h:1/t/', { fetch, attempts: 1 })).toEqual([{ name: 'a', url: 'http://h:1/t/a/' }])
  })

  test('a base URL naming the index reads it without a listing; its logs open the tables without a probe', async () => {
    const seen: string[] = []
    const index = JSON.stringify({ tables: [{ name: 'b', log: { earliest: 0, latest: 0 } }, { name: 'a' }] })
    const fetch = staticFetch({ '/demo/tables/index.json': index }, seen)
    const tables = await listTables('http://h:1/demo/tables/index.json', { fetch })
    expect(tables).toEqual([
      { name: 'a', url: 'http://h:1/demo/tables/a/' },
      { name: 'b', url: 'http://h:1/demo/tables/b/' },
    ])
    expect(seen).toEqual(['http://h:1/demo/tables/index.json'])
    expect(indexedListing('http://h:1/demo/tables/b/', {})?.commits.map(c => c.url)).toEqual([
      'http://h:1/demo/tables/b/_delta_log/00000000000000000000.json',
    ])
    expect(indexedListing('http://h:1/demo/tables/a/', {})).toBeUndefined()
  })

  test('the index named and missing: the error names it', async () => {
    await expect(listTables('http://h:1/t/index.json', { fetch: staticFetch({}) })).rejects.toThrow(
      /^the static index http:\/\/h:1\/t\/index\.json: 404/,
    )
  })

  test('no index either: the error names the listing URL and the index', async () => {
    await expect(listTables('http://h:1/tables/', { fetch: staticFetch({}) })).rejects.toThrow(
      /list-type=2.*not an S3 ListObjectsV2 response.*http:\/\/h:1\/tables\/index\.json: 404/,
    )
  })

  test.each([
    ['{"tables": "clicks"}', /index\.json: expected \{"tables"/],
    ['{"tables": [{"name": "../x"}]}', /tables\[0\]\.name must be a folder name.*"\.\.\/x"/],
    ['{"tables": [{"name": "a"}, {}]}', /tables\[1\]\.name must be a folder name/],
    ['not json', /index\.json: not valid JSON/],
    [
      '{"tables": [{"name": "a", "log": {"earliest": 2, "latest": 1}}]}',
      /tables\[0\]\.log: earliest 2 is after latest 1/,
    ],
  ])('a bad index %s is an error naming the file and entry', async (body, message) => {
    const fetch = staticFetch({ '/tables/index.json': body })
    await expect(listTables('http://h:1/tables/', { fetch })).rejects.toThrow(message)
  })
})

test('parseListing unescapes XML entities and ignores a token when not truncated', () => {
  const xml =
    '<ListBucketResult><IsTruncated>false</IsTruncated><NextContinuationToken>x</NextContinuationToken>' +
    '<CommonPrefixes><Prefix>tables/a&amp;b&#47;/</Prefix></CommonPrefixes></ListBucketResult>'
  expect(parseListing(xml, 'u')).toEqual({ prefixes: ['tables/a&b//'], nextToken: undefined })
})
