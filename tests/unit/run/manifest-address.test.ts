/**
 * A manifest names the table as the user named it, never by this process's loopback URL for it:
 * the same folder served on two ports records one `table.url` (its file: URL) and one digest,
 * which knows files by their content, not by the path or URL they were read from;
 * governed tables record `s3://…`, `uc:…` or the share's REST URL at its own server (plus the
 * note that a share is pinned by version alone); `sweep.json` names the tables the same way.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { pageTable, type PageTable } from '../../../src/cli/page-run.ts'
import { tableAddress } from '../../../src/cli/table-url.ts'
import { namedSweep, type PageResult } from '../../../src/cli/sweep.ts'
import { manifestTable, SHARE_VERSION_NOTE, tableDigest } from '../../../src/run/manifest.ts'
import { planScan } from '../../../src/data/plan.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { exportSweep, importSweep } from '../../../src/tune/export.ts'
import type { ScanPlan } from '../../../src/data/types.ts'
import type { TableAccess } from '../../../src/storage/types.ts'
import type { SweepState } from '../../../src/tune/types.ts'

const FOLDER = join(PROJECT_ROOT, 'public', 'tables', 'marketing')
const opened: PageTable[] = []
afterAll(async () => {
  for (const t of opened) await t.close()
})

/** The folder served for the page (as train and sweep serve it) and planned in Node over that URL. */
async function servedPlan(): Promise<{ table: PageTable; plan: ScanPlan }> {
  const table = await pageTable(FOLDER)
  opened.push(table)
  const plan = await planScan(await openSnapshot(table.url), { label: 'y', columns: ['age', 'job'] })
  return { table, plan }
}

describe('a folder', () => {
  it('served on two ports: one address (its file: URL) and one digest in the manifest', async () => {
    const [a, b] = [await servedPlan(), await servedPlan()]
    expect(a.table.url).not.toBe(b.table.url) // two loopback ports…
    expect(a.plan.digest).not.toBe(b.plan.digest) // …which the plan's own digest hashes
    const address = tableAddress(a.table)
    expect(address).toBe(`${pathToFileURL(FOLDER).href}/`)
    expect(tableAddress(b.table)).toBe(address)
    const [ma, mb] = [a, b].map(x => manifestTable(x.plan, { address: tableAddress(x.table), path: x.table.path }))
    expect(ma).toEqual(mb)
    expect(ma).toMatchObject({ url: address, path: FOLDER, digest: tableDigest(a.plan), rows: 45_000 })
    const text = JSON.stringify(ma)
    expect(text).not.toMatch(/127\.0\.0\.1|localhost|:\d{2,5}\//)
  })

  it('the digest tells what was read apart (columns, filter, version, file content), not where', async () => {
    const { plan } = await servedPlan()
    const other = await planScan(await openSnapshot(plan.tableUrl), { label: 'y', columns: ['age'] })
    expect(tableDigest(other)).not.toBe(tableDigest(plan))
    expect(tableDigest({ ...plan, version: plan.version + 1 })).not.toBe(tableDigest(plan))
    expect(tableDigest({ ...plan, filter: 'age < 30' })).not.toBe(tableDigest(plan))
    // Files are known by their content, not their path: a share's pre-signed URLs put them elsewhere.
    const moved = { ...plan, files: plan.files.map(f => ({ ...f, path: `bucket-x/r4nd0m/${f.path}`, url: 'x' })) }
    expect(tableDigest(moved)).toBe(tableDigest(plan))
    const resized = { ...plan, files: plan.files.map((f, i) => (i ? f : { ...f, size: f.size + 1 })) }
    expect(tableDigest(resized)).not.toBe(tableDigest(plan))
    const partitioned = { ...plan, files: plan.files.map((f, i) => (i ? f : { ...f, partitionValues: { day: 1n } })) }
    expect(tableDigest(partitioned)).not.toBe(tableDigest(plan))
    const [first, ...rest] = plan.files
    const rewritten = { ...first, metadata: { ...first.metadata, num_rows: first.metadata.num_rows + 1n } }
    expect(tableDigest({ ...plan, files: [rewritten, ...rest] })).not.toBe(tableDigest(plan))
  })
})

describe('tableAddress', () => {
  const s3: TableAccess = { kind: 's3', credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'shh' } }
  const share = { kind: 'share', profile: { shareCredentialsVersion: 1, endpoint: 'https://sharing.example/delta/' } }

  it('an http(s) table keeps its URL; a governed one is named as the user typed it', () => {
    expect(tableAddress({ url: 'https://host.example/t/' })).toBe('https://host.example/t/')
    const bucket = 'https://bucket.s3.eu-west-1.amazonaws.com/tables/t/'
    expect(tableAddress({ url: bucket, path: 's3://bucket/tables/t', access: s3 })).toBe('s3://bucket/tables/t')
    expect(tableAddress({ url: bucket, path: 'uc:main.web.t', access: s3 })).toBe('uc:main.web.t')
    const rest = 'https://sharing.example/delta/shares/s/schemas/d/tables/t/'
    const shared = { url: rest, path: '/home/me/p.share#s.d.t', access: share as unknown as TableAccess }
    expect(tableAddress(shared)).toBe(rest)
  })
})

describe('a share', () => {
  it("records its REST URL at its own server, never the proxy's, and says it is pinned by version", () => {
    const plan = {
      tableUrl: 'http://127.0.0.1:41234/__snaptrain/sharing/abc/shares/s/schemas/d/tables/t/',
      version: 7,
      columns: ['y'],
      files: [{ path: 'part-0.parquet', size: 10, metadata: { num_rows: 5n }, partitionValues: {} }],
      units: [],
      stats: { rows: 5 },
      digest: 'plan',
      share: {
        endpoint: 'https://sharing.example/delta/',
        share: 's',
        schema: 'd',
        table: 't',
        format: 'delta',
        fileIds: { 'part-0.parquet': 'f0' },
      },
    } as unknown as ScanPlan
    const m = manifestTable(plan, { path: '/home/me/p.share#s.d.t' })
    expect(m.url).toBe('https://sharing.example/delta/shares/s/schemas/d/tables/t/')
    expect(m.path).toBe('/home/me/p.share#s.d.t')
    expect(m.version).toBe(7)
    expect(m.share).toMatchObject({ endpoint: 'https://sharing.example/delta/', file_ids: { 'part-0.parquet': 'f0' } })
    expect(m.share?.note).toBe(SHARE_VERSION_NOTE)
    expect(m.share?.note).toMatch(/version/)
    expect(JSON.stringify(m)).not.toContain('41234')
  })
})

describe('sweep.json', () => {
  it("names the sweep's tables by their addresses, not the page's loopback URLs", () => {
    const state = {
      id: 'sw1',
      status: 'finished',
      config: {
        model: 'gbdt',
        strategy: 'random',
        label: 'y',
        table: 'http://127.0.0.1:45678/marketing/',
        tablePath: '/data/marketing',
        tableAddress: 'file:///data/marketing/',
        validTable: 'http://127.0.0.1:45679/holdout/',
        validTablePath: '/data/holdout',
        validTableAddress: 'file:///data/holdout/',
      },
      trials: [],
      stoppedEarly: 0,
      gpuSeconds: 0,
      gpuSecondsFullBudget: 0,
      wallSeconds: 0,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    } as unknown as SweepState
    const r: PageResult = namedSweep({ state, exported: exportSweep(state) })
    expect(r.exported).not.toMatch(/127\.0\.0\.1|4567\d/)
    const stored = importSweep(r.exported)
    expect(stored.config).toMatchObject({
      table: 'file:///data/marketing/',
      tablePath: '/data/marketing',
      validTable: 'file:///data/holdout/',
      validTablePath: '/data/holdout',
    })
    expect(stored.config).not.toHaveProperty('tableAddress')
    expect(r.state.config).toEqual(stored.config)
    // A page's own sweep (no addresses) keeps the URLs it was given.
    const plain = { ...state, config: { ...state.config, tableAddress: undefined, validTableAddress: undefined } }
    expect(importSweep(namedSweep({ state: plain, exported: exportSweep(plain) }).exported).config.table).toBe(
      'http://127.0.0.1:45678/marketing/',
    )
  })
})
