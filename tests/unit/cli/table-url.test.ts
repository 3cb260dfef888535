import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { localizeUrls, openTableLocation } from '../../../src/cli/table-url.ts'
import { TableArgError } from '../../../src/sources/index.ts'
import { httpOptions, selectFields, timestampFlag } from '../../../src/cli/scan.ts'
import { UsageError } from '../../../src/cli/args.ts'

let base: string
const TABLE = 'my table %'

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'snaptrain-url-'))
  await mkdir(join(base, TABLE, '_delta_log'), { recursive: true })
  await writeFile(join(base, TABLE, '_delta_log', '00000000000000000000.json'), '{}\n')
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('openTableLocation', () => {
  it('serves a local folder on loopback, the URL ending in its encoded name', async () => {
    const loc = await openTableLocation(join(base, TABLE))
    try {
      expect(loc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/my%20table%20%25\/$/)
      expect(loc.display).toBe(join(base, TABLE))
      const res = await fetch(loc.url + '_delta_log/00000000000000000000.json')
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('{}\n')
    } finally {
      await loc.close()
    }
  })

  it('accepts relative paths and file: URLs', async () => {
    for (const input of [TABLE, pathToFileURL(join(base, TABLE)).href]) {
      const loc = await openTableLocation(input, base)
      expect(loc.display).toBe(join(base, TABLE))
      await loc.close()
    }
  })

  it('uses http(s) URLs as they are, adding the trailing slash', async () => {
    const loc = await openTableLocation('https://example.com/tables/t')
    expect(loc.url).toBe('https://example.com/tables/t/')
    expect(loc.localize('GET https://example.com/tables/t/x: 404')).toBe('GET https://example.com/tables/t/x: 404')
  })

  it('refuses missing folders, files and other schemes, naming the input', async () => {
    await expect(openTableLocation(join(base, 'nope'))).rejects.toThrow(/nope: no such folder/)
    await expect(openTableLocation(join(base, TABLE, '_delta_log', '00000000000000000000.json'))).rejects.toThrow(
      /not a folder/,
    )
    await expect(openTableLocation('gs://bucket/t')).rejects.toBeInstanceOf(TableArgError)
  })
})

describe('localizeUrls', () => {
  it('maps loopback URLs in a message to the decoded local path, keeping trailing punctuation', () => {
    const msg = 'GET http://127.0.0.1:5/t/a%3Db/p%2520x.parquet: 404 Not Found (see http://127.0.0.1:5/t/).'
    expect(localizeUrls(msg, 'http://127.0.0.1:5/', '/data')).toBe(
      'GET /data/t/a=b/p%20x.parquet: 404 Not Found (see /data/t/).',
    )
    expect(localizeUrls('no url here', 'http://127.0.0.1:5/', '/data')).toBe('no url here')
  })
})

describe('scan flag helpers', () => {
  it('takes the HTTP timeout from --timeout-ms, then SNAPTRAIN_HTTP_TIMEOUT_MS', () => {
    expect(httpOptions({ 'timeout-ms': 50 }, { SNAPTRAIN_HTTP_TIMEOUT_MS: '900' })).toEqual({ timeoutMs: 50 })
    expect(httpOptions({}, { SNAPTRAIN_HTTP_TIMEOUT_MS: '900' })).toEqual({ timeoutMs: 900 })
    expect(httpOptions({}, {})).toEqual({})
    expect(() => httpOptions({}, { SNAPTRAIN_HTTP_TIMEOUT_MS: 'soon' })).toThrow(/SNAPTRAIN_HTTP_TIMEOUT_MS.*'soon'/)
  })

  it('reads --timestamp as ISO-8601 or ms since epoch', () => {
    expect(timestampFlag('2023-01-25T01:50:14Z')).toBe('2023-01-25T01:50:14Z')
    expect(timestampFlag('1674611413970')).toBe(1674611413970)
    expect(() => timestampFlag('yesterday')).toThrow(UsageError)
  })

  it('selects columns in the asked order and names an unknown one', () => {
    const schema = {
      type: 'struct' as const,
      fields: ['a', 'b', 'c'].map(name => ({ name, type: 'long', nullable: true, metadata: {} })),
    }
    expect(selectFields({ schema }, [], 't').map(f => f.name)).toEqual(['a', 'b', 'c'])
    expect(selectFields({ schema }, ['c', 'a'], 't').map(f => f.name)).toEqual(['c', 'a'])
    expect(() => selectFields({ schema }, ['a', 'zz'], '/tables/t')).toThrow(
      "--columns: no column 'zz' in table /tables/t (columns: a, b, c)",
    )
  })
})
