/**
 * Training on a Delta Sharing table through the CLI, in-process (the page in one headless Chromium
 * for the file): `train --model gbdt`, `train --model recsys` and a two-trial `sweep`, each run on
 * a small generated table's folder and again through the test sharing server
 * (tests/support/sharing-server.ts), which the page reaches through the local sharing proxy. The
 * server's file URLs live 3 s and the page's first file request is held longer, so a URL expires
 * mid-run on any machine and the page must renew it. The shared run writes byte-identical model
 * files and the same metrics; no file request carries the token; the manifest records the share
 * (endpoint, coordinates, file ids, the note that it is pinned by version) and the folder run's
 * digest, never the token, a URL signature or the local proxy.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pathToFileURL } from 'node:url'
import { parseMetricsCsv, SHARE_VERSION_NOTE } from '../../src/run/manifest.ts'
import { importSweep } from '../../src/tune/export.ts'
import { runMain } from '../support/cli.ts'
import {
  authorizedFileRequests,
  renewalsAfterExpiry,
  shareAppPageHoldingFirstFile,
  writeProfile,
  type TableKey,
} from '../support/share-fixture.ts'
import { startSharingServer, type SharingServer } from '../support/sharing-server.ts'

const URL_LIFETIME_S = 3
const HOLD_MS = 3_500
const TOKEN = 'share-train-token-51c2'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-share-train-'))
const DATA = join(tmp, 'data')
const held = shareAppPageHoldingFirstFile(HOLD_MS)

let server: SharingServer
let profile: string
beforeAll(async () => {
  // Small tables keep the runs short: 3000 rows each (clicks: three versions, the last deletes rows).
  const gen = await runMain(['data', '--out', DATA, '--rows', '3000', '--marketing-rows', '3000'])
  expect(gen.code, gen.stderr).toBe(0)
  server = await startSharingServer({
    tables: ['marketing', 'clicks'].map(table => ({ share: 'demo', schema: 'public', table, dir: join(DATA, table) })),
    tokens: [TOKEN],
    urlLifetimeS: URL_LIFETIME_S,
  })
  profile = writeProfile(tmp, 'demo.share', server.profile())
}, 120_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** What a run through the share and the same run on the folder wrote, and the server's log of the shared one. */
interface Pair {
  direct: string
  shared: string
  log: SharingServer['log']
}

/**
 * Runs `command … --out DIR` on the folder and through the share at the same time (they share the
 * browser; the folder's run never reaches the sharing server, so the log is the shared run's).
 */
async function bothWays(command: string, table: string, args: string[]): Promise<Pair> {
  const direct = join(tmp, `${command}-${table}-direct`)
  const shared = join(tmp, `${command}-${table}-shared`)
  const before = server.log.length
  const heldBefore = held.held.length
  const [d, s] = await Promise.all([
    runMain([command, '--table', join(DATA, table), ...args, '--out', direct]),
    runMain([command, '--table', `${profile}#demo.public.${table}`, ...args, '--out', shared]),
  ])
  expect(d.code, d.stderr).toBe(0)
  expect(s.code, s.stderr).toBe(0)
  expect(held.held.length).toBe(heldBefore + 1)
  return { direct, shared, log: server.log.slice(before) }
}

function bytes(dir: string, name: string): Buffer {
  return readFileSync(join(dir, name))
}

/** One round's metrics without the wall-clock one (the recommender's elapsed_seconds). */
function withoutTime({ elapsed_seconds: _t, ...m }: Record<string, number>): Record<string, number> {
  return m
}

/** metrics.csv, each round without its wall-clock column. */
function metricsWithoutTime(dir: string): Array<Record<string, number>> {
  return parseMetricsCsv(readFileSync(join(dir, 'metrics.csv'), 'utf8')).map(withoutTime)
}

/** The page's URLs expired mid-run and were renewed; no file request carried the token. */
function expectRenewedWithoutToken(log: SharingServer['log'], key: TableKey): void {
  expect(renewalsAfterExpiry(log, key).length).toBeGreaterThan(0)
  expect(authorizedFileRequests(log)).toEqual([])
  expect(log.filter(e => e.kind === 'api').every(e => e.authorization === `Bearer ${TOKEN}`)).toBe(true)
}

/** The shared run's manifest names the share and its files, and holds no token or URL signature. */
function expectShareManifest(pair: Pair, table: string): void {
  const text = readFileSync(join(pair.shared, 'manifest.json'), 'utf8')
  expect(text).not.toContain(TOKEN)
  expect(text).not.toContain('X-Sharing-Signature')
  const m = JSON.parse(text)
  const direct = JSON.parse(readFileSync(join(pair.direct, 'manifest.json'), 'utf8'))
  const paths = direct.table.files.map((f: { path: string }) => f.path)
  expect(m.table.url).toBe(`${server.endpoint}shares/demo/schemas/public/tables/${table}/`)
  expect(m.table.files).toEqual(direct.table.files)
  expect(m.table.share).toEqual({
    endpoint: server.endpoint,
    share: 'demo',
    schema: 'public',
    table,
    format: 'delta',
    file_ids: Object.fromEntries(paths.map((p: string) => [p, expect.stringMatching(/^[0-9a-f]{40}$/)])),
    note: SHARE_VERSION_NOTE,
  })
  // Named as the user named it (never by the local sharing proxy), the same digest as the folder's.
  expect(m.table.path).toBe(`${profile}#demo.public.${table}`)
  expect(text).not.toContain('__snaptrain')
  expect(direct.table.url).toBe(`${pathToFileURL(join(DATA, table)).href}/`)
  expect(m.table.digest).toBe(direct.table.digest)
  expect(m.table.version).toBe(direct.table.version)
  expect(m.table.rows).toBe(direct.table.rows)
  expect(m.metrics.map(withoutTime)).toEqual(direct.metrics.map(withoutTime))
}

describe('snaptrain train through a share whose URLs expire mid-run', () => {
  it('gbdt: the same model.json, byte for byte, and the same metrics.csv as on the folder', async () => {
    const pair = await bothWays('train', 'marketing', [
      '--model',
      'gbdt',
      '--label',
      'y',
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      '{"num_round":2,"max_depth":3}',
      // The share's path is the same on either backend; the CPU one keeps this file short (the
      // sweep below and the page test train through a share on WebGPU).
      '--backend',
      'cpu',
    ])
    expect(bytes(pair.shared, 'model.json').equals(bytes(pair.direct, 'model.json'))).toBe(true)
    expect(bytes(pair.shared, 'metrics.csv').toString()).toBe(bytes(pair.direct, 'metrics.csv').toString())
    expectRenewedWithoutToken(pair.log, 'demo.public.marketing')
    expectShareManifest(pair, 'marketing')
  })

  it('recsys: the same model.bin, byte for byte, and the same metrics (elapsed time aside)', async () => {
    const params = { epochs: 1, batch_size: 512, embedding_dim: 4, layers: [16], lr: 0.01, eval_every: 4 }
    const pair = await bothWays('train', 'clicks', [
      '--model',
      'recsys',
      '--label',
      'label',
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      JSON.stringify(params),
      '--backend',
      'cpu',
    ])
    expect(bytes(pair.shared, 'model.bin').equals(bytes(pair.direct, 'model.bin'))).toBe(true)
    expect(metricsWithoutTime(pair.shared)).toEqual(metricsWithoutTime(pair.direct))
    expect(metricsWithoutTime(pair.shared).length).toBeGreaterThan(0)
    expectRenewedWithoutToken(pair.log, 'demo.public.clicks')
    expectShareManifest(pair, 'clicks')
  })
})

describe('snaptrain sweep through a share whose URLs expire mid-run', () => {
  it('two random trials: the same trials.csv metrics and the same best model as on the folder', async () => {
    const space = join(tmp, 'space.json')
    writeFileSync(space, JSON.stringify({ max_depth: { type: 'int', low: 2, high: 3 }, eta: 0.3, num_round: 2 }))
    const pair = await bothWays('sweep', 'marketing', [
      '--label',
      'y',
      '--model',
      'gbdt',
      '--strategy',
      'random',
      '--trials',
      '2',
      '--parallel',
      '1',
      '--seed',
      '3',
      '--space',
      space,
    ])
    const [shared, direct] = [pair.shared, pair.direct].map(trialsWithoutTime)
    expect(shared).toEqual(direct)
    expect(shared.map(t => t.status)).toEqual(['completed', 'completed'])
    expect(bytes(pair.shared, 'model.json').equals(bytes(pair.direct, 'model.json'))).toBe(true)
    expectRenewedWithoutToken(pair.log, 'demo.public.marketing')
    expectShareManifest(pair, 'marketing')
    const sweep = importSweep(readFileSync(join(pair.shared, 'sweep.json'), 'utf8'))
    expect(sweep.config.table).toBe(`${server.endpoint}shares/demo/schemas/public/tables/marketing/`)
    expect(sweep.config.tablePath).toBe(`${profile}#demo.public.marketing`)
  })
})

/** trials.csv as records, without the time columns (gpu_seconds, wall_seconds). */
function trialsWithoutTime(dir: string): Array<Record<string, string>> {
  const [header, ...rows] = readFileSync(join(dir, 'trials.csv'), 'utf8').trim().split('\r\n')
  const names = header.split(',')
  return rows.map(row => {
    const cells = row.split(',')
    const record = Object.fromEntries(names.map((n, i) => [n, cells[i]]))
    const { gpu_seconds: _g, wall_seconds: _w, ...rest } = record
    return rest
  })
}
