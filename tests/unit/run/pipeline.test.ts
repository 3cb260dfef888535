/**
 * The one training run (src/run/pipeline.ts): each run opens its snapshot once (every commit file
 * of the log is fetched once, for both families), the CLI's Node precheck pins the version it
 * checked, and an unknown family is refused naming the known ones.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { precheck } from '../../../src/cli/train.ts'
import { loadFamily } from '../../../src/models/registry.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const TABLES = join(PROJECT_ROOT, 'public', 'tables')

/** GETs of the table's commit files, by file. */
function commitReads(requests: Array<{ method: string; url: string }>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of requests) {
    const m = /_delta_log\/(\d{20}\.json)$/.exec(new URL(r.url).pathname)
    if (m && r.method === 'GET') out[m[1]] = (out[m[1]] ?? 0) + 1
  }
  return out
}

describe('one run, one snapshot', () => {
  it('GBDT: every commit file is read once per run', async () => {
    const fetch = fileFetch(TABLES)
    const r = await runTraining({
      table: 'http://table.test/marketing/',
      label: 'y',
      features: ['age', 'balance'],
      validFraction: 0.2,
      params: { num_round: 2, max_depth: 2 },
      backend: 'cpu',
      workers: 0,
      http: { fetch },
    })
    expect(r.summary.rounds).toBe(2)
    const reads = commitReads(fetch.requests)
    expect(Object.keys(reads).length).toBeGreaterThan(0)
    expect(
      Object.values(reads).every(n => n === 1),
      JSON.stringify(reads),
    ).toBe(true)
  }, 60_000)

  it('recommender: every commit file is read once per run', async () => {
    const fetch = fileFetch(TABLES)
    const r = await runTraining({
      model: 'recsys',
      table: 'http://table.test/marketing/',
      label: 'y',
      features: ['age', 'balance', 'duration'],
      validFraction: 0.2,
      params: { epochs: 1, batch_size: 4096, embedding_dim: 4, layers: [8] },
      backend: 'cpu',
      workers: 0,
      http: { fetch },
    })
    expect(r.summary.model).toBe('recsys')
    const reads = commitReads(fetch.requests)
    expect(Object.keys(reads).length).toBeGreaterThan(0)
    expect(
      Object.values(reads).every(n => n === 1),
      JSON.stringify(reads),
    ).toBe(true)
  }, 120_000)
})

describe('the Node precheck pins the version', () => {
  it('returns the config at the version it checked (the latest when none was given)', async () => {
    const fetch = fileFetch(TABLES)
    const family = await loadFamily('gbdt')
    const config = { table: 'http://table.test/marketing/', label: 'y', http: { fetch } }
    const pinned = await precheck(config, family, family.params({}))
    expect(pinned.version).toBe(0)
    expect((await precheck({ ...config, version: 0 }, family, family.params({}))).version).toBe(0)
  }, 60_000)

  it('refuses an unknown family, naming the known ones', async () => {
    await expect(Promise.resolve().then(() => loadFamily('forest'))).rejects.toThrow(
      /^model forest: unknown model family \(known: (\w+, )*gbdt(, \w+)*\)$/,
    )
  })
})
