/**
 * The seeded validation split, the table order and so the model do not depend on where a table's
 * bytes come from: a Delta Sharing server whose pre-signed URLs put every file under another path
 * (`/files/<table>/bucket-x/prefix-y/<digest>/<name>`, as an object store serves a shared table,
 * so neither the table's relative paths nor their order reach the client) and the table's folder
 * give the same validation rows, byte-identical model files and the same metrics, for GBDT and
 * the recommender. Runs in-process through the CLI (tests/support/cli.ts), CPU backend.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseMetricsCsv } from '../../src/run/manifest.ts'
import { runMain } from '../support/cli.ts'
import { fileRequests, writeProfile } from '../support/share-fixture.ts'
import { startSharingServer, type SharingServer } from '../support/sharing-server.ts'

const PREFIX = 'bucket-x/prefix-y'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-share-split-'))
const DATA = join(tmp, 'data')

let server: SharingServer
let profile: string
beforeAll(async () => {
  const gen = await runMain(['data', '--out', DATA, '--rows', '3000', '--marketing-rows', '3000'])
  expect(gen.code, gen.stderr).toBe(0)
  server = await startSharingServer({
    tables: ['marketing', 'clicks'].map(table => ({ share: 'demo', schema: 'public', table, dir: join(DATA, table) })),
    filePrefix: PREFIX,
  })
  profile = writeProfile(tmp, 'demo.share', server.profile())
}, 120_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** Trains on the folder and through the share; returns both output folders. */
async function bothWays(table: string, args: string[]): Promise<{ direct: string; shared: string }> {
  const direct = join(tmp, `${table}-direct`)
  const shared = join(tmp, `${table}-shared`)
  const before = server.log.length
  const d = await runMain(['train', '--table', join(DATA, table), ...args, '--out', direct])
  expect(d.code, d.stderr).toBe(0)
  const s = await runMain(['train', '--table', `${profile}#demo.public.${table}`, ...args, '--out', shared])
  expect(s.code, s.stderr).toBe(0)
  // The files really were read under the other prefix, and none under the table's own paths.
  const files = fileRequests(server.log.slice(before), `demo.public.${table}`)
  expect(files.length).toBeGreaterThan(0)
  for (const f of files) expect(f.path.startsWith(`/files/demo.public.${table}/${PREFIX}/`), f.path).toBe(true)
  return { direct, shared }
}

function manifest(dir: string): { validation: unknown; rows_valid?: number; rows_train?: number } {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
}

/** metrics.csv, each round without its wall-clock column. */
function metrics(dir: string): Array<Record<string, number>> {
  return parseMetricsCsv(readFileSync(join(dir, 'metrics.csv'), 'utf8')).map(
    ({ elapsed_seconds: _t, ...m }: Record<string, number>) => m,
  )
}

describe('a share that serves the files under another path prefix', () => {
  it('gbdt: the same validation rows, model.json byte for byte and metrics as on the folder', async () => {
    const { direct, shared } = await bothWays('marketing', [
      '--model',
      'gbdt',
      '--label',
      'y',
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      '{"num_round":3,"max_depth":3}',
      '--backend',
      'cpu',
    ])
    expect(manifest(shared).validation).toEqual(manifest(direct).validation)
    expect((manifest(direct).validation as { rows: number }).rows).toBeGreaterThan(0)
    expect(readFileSync(join(shared, 'model.json')).equals(readFileSync(join(direct, 'model.json')))).toBe(true)
    expect(metrics(shared)).toEqual(metrics(direct))
  }, 180_000)

  it('recsys: the same validation rows, model.bin byte for byte and metrics as on the folder', async () => {
    const params = { epochs: 1, batch_size: 512, embedding_dim: 4, layers: [16], lr: 0.01, eval_every: 4 }
    const { direct, shared } = await bothWays('clicks', [
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
    expect(manifest(shared).validation).toEqual(manifest(direct).validation)
    expect(readFileSync(join(shared, 'model.bin')).equals(readFileSync(join(direct, 'model.bin')))).toBe(true)
    expect(metrics(shared)).toEqual(metrics(direct))
    expect(metrics(direct).length).toBeGreaterThan(0)
  }, 180_000)
})
