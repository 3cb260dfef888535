/**
 * A shared table's session (src/sharing/shared-table.ts) as the reader's URL resolver, against
 * the test sharing server: its snapshots list the files a direct read of the folder lists, under
 * the same relative paths (also behind a proxy prefix); it resolves only the URLs it handed out,
 * renews them ahead of expiry (one query for any number of waiting readers) and after an
 * "expired" refusal, by refresh token or else a query pinned to the version; the transport
 * (src/table/http.ts) fetches the signed URL but names the stable one in every error.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseProfile } from '../../../src/sharing/profile.ts'
import { SharingClient } from '../../../src/sharing/rest.ts'
import { SharedTableSession } from '../../../src/sharing/shared-table.ts'
import { fetchBytes } from '../../../src/table/http.ts'
import { openSnapshot } from '../../../src/table/snapshot.ts'
import type { FetchLike, HttpOptions, Snapshot } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'
import { conformanceTable, fileRequests, queries, queryBodies, type TableKey } from '../../support/share-fixture.ts'
import {
  type SharedTableSpec,
  type SharingServer,
  type SharingServerOptions,
  startSharingServer,
} from '../../support/sharing-server.ts'

const DIRS = {
  letters: conformanceTable('dat/basic_partitioned/delta'),
  dv: conformanceTable('golden/basic-dv-no-checkpoint'),
  dv_cm: conformanceTable('golden/table-with-dv-small'),
  esc: conformanceTable('golden/data-reader-escaped-chars'),
}
type Name = keyof typeof DIRS | 'letters_parquet' | 'dv_parquet' | 'dv_cm_parquet' | 'letters_no_history'
const BASE = 'http://table.test/'
const key = (table: Name): TableKey => `lab.golden.${table}`

let fault: SharingServerOptions['inject']
let server: SharingServer
beforeAll(async () => {
  const tables: SharedTableSpec[] = Object.entries(DIRS).map(([table, dir]) => ({
    share: 'lab',
    schema: 'golden',
    table,
    dir,
  }))
  for (const t of ['letters', 'dv', 'dv_cm'] as const)
    tables.push({ share: 'lab', schema: 'golden', table: `${t}_parquet`, dir: DIRS[t], parquetOnly: true })
  tables.push({ share: 'lab', schema: 'golden', table: 'letters_no_history', dir: DIRS.letters, historyShared: false })
  // Its location escapes '+' as it is and its file URLs as %2B: the prefix must still match.
  tables.push({ share: 'team+x', schema: 'golden', table: 'letters', dir: DIRS.letters })
  server = await startSharingServer({ tables, inject: req => fault?.(req) })
})
afterEach(() => {
  fault = undefined
  server.setUrlLifetime(3600)
})
afterAll(() => server.close())

function session(table: Name, http: HttpOptions = {}, share = 'lab'): SharedTableSession {
  const profile = parseProfile(JSON.stringify(server.profile()), 'test profile')
  const client = new SharingClient(profile, 'test profile', { attempts: 1, ...http })
  return new SharedTableSession(client, { share, schema: 'golden', table })
}
const direct = (table: keyof typeof DIRS, version?: number) =>
  openSnapshot(BASE, { fetch: fileFetch(DIRS[table]), version })
const since = (n: number) => server.log.slice(n)
const s3Expired = {
  status: 403,
  headers: { 'Content-Type': 'application/xml' },
  body: '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
}
const sleep = (ms: number) => new Promise(done => setTimeout(done, ms))

/** The files of a shared snapshot as a direct read names them: relative path, size, partition, DV rows. */
function files(snapshot: Snapshot, root: string) {
  return snapshot.files.map(f => ({
    path: f.path,
    url: f.url.slice(root.length),
    size: f.size,
    partitionValues: f.partitionValues,
    deleted: f.deletionVector?.cardinality,
  }))
}

describe('SharedTableSession: snapshots', () => {
  it('lists the files of a direct read, under the same relative paths and order', async () => {
    for (const table of ['letters', 'dv', 'dv_cm', 'esc', 'letters_parquet'] as const) {
      const s = session(table)
      const shared = await s.openSnapshot(s.root)
      const own = await direct(table === 'letters_parquet' ? 'letters' : table)
      expect(shared.tableUrl).toBe(s.root)
      expect(shared.version).toBe(own.version)
      expect(files(shared, s.root), table).toEqual(files(own, BASE))
      expect(Object.keys(shared.share!.fileIds).sort()).toEqual(own.files.map(f => f.path).sort())
      expect(shared.share).toMatchObject({
        endpoint: server.endpoint,
        table,
        format: table.endsWith('parquet') ? 'parquet' : 'delta',
      })
    }
  })

  it('keeps those paths when a proxy serves the file URLs under its own folder', async () => {
    const prefix = `${server.origin}/proxy/p1/files/`
    const proxied: FetchLike = async (input, init) => {
      const res = await fetch(input, init)
      if (!input.endsWith('/query')) return res
      const headers = new Headers(res.headers)
      headers.delete('Content-Length')
      const text = (await res.text()).replaceAll(`${server.origin}/files/`, prefix)
      return new Response(text, { status: res.status, headers })
    }
    const esc = session('esc', { fetch: proxied })
    const shared = await esc.openSnapshot(esc.root)
    expect(files(shared, esc.root)).toEqual(files(await direct('esc'), BASE))
    expect((await esc.resolve(shared.files[0].url, 'GET', {})).url.startsWith(prefix)).toBe(true)
    // One partition's files share their folder too: only the table's location tells it is not the root.
    const letters = session('letters', { fetch: proxied })
    const a = await letters.openSnapshot(letters.root, { filterHint: "letter = 'a'" })
    const own = (await direct('letters')).files.filter(f => f.partitionValues.letter === 'a')
    expect(a.files.map(f => f.path)).toEqual(own.map(f => f.path))
  })

  it('keeps the folders all its files share when the location escapes names unlike the URLs', async () => {
    const s = session('letters', {}, 'team+x')
    const shared = await s.openSnapshot(s.root, { filterHint: "letter = 'a'" })
    const own = (await direct('letters')).files.filter(f => f.partitionValues.letter === 'a')
    expect(shared.files.map(f => f.path)).toEqual(own.map(f => f.path))
    expect(shared.files[0].path.startsWith('letter=a/')).toBe(true)
  })

  it('reads data files and deletion vectors through the signed URLs, never with the token', async () => {
    const s = session('dv_cm')
    const shared = await s.openSnapshot(s.root)
    const from = server.log.length
    for (const [i, f] of shared.files.entries()) {
      const disk = readFileSync(join(DIRS.dv_cm, ...f.path.split('/').map(decodeURIComponent)))
      expect(Buffer.from(await fetchBytes(f.url, { resolver: s })).equals(disk)).toBe(true)
      expect(new TextDecoder().decode(await fetchBytes(f.url, { resolver: s }, [0, 4]))).toBe('PAR1')
      const dv = f.deletionVector!
      expect(dv.storageType, `file ${i}`).toBe('p')
      const bin = readdirSync(DIRS.dv_cm).find(n => n.endsWith('.bin'))!
      expect(
        Buffer.from(await fetchBytes(dv.pathOrInlineDv, { resolver: s })).equals(readFileSync(join(DIRS.dv_cm, bin))),
      ).toBe(true)
    }
    const reads = since(from)
    expect(reads.length).toBeGreaterThan(0)
    expect(reads.every(e => e.kind === 'file' && e.status < 300 && e.authorization === undefined)).toBe(true)
    expect(s.renewals).toBe(0)
  })

  it('pins a version, and refuses a version beside a timestamp and another table URL', async () => {
    const s = session('letters')
    const from = server.log.length
    const v0 = await s.openSnapshot(s.root, { version: 0 })
    expect(files(v0, s.root)).toEqual(files(await direct('letters', 0), BASE))
    expect(queryBodies(since(from), key('letters'))).toEqual([{ version: 0 }])
    await expect(s.openSnapshot(s.root, { version: 0, timestamp: 0 })).rejects.toMatchObject({
      code: 'version-not-found',
    })
    await expect(s.openSnapshot(`${server.endpoint}shares/lab/schemas/golden/tables/dv/`)).rejects.toThrow(
      'this session reads lab.golden.letters',
    )
  })

  it('refuses a parquet-format answer for a table with deletion vectors or column mapping, naming them', async () => {
    const dv = session('dv_parquet')
    await expect(dv.openSnapshot(dv.root)).rejects.toMatchObject({
      code: 'unsupported-feature',
      message: expect.stringMatching(/answered only the parquet response format, but the table uses deletionVectors, /),
    })
    const cm = session('dv_cm_parquet')
    await expect(cm.openSnapshot(cm.root)).rejects.toThrow('the table uses deletionVectors and columnMapping')
  })

  it('sends a filter on partition columns as hints, and none for a filter it cannot use', async () => {
    const s = session('letters')
    const from = server.log.length
    const hinted = await s.openSnapshot(s.root, { filterHint: "letter = 'a' OR letter IS NULL" })
    expect(hinted.files.map(f => f.partitionValues.letter).sort()).toEqual(['a', 'a', null])
    const [body] = queryBodies(since(from), key('letters'))
    expect(JSON.parse(body.jsonPredicateHints as string)).toMatchObject({ op: 'or' })
    for (const filterHint of ['number > 3', 'nope = 1', "letter = 'a' OR"]) {
      const at = server.log.length
      expect((await s.openSnapshot(s.root, { filterHint })).files).toHaveLength(6)
      expect(queryBodies(since(at), key('letters'))).toEqual([{ includeRefreshToken: true }])
    }
  })
})

describe('SharedTableSession: resolving and renewing URLs', () => {
  it('refuses a URL it did not hand out before any request is sent', async () => {
    const s = session('letters')
    await s.openSnapshot(s.root)
    const other = session('dv')
    const dvFile = (await other.openSnapshot(other.root)).files[0].url
    let sent = 0
    const spy: FetchLike = async () => {
      sent++
      return new Response('')
    }
    for (const url of [`${s.root}letter=a/nope.parquet`, dvFile, `${server.origin}/files/lab.golden.letters/x`]) {
      await expect(fetchBytes(url, { resolver: s, fetch: spy })).rejects.toMatchObject({
        code: 'sharing',
        message: `${url}: not a file of lab.golden.letters on ${server.endpoint}; a shared table reads only the URLs its server handed out`,
      })
    }
    expect(sent).toBe(0)
  })

  it('renews ahead of expiry with one query, however many readers wait', async () => {
    server.setUrlLifetime(1.6)
    const s = session('letters')
    const urls = (await s.openSnapshot(s.root)).files.map(f => f.url)
    server.setUrlLifetime(3600)
    const before = await Promise.all(urls.map(u => s.resolve(u, 'GET', {})))
    await sleep(850)
    const from = server.log.length
    const after = await Promise.all([...urls, ...urls, ...urls].map(u => s.resolve(u, 'GET', {})))
    expect(s.renewals).toBe(1)
    expect(queryBodies(since(from), key('letters'))).toEqual([
      { refreshToken: expect.any(String), includeRefreshToken: true },
    ])
    expect(after.slice(0, urls.length).every((r, i) => r.url !== before[i].url)).toBe(true)
    expect(new TextDecoder().decode(await fetchBytes(urls[0], { resolver: s }, [0, 4]))).toBe('PAR1')
  })

  it('renews after a 403 "expired", but takes any other 403 as the answer', async () => {
    const s = session('letters')
    const url = (await s.openSnapshot(s.root)).files[0].url
    let once = true
    fault = req => (req.kind === 'file' && once ? ((once = false), s3Expired) : undefined)
    let from = server.log.length
    expect((await fetchBytes(url, { resolver: s })).byteLength).toBeGreaterThan(0)
    expect(since(from).map(e => `${e.kind} ${e.method} ${e.status}`)).toEqual([
      'file GET 403',
      'api POST 200',
      'file GET 200',
    ])
    expect(s.renewals).toBe(1)

    const body =
      '<Error><Code>SignatureDoesNotMatch</Code><Message>no match</Message><Url>x?X-Sharing-Signature=1</Url></Error>'
    fault = req => (req.kind === 'file' ? { status: 403, body } : undefined)
    from = server.log.length
    const error = await fetchBytes(url, { resolver: s }).catch((e: Error) => e)
    expect((error as Error).message).toBe(`GET ${url}: 403 Forbidden (SignatureDoesNotMatch: no match)`)
    expect(since(from).map(e => e.kind)).toEqual(['file'])
    expect(s.renewals).toBe(1)
    expect(await s.rejected(url, 500, 'Request has expired')).toBe(false)
    expect(await s.rejected(`${s.root}unknown.parquet`, 403, 'Request has expired')).toBe(false)
    expect(s.renewals).toBe(1)
  })

  it('falls back to a query pinned to the version when the refresh token is refused', async () => {
    const bodies: string[] = []
    const refusing: FetchLike = async (input, init) => {
      const body = String(init?.body ?? '')
      if (input.endsWith('/query')) bodies.push(body)
      if (body.includes('refreshToken"'))
        return Response.json(
          { errorCode: 'INVALID_PARAMETER_VALUE', message: 'refreshToken has expired' },
          { status: 400 },
        )
      return fetch(input, init)
    }
    const s = session('letters', { fetch: refusing })
    const url = (await s.openSnapshot(s.root)).files[0].url
    expect(await s.rejected(url, 403, 'Request has expired')).toBe(true)
    expect(bodies.map(b => JSON.parse(b))).toEqual([
      { includeRefreshToken: true },
      { refreshToken: expect.any(String), includeRefreshToken: true },
      { version: 1 },
    ])
    // A time-travel snapshot and a hinted one have no refresh token to use: the pinned query renews them.
    for (const opts of [
      { version: 0 },
      { jsonPredicateHints: '{"op":"isNull","children":[{"op":"column","name":"letter","valueType":"string"}]}' },
    ]) {
      const t = session('letters')
      const first = (await t.openSnapshot(t.root, opts)).files[0].url
      const from = server.log.length
      expect(await t.rejected(first, 401, 'token expired')).toBe(true)
      expect(queryBodies(since(from), key('letters'))).toEqual([{ version: 'version' in opts ? 0 : 1 }])
    }
  })

  it('fails with a clear error when renewing keeps failing', async () => {
    const s = session('letters')
    const url = (await s.openSnapshot(s.root)).files[0].url
    fault = req =>
      req.kind === 'api' ? { status: 503, body: '{"errorCode":"TEMPORARILY_UNAVAILABLE","message":"busy"}' } : undefined
    for (let i = 0; i < 2; i++) {
      const from = server.log.length
      await expect(s.rejected(url, 403, 'Request has expired')).rejects.toMatchObject({
        code: 'sharing',
        message: expect.stringMatching(
          /^lab\.golden\.letters on .*: renewing the file URLs of version 1 failed: POST .*\/tables\/letters\/query: 503 Service Unavailable$/,
        ),
      })
      expect(queries(since(from), key('letters'))).toHaveLength(2) // the refresh token, then the pinned query
    }
    // The server keeps refusing the renewed URLs as expired: after three renewals the refusal stands.
    fault = req => (req.kind === 'file' ? s3Expired : undefined)
    const from = server.log.length
    await expect(fetchBytes(url, { resolver: s })).rejects.toThrow(
      `GET ${url}: 403 Forbidden (AccessDenied: Request has expired)`,
    )
    expect(s.renewals).toBe(3)
    expect(fileRequests(since(from), key('letters'))).toHaveLength(4)
  })

  it('names the stable URL, never the signed one, when the fetch fails or times out', async () => {
    const s = session('letters')
    const url = (await s.openSnapshot(s.root)).files[0].url
    const seen: string[] = []
    const failing: FetchLike = async input => {
      seen.push(input)
      throw new TypeError('fetch failed')
    }
    await expect(fetchBytes(url, { resolver: s, fetch: failing, attempts: 2, backoffMs: 1 })).rejects.toThrow(
      `GET ${url}: network error: fetch failed`,
    )
    expect(seen).toHaveLength(2)
    expect(seen.every(u => u.includes('X-Sharing-Signature='))).toBe(true)
    const stalled: FetchLike = (_input, init) =>
      new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))))
    await expect(fetchBytes(url, { resolver: s, fetch: stalled, attempts: 1, timeoutMs: 30 })).rejects.toThrow(
      `GET ${url}: timed out after 30 ms`,
    )
    fault = req => (req.kind === 'file' ? { status: 404, body: '<Error><Code>NoSuchKey</Code></Error>' } : undefined)
    const missing = await fetchBytes(url, { resolver: s }).catch((e: Error) => e)
    expect((missing as Error).message).toBe(`GET ${url}: 404 Not Found (NoSuchKey)`)
  })
})

describe('a provider that does not share history', () => {
  it('serves a run pinned to the latest version by a latest query, and refuses an older version naming both', async () => {
    const s = session('letters_no_history')
    const latest = await s.openSnapshot(s.root)
    const pinned = await session('letters_no_history').openSnapshot(s.root, { version: latest.version })
    expect(pinned.version).toBe(latest.version)
    expect(pinned.files.map(f => f.path)).toEqual(latest.files.map(f => f.path))
    await expect(session('letters_no_history').openSnapshot(s.root, { version: 0 })).rejects.toThrow(
      new RegExp(`history.*latest version is ${latest.version}`, 'is'),
    )
  })
})
