import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseListXml } from '../../../src/table/listing.ts'
import { fileFetch } from '../../support/file-fetch.ts'

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-fetch-'))
  mkdirSync(join(dir, 'a%3Ab c😈'), { recursive: true })
  writeFileSync(join(dir, 'a%3Ab c😈', 'f.bin'), '0123456789')
  writeFileSync(join(dir, 'top.txt'), 'hi')
  return dir
}

describe('fileFetch', () => {
  const dir = folder()
  const fetch = fileFetch(dir)
  const fileUrl = 'http://table.test/a%253Ab%20c%F0%9F%98%88/f.bin'

  it('serves files by %-decoded path, with HEAD and 404', async () => {
    expect(await (await fetch(fileUrl)).text()).toBe('0123456789')
    const head = await fetch(fileUrl, { method: 'HEAD' })
    expect(head.headers.get('Content-Length')).toBe('10')
    expect(head.headers.get('Last-Modified')).toBeTruthy()
    expect((await fetch('http://table.test/a%3Ab%20c%F0%9F%98%88/f.bin')).status).toBe(404)
    expect((await fetch('http://table.test/../etc/passwd')).status).toBe(404)
    await expect(fetch('http://other.test/top.txt')).rejects.toThrow(/no server/)
  })

  it('answers ranges with 206 and Content-Range', async () => {
    const res = await fetch(fileUrl, { headers: { Range: 'bytes=2-4' } })
    expect(res.status).toBe(206)
    expect(res.headers.get('Content-Range')).toBe('bytes 2-4/10')
    expect(await res.text()).toBe('234')
    expect(await (await fetch(fileUrl, { headers: { Range: 'bytes=-3' } })).text()).toBe('789')
    expect((await fetch(fileUrl, { headers: { Range: 'bytes=20-' } })).status).toBe(416)
  })

  it('lists keys S3-style with pagination, and can be switched off', async () => {
    const paged = fileFetch(dir, { pageSize: 1 })
    const first = parseListXml(await (await paged('http://table.test/?list-type=2&prefix=')).text())
    expect(first.objects.map(o => o.key)).toEqual(['a%3Ab c😈/f.bin'])
    expect(first.truncated).toBe(true)
    const token = encodeURIComponent(first.token!)
    const second = parseListXml(
      await (await paged(`http://table.test/?list-type=2&prefix=&continuation-token=${token}`)).text(),
    )
    expect(second.objects.map(o => [o.key, o.size])).toEqual([['top.txt', 2]])
    expect(second.truncated).toBe(false)
    expect((await fileFetch(dir, { listing: false })('http://table.test/?list-type=2&prefix=')).status).toBe(404)
  })

  it('rolls keys up to the delimiter into CommonPrefixes', async () => {
    const xml = await (await fetch('http://table.test/?list-type=2&prefix=&delimiter=%2F')).text()
    expect(xml).toContain('<CommonPrefixes><Prefix>a%3Ab c😈/</Prefix></CommonPrefixes>')
    expect(parseListXml(xml).objects.map(o => o.key)).toEqual(['top.txt'])
  })

  it('serves under a base path', async () => {
    const based = fileFetch(dir, { baseUrl: 'http://h.test/data/' })
    expect(await (await based('http://h.test/data/top.txt')).text()).toBe('hi')
    const listed = parseListXml(await (await based('http://h.test/?list-type=2&prefix=data/top')).text())
    expect(listed.objects.map(o => o.key)).toEqual(['data/top.txt'])
  })
})
