/**
 * The page API's Delta Sharing entry points in Node: openProfile picks the local proxy when the
 * page's server has one (the token then stays in the proxy) and direct use otherwise; listShares
 * answers the share tree with openable URLs; table calls with an access (copied, as
 * page.evaluate copies it) read the share; bad profiles fail before anything is sent.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createApi } from '../../src/api.ts'
import { SharingProxy } from '../../src/serve/sharing-proxy.ts'
import { startSharingServer, type SharingServer } from '../support/sharing-server.ts'

const MARKETING = resolve(import.meta.dirname, '../../public/tables/marketing')

let sharing: SharingServer
let page: Server
let pageUrl: string

beforeAll(async () => {
  sharing = await startSharingServer({
    tables: [
      { share: 'demo', schema: 'public', table: 'marketing', dir: MARKETING },
      { share: 'demo', schema: 'public', table: 'clicks', dir: MARKETING },
      { share: 'empty', schema: 'none', table: 'again', dir: MARKETING },
    ],
  })
  // The page's own server: the proxy's routes, as vite's middleware mounts them.
  const proxy = new SharingProxy()
  page = createServer((req, res) => {
    void proxy.handle(req, res).then(done => {
      if (!done) res.writeHead(404).end()
    })
  })
  await new Promise<void>(done => page.listen(0, '127.0.0.1', done))
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`
})

afterAll(async () => {
  await sharing?.close()
  page?.closeAllConnections()
  await new Promise(done => page?.close(done))
})

const text = () => JSON.stringify(sharing.profile())

describe('openProfile', () => {
  test("proxy mode on the page's server: the access holds the proxy's endpoint, no token", async () => {
    const api = createApi(pageUrl)
    const opened = await api.openProfile(text(), { source: 'demo.share' })
    expect(opened.mode).toBe('proxy')
    expect(opened.endpoint).toBe(sharing.endpoint)
    expect(opened.access.profile.endpoint.startsWith(`${pageUrl}__snaptrain/sharing/`)).toBe(true)
    expect(JSON.stringify(opened.access)).not.toContain('test-token')
    const tree = await api.listShares(structuredClone(opened.access))
    expect(tree.map(s => s.name)).toEqual(['demo', 'empty'])
    expect(tree[0]!.schemas[0]!.tables.map(t => t.name)).toEqual(['marketing', 'clicks'])
    const t = tree[0]!.schemas[0]!.tables[0]!
    expect(t.url).toBe(`${opened.access.profile.endpoint}shares/demo/schemas/public/tables/marketing/`)
    // The requests reached the sharing server from the proxy, token and all.
    expect(sharing.log.some(e => e.kind === 'api' && e.authorization === 'Bearer test-token')).toBe(true)
  })

  test('direct mode where the page has no proxy: the access holds the parsed profile', async () => {
    const api = createApi('http://127.0.0.1:9/static/') // nothing listens: no proxy
    const opened = await api.openProfile(text())
    expect(opened.mode).toBe('direct')
    expect(opened.access.profile).toEqual({
      shareCredentialsVersion: 1,
      endpoint: sharing.endpoint,
      bearerToken: 'test-token',
    })
    const tree = await api.listShares(opened.access)
    const t = tree[0]!.schemas[0]!.tables[0]!
    expect(t.url).toBe(`${sharing.endpoint}shares/demo/schemas/public/tables/marketing/`)

    // Copies of the access (page.evaluate hands each call one) reach the same session.
    const copy = () => structuredClone(opened.access)
    const commits = await api.listCommits(t.url, { access: copy() })
    const snapshot = await api.openSnapshot(t.url, { access: copy(), limitHint: 5 })
    expect(commits).toEqual([{ version: snapshot.version, timestamp: snapshot.timestamp }])
    expect(snapshot.share).toMatchObject({ endpoint: sharing.endpoint, share: 'demo', table: 'marketing' })
    const rows = await api.readRows(snapshot, { limit: 5, access: copy() })
    expect(rows).toHaveLength(5)
    const query = sharing.log.filter(e => e.path.endsWith('/marketing/query')).at(-1)
    expect(JSON.parse(query!.body!)).toMatchObject({ limitHint: 5 })
  })

  test('mode "proxy" without a proxy, and profiles that cannot be used, fail naming the profile', async () => {
    const api = createApi('http://127.0.0.1:9/')
    await expect(api.openProfile(text(), { mode: 'proxy', source: 'p.share' })).rejects.toThrow(
      /profile p\.share: this page's server has no sharing proxy/,
    )
    const fetchSpy = vi.spyOn(globalThis, 'fetch')
    try {
      await expect(api.openProfile('{ nope', { source: 'bad.share' })).rejects.toThrow(/profile bad\.share is not JSON/)
      const expired = JSON.stringify(sharing.profile({ expirationTime: '2020-01-01T00:00:00Z' }))
      await expect(createApi(pageUrl).openProfile(expired, { source: 'old.share' })).rejects.toThrow(
        /profile old\.share expired at 2020-01-01T00:00:00\.000Z/,
      )
      expect(fetchSpy).not.toHaveBeenCalled() // refused before anything was sent
    } finally {
      fetchSpy.mockRestore()
    }
  })

  test('a token the server refuses: listShares names the profile, 401 and what to do', async () => {
    const api = createApi(pageUrl)
    const opened = await api.openProfile(JSON.stringify(sharing.profile({ token: 'revoked' })), { source: 'r.share' })
    await expect(api.listShares(opened.access)).rejects.toThrow(
      /profile r\.share: .*401.*ask the provider for a new profile/,
    )
  })
})
