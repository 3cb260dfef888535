import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lastExisting, listLog, parseListXml, parseLogFileName, probeLog } from '../../../src/table/listing.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const ROOT = join(import.meta.dirname, '../../conformance')
const golden = (name: string) => `http://table.test/golden/${name}/`

describe('parseLogFileName', () => {
  it('recognises commits and the three checkpoint namings', () => {
    expect(parseLogFileName('00000000000000000012.json')).toEqual({ kind: 'commit', version: 12 })
    expect(parseLogFileName('00000000000000000010.checkpoint.parquet')).toEqual({
      kind: 'checkpoint',
      version: 10,
      format: 'classic',
    })
    expect(parseLogFileName('00000000000000000010.checkpoint.0000000002.0000000003.parquet')).toEqual({
      kind: 'checkpoint',
      version: 10,
      format: 'multipart',
      part: 2,
      parts: 3,
    })
    expect(parseLogFileName('00000000000000000002.checkpoint.6374b053-df23-479b-b2cf-c9c550132b49.json')).toEqual({
      kind: 'checkpoint',
      version: 2,
      format: 'v2',
      uuid: '6374b053-df23-479b-b2cf-c9c550132b49',
    })
  })

  it('ignores everything else', () => {
    for (const name of [
      '_last_checkpoint',
      '00000000000000000001.crc',
      '00000000000000000001.00000000000000000003.compacted.json',
      '1.json',
    ]) {
      expect(parseLogFileName(name)).toBeUndefined()
    }
  })
})

describe('parseListXml', () => {
  it('reads keys, sizes, times, entities and the continuation token', () => {
    const xml =
      '<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>' +
      '<Contents><Key>a/b&amp;c.json</Key><LastModified>2024-01-02T03:04:05.000Z</LastModified><Size>12</Size></Contents>' +
      '<Contents><Key>x</Key><Size>0</Size></Contents></ListBucketResult>'
    expect(parseListXml(xml)).toEqual({
      truncated: true,
      token: 't&1',
      objects: [
        { key: 'a/b&c.json', size: 12, lastModified: Date.parse('2024-01-02T03:04:05Z') },
        { key: 'x', size: 0, lastModified: undefined },
      ],
    })
  })
})

describe('listLog (S3 ListObjectsV2)', () => {
  it('follows pagination and groups a multi-part checkpoint', async () => {
    const fetch = fileFetch(ROOT, { pageSize: 2 })
    const listing = await listLog(golden('multi-part-checkpoint'), { fetch })
    expect(listing?.commits.map(c => c.version)).toEqual([0, 1])
    expect(listing?.checkpoints).toHaveLength(1)
    expect(listing?.checkpoints[0]).toMatchObject({ version: 1, kind: 'multipart' })
    expect(listing?.checkpoints[0].parts.map(p => p.size)).toEqual([15741, 14758])
    expect(fetch.requests.filter(r => r.url.includes('list-type=2')).length).toBeGreaterThanOrEqual(3)
  })

  it('skips sub-folders (_sidecars, _staged_commits) and incomplete multi-part checkpoints', async () => {
    const v2 = await listLog(golden('v2-checkpoint-json'), { fetch: fileFetch(ROOT) })
    expect(v2?.checkpoints.map(c => c.kind)).toEqual(['v2'])
    const staged = await listLog(golden('catalog-owned-preview'), { fetch: fileFetch(ROOT) })
    expect(staged?.commits.map(c => c.version)).toEqual([0])
    const dir = mkdtempSync(join(tmpdir(), 'listing-'))
    mkdirSync(join(dir, 't/_delta_log'), { recursive: true })
    writeFileSync(join(dir, 't/_delta_log/00000000000000000000.json'), '{}')
    writeFileSync(join(dir, 't/_delta_log/00000000000000000000.checkpoint.0000000001.0000000002.parquet'), '')
    const partial = await listLog('http://table.test/t/', { fetch: fileFetch(dir) })
    expect(partial?.checkpoints).toEqual([])
  })

  it('resolves undefined on a server without listing', async () => {
    expect(await listLog(golden('checkpoint'), { fetch: fileFetch(ROOT, { listing: false }) })).toBeUndefined()
  })
})

describe('probing a static server', () => {
  it('starts from _last_checkpoint and finds the newest commit with few requests', async () => {
    const fetch = fileFetch(ROOT, { listing: false })
    const listing = await probeLog(golden('basic-dv-with-checkpoint'), { fetch })
    expect(listing.checkpoints.map(c => c.version)).toEqual([40])
    expect(listing.commits.map(c => c.version)).toEqual([41, 42, 43, 44, 45, 46])
    expect(fetch.requests.length).toBeLessThanOrEqual(10)
  })

  it('takes commits from 0 when the wanted version is older than the checkpoint', async () => {
    const listing = await probeLog(
      golden('basic-dv-with-checkpoint'),
      { fetch: fileFetch(ROOT, { listing: false }) },
      5,
    )
    expect(listing.commits[0].version).toBe(0)
    expect(listing.commits.at(-1)?.version).toBe(46)
  })

  it('finds nothing where there is no log', async () => {
    const listing = await probeLog('http://table.test/golden/nope/', { fetch: fileFetch(ROOT, { listing: false }) })
    expect(listing).toEqual({ source: 'probe', commits: [], checkpoints: [] })
  })

  it('lastExisting uses O(log n) probes', async () => {
    for (const latest of [0, 1, 2, 7, 100, 1000]) {
      const probes: number[] = []
      const found = await lastExisting(0, async v => {
        probes.push(v)
        return v <= latest
      })
      expect(found).toBe(latest)
      expect(probes.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(latest + 2)) + 1)
    }
  })
})
