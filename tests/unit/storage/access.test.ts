import { describe, expect, it } from 'vitest'
import { accessResolver, openTableAccess } from '../../../src/sources/index.ts'
import type { S3Access, TableAccess } from '../../../src/storage/types.ts'
import { fetchText } from '../../../src/table/http.ts'
import { TableError } from '../../../src/table/types.ts'
import { fakeS3 } from './fake-s3.ts'

const STORAGE = 'https://bucket.storage.test'
const EXPIRED = '<Error><Code>ExpiredToken</Code></Error>'

describe('TableAccess', () => {
  it('crosses to a worker as plain data and opens the same table there', async () => {
    const s3 = fakeS3(STORAGE, { 'tables/clicks/a.json': 'A' })
    const access: TableAccess = { kind: 's3', endpoint: STORAGE, credentials: s3.issue(60_000) }
    const opened = await openTableAccess(access, 's3://bucket/tables/clicks')
    expect(opened.tableUrl).toBe(`${STORAGE}/tables/clicks/`)
    expect(await fetchText(`${opened.tableUrl}a.json`, { fetch: s3.fetch, resolver: opened.resolver })).toBe('A')
    // What a worker receives: a structured clone (JSON is stricter still).
    const copy = JSON.parse(JSON.stringify(structuredClone(access))) as TableAccess
    const resolver = accessResolver(opened.tableUrl, copy)
    expect(await fetchText(`${opened.tableUrl}a.json`, { fetch: s3.fetch, resolver })).toBe('A')
  })

  it('takes an http(s) location as it is', async () => {
    const access: S3Access = { kind: 's3', credentials: { accessKeyId: 'A', secretAccessKey: 'S' } }
    expect((await openTableAccess(access, 'http://127.0.0.1:9000/t')).tableUrl).toBe('http://127.0.0.1:9000/t/')
    await expect(openTableAccess(access)).rejects.toThrow(/needs the table's location/)
  })

  it('without a provider, cannot renew the credentials it carries, and says so', async () => {
    const access: S3Access = { kind: 's3', credentials: { accessKeyId: 'A', secretAccessKey: 'S', sessionToken: 'T' } }
    const resolver = accessResolver(`${STORAGE}/t/`, access)
    await resolver.resolve(`${STORAGE}/t/x`, 'GET', {})
    const error = await resolver.rejected(`${STORAGE}/t/x`, 400, EXPIRED).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TableError)
    expect((error as Error).message).toMatch(/source has no newer ones/)
  })

  it('renews through a provider handed to it (a proxy of the coordinator’s)', async () => {
    let calls = 0
    const access: S3Access = { kind: 's3', credentials: { accessKeyId: 'A0', secretAccessKey: 'S0' } }
    const resolver = accessResolver(`${STORAGE}/t/`, access, {
      provider: async () => ({ accessKeyId: `A${++calls}`, secretAccessKey: 'S' }),
    })
    const first = await resolver.resolve(`${STORAGE}/t/x`, 'GET', {})
    expect(first.headers?.authorization).toContain('Credential=A0/') // the carried ones, no round trip
    expect(calls).toBe(0)
    expect(await resolver.rejected(`${STORAGE}/t/x`, 400, EXPIRED)).toBe(true)
    const out = await resolver.resolve(`${STORAGE}/t/x`, 'GET', {})
    expect(out.headers?.authorization).toContain('Credential=A1/')
    expect(calls).toBe(1)
  })

  it('refuses a kind it does not know, by name', () => {
    const future = { kind: 'azure-sas', token: 'x' } as unknown as TableAccess
    expect(() => accessResolver(`${STORAGE}/t/`, future)).toThrow("table access of kind 'azure-sas' is not supported")
  })
})
