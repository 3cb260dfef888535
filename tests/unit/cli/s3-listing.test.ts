import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareKeys, listObjects, renderListObjectsV2, xmlEscape } from '../../../src/serve/s3-listing.ts'

let root: string
let outside: string

/** Keys, common prefixes and the next token of one rendered page. */
function parse(xml: string) {
  const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map(m => m[1]!)
  const prefixes = [...xml.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g)].map(m => m[1]!)
  const token = /<NextContinuationToken>([^<]*)</.exec(xml)?.[1]
  const keyCount = Number(/<KeyCount>(\d+)</.exec(xml)?.[1])
  return { keys, prefixes, token, keyCount }
}

beforeAll(async () => {
  const base = await mkdtemp(join(tmpdir(), 'snaptrain-list-'))
  root = join(base, 'root')
  outside = join(base, 'outside')
  await mkdir(outside)
  await writeFile(join(outside, 'x'), 'x')
  for (const p of [
    't/_delta_log/00.json',
    't/_delta_log/01.json',
    't/_delta_log/_sidecars/s.parquet',
    't/a=1/p.parquet',
    't/a=2/p.parquet',
    't/b.parquet',
    't/z😀.parquet',
    't/\uffff.parquet',
    'u/&<x>.json',
    'empty/.keep',
  ]) {
    await mkdir(join(root, p, '..'), { recursive: true })
    await writeFile(join(root, p), p)
  }
  await mkdir(join(root, 'emptydir'))
  await symlink(outside, join(root, 't', 'link-out'))
  await symlink(join(outside, 'x'), join(root, 't', 'file-out'))
})

afterAll(async () => {
  await rm(join(root, '..'), { recursive: true, force: true })
})

describe('listObjects', () => {
  it('lists files under a prefix, recursively, in UTF-8 byte order', async () => {
    const keys = (await listObjects(root, 't/')).map(o => o.key)
    expect(keys).toEqual([
      't/_delta_log/00.json',
      't/_delta_log/01.json',
      't/_delta_log/_sidecars/s.parquet',
      't/a=1/p.parquet',
      't/a=2/p.parquet',
      't/b.parquet',
      't/z😀.parquet',
      't/\uffff.parquet',
    ])
    // S3 orders by UTF-8 bytes: U+FFFF (EF BF BF) sorts before an emoji (F0 …), the reverse of
    // JS string order (UTF-16 surrogate 0xD83D < 0xFFFF).
    expect(compareKeys('\uffff', '😀')).toBeLessThan(0)
    expect('\uffff' < '😀').toBe(false)
  })

  it('matches partial names and reports sizes', async () => {
    const objs = await listObjects(root, 't/_delta_log/0')
    expect(objs.map(o => [o.key, o.size])).toEqual([
      ['t/_delta_log/00.json', 20],
      ['t/_delta_log/01.json', 20],
    ])
  })

  it('never follows symlinks out of the root, and lists nothing for a missing prefix', async () => {
    const keys = (await listObjects(root, '')).map(o => o.key)
    expect(keys.some(k => k.includes('-out'))).toBe(false)
    expect(await listObjects(root, 'nope/')).toEqual([])
    expect(await listObjects(root, '../outside/')).toEqual([])
  })
})

describe('renderListObjectsV2', () => {
  it('rolls up common prefixes with delimiter=/ (empty folders are not listed, as on S3)', async () => {
    const top = parse(await renderListObjectsV2(root, { prefix: '', delimiter: '/' }))
    expect(top.prefixes).toEqual(['empty/', 't/', 'u/'])
    expect(top.keys).toEqual([])
    const t = parse(await renderListObjectsV2(root, { prefix: 't/', delimiter: '/' }))
    expect(t.prefixes).toEqual(['t/_delta_log/', 't/a=1/', 't/a=2/'])
    expect(t.keys).toEqual(['t/b.parquet', 't/z😀.parquet', 't/\uffff.parquet'])
    expect(t.keyCount).toBe(6)
  })

  it('pages with maxKeys, counting prefixes, without repeats or gaps', async () => {
    const entries: string[] = []
    let token: string | undefined
    let pages = 0
    do {
      const page = parse(
        await renderListObjectsV2(root, { prefix: 't/', delimiter: '/', maxKeys: 2, continuationToken: token }),
      )
      expect(page.keyCount).toBeLessThanOrEqual(2)
      entries.push(...page.prefixes, ...page.keys)
      token = page.token
      pages++
    } while (token && pages < 10)
    expect(pages).toBe(3)
    expect(entries.sort(compareKeys)).toEqual([
      't/_delta_log/',
      't/a=1/',
      't/a=2/',
      't/b.parquet',
      't/z😀.parquet',
      't/\uffff.parquet',
    ])
  })

  it('supports start-after and clamps max-keys to 1000', async () => {
    const page = parse(await renderListObjectsV2(root, { prefix: 't/_delta_log/', startAfter: 't/_delta_log/00.json' }))
    expect(page.keys).toEqual(['t/_delta_log/01.json', 't/_delta_log/_sidecars/s.parquet'])
    expect(await renderListObjectsV2(root, { maxKeys: 5000 })).toContain('<MaxKeys>1000</MaxKeys>')
  })

  it('escapes XML and URL-encodes keys with encoding-type=url', async () => {
    const xml = await renderListObjectsV2(root, { prefix: 'u/' })
    expect(xml).toContain('<Key>u/&amp;&lt;x&gt;.json</Key>')
    const enc = await renderListObjectsV2(root, { prefix: 'u/', encodingType: 'url' })
    expect(enc).toContain('<Key>u/%26%3Cx%3E.json</Key>')
    expect(xmlEscape('a"b\u0001')).toBe('a&quot;b\ufffd')
  })

  it('is a well-formed ListBucketResult', async () => {
    const xml = await renderListObjectsV2(root, { prefix: 't/b' })
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
      ),
    ).toBe(true)
    expect(xml).toMatch(
      /<Contents><Key>t\/b\.parquet<\/Key><LastModified>[^<]+Z<\/LastModified><ETag>&quot;[0-9a-f]+-[0-9a-f]+&quot;<\/ETag><Size>11<\/Size>/,
    )
    expect(xml).toContain('<IsTruncated>false</IsTruncated>')
    expect(xml.trim().endsWith('</ListBucketResult>')).toBe(true)
  })
})
