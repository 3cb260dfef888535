/**
 * End to end through the SigV4-verifying S3 test server and the Unity-Catalog-like server: a
 * governed table opened, read, and read again after its first credentials have expired. Expiry
 * runs on a clock the test moves (the servers' and the resolver's), never on a wall-clock window a
 * loaded machine could miss.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTableAccess } from '../../../src/sources/index.ts'
import type { CredentialProvider } from '../../../src/storage/types.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { REPO } from '../../support/cli.ts'
import { type S3Server, startS3Server } from '../../support/s3-server.ts'
import { startUcServer, type UcServer } from '../../support/uc-server.ts'

let dir: string
let s3: S3Server
let uc: UcServer
/** The clock of the S3 server (credential expiry, signature time) and of the resolvers. */
const clock = { t: Date.now() }
const now = (): number => clock.t

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snaptrain-governed-'))
  await cp(join(REPO, 'public/tables/marketing'), join(dir, 'tables', 'marketing'), { recursive: true })
  s3 = await startS3Server({ root: dir, now })
  uc = await startUcServer({ s3, tables: { 'main.web.marketing': 'tables/marketing' }, credentialLifetimeS: 2 })
})

afterAll(async () => {
  await uc?.close()
  await s3?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('governed tables end to end', () => {
  it('reads a catalog table with vended credentials, renewed ahead of their expiry', async () => {
    const { tableUrl, resolver } = await openTableAccess(
      {
        kind: 'unity-catalog',
        endpoint: uc.endpoint,
        token: uc.token,
        table: 'main.web.marketing',
        s3Endpoint: s3.endpoint,
      },
      undefined,
      { now },
    )
    expect(tableUrl).toBe(`${s3.endpoint}tables/marketing/`)
    const snapshot = await openSnapshot(tableUrl, { resolver })
    const rows = await readRows(snapshot, { resolver })
    expect(rows.length).toBeGreaterThan(0)
    clock.t += 2_300 // past the first credentials' lifetime
    expect((await readRows(snapshot, { resolver })).length).toBe(rows.length)
    expect(uc.log.filter(e => e.path.endsWith('temporary-table-credentials')).length).toBeGreaterThanOrEqual(2)
    expect(s3.log.filter(e => e.code === 'ExpiredToken')).toEqual([])
    for (const e of uc.log) expect(e.authorization).toBe(`Bearer ${uc.token}`)
  })

  it('renews credentials of unknown lifetime when storage says they expired', async () => {
    let calls = 0
    const provider: CredentialProvider = async () => {
      calls++
      const c = s3.issueCredentials(1)
      return { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken }
    }
    const first = await provider()
    const { tableUrl, resolver } = await openTableAccess(
      { kind: 's3', endpoint: s3.endpoint, credentials: first },
      `s3://${s3.bucket}/tables/marketing`,
      { provider, now },
    )
    const snapshot = await openSnapshot(tableUrl, { resolver })
    clock.t += 1_200 // past the credentials' lifetime, which the resolver was not told
    const before = s3.log.length
    expect((await readRows(snapshot, { resolver })).length).toBeGreaterThan(0)
    expect(s3.log.slice(before).some(e => e.code === 'ExpiredToken')).toBe(true)
    expect(calls).toBe(2) // the credentials handed over, then one renewal
  })
})
