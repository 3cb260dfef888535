/**
 * Soak test (opt-in, not in CI): `SNAPTRAIN_SOAK=1 npx vitest run --project e2e tests/e2e/soak.test.ts`.
 * In one app page, GBDT trials (default 50) and recommender runs (default 5 × 2 epochs = 10
 * epochs) train back to back through the fault-injecting server at 5% faults (one retryable kind
 * per run, the kinds taking turns; seeded). Asserted: every result equals the fault-free run of its configuration (model bytes and
 * metrics), no GPU device or buffer outlives its run, and the JS heap after a forced GC grows by
 * less than 64 MiB from the first round to the last. Sizes: SNAPTRAIN_SOAK_GBDT, SNAPTRAIN_SOAK_RECSYS.
 * Prints the figures recorded in bench/README.md ("Soak").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { REPO } from '../support/cli.ts'
import { startFaultServer, type FaultRule, type FaultServer } from '../support/fault-server.ts'
import type { TrainConfig } from '../../src/run/config.ts'
import { openSoakPage, type Outcome, type SoakPage } from '../soak/soak-run.ts'

const GBDT_TRIALS = Number(process.env.SNAPTRAIN_SOAK_GBDT ?? 50)
const RECSYS_RUNS = Number(process.env.SNAPTRAIN_SOAK_RECSYS ?? 5)
const MiB = 2 ** 20
const HEAP_BOUND = 64 * MiB

/**
 * 5% of GETs fault (seeded per path and request number). The server draws one number per request
 * for all rules, so rules at 1.25% each would overlap to 1.25%, not add to 5%: each run instead
 * takes one retryable kind at 5%, the kinds taking turns run by run.
 */
const KINDS = ['status-5xx', 'reset', 'truncate-length-wrong', 'range-ignored'] as const
function faults(run: number): { rules: FaultRule[]; seed: number } {
  const kind = KINDS[run % KINDS.length]
  const ranged = kind === 'truncate-length-wrong' || kind === 'range-ignored'
  return {
    seed: 1000 + run,
    rules: [{ kind, rate: 0.05, ...(ranged ? { rangedOnly: true } : { path: /\.(parquet|json)$/ }) }],
  }
}

/** Five GBDT configurations the trials cycle through (seed and depth vary). */
function gbdtConfig(table: string, k: number): TrainConfig {
  return {
    model: 'gbdt',
    table,
    label: 'y',
    features: ['age', 'balance', 'job', 'duration'],
    filter: 'age < 35',
    validFraction: 0.2,
    seed: k,
    params: { num_round: 3, max_depth: 2 + (k % 3), eta: 0.3 },
    workers: 2,
  }
}

function recsysConfig(table: string, k: number): TrainConfig {
  return {
    model: 'recsys',
    table,
    label: 'label',
    features: ['user_id', 'item_id', 'device', 'dense_0'],
    filter: "hour < 2 AND country = 'AA'",
    validFraction: 0.2,
    seed: k,
    params: { epochs: 2, batch_size: 256, layers: [8], embedding_dim: 4 },
    workers: 2,
  }
}

describe.skipIf(!process.env.SNAPTRAIN_SOAK)('soak: back-to-back trainings through 5% injected faults', () => {
  let page: SoakPage
  const servers: Record<string, FaultServer> = {}
  const figures: string[] = []
  beforeAll(async () => {
    servers.gbdt = await startFaultServer(join(REPO, 'public/tables/marketing'))
    servers.recsys = await startFaultServer(join(REPO, 'public/tables/clicks'))
    page = await openSoakPage()
  }, 120_000)
  afterAll(async () => {
    await page?.close()
    for (const s of Object.values(servers)) await s.close()
    console.log(`soak figures:\n${figures.join('\n')}`)
  })

  /** Runs `count` trainings of `configs` (cycled) with faults; checks results, GPU counts and heap. */
  async function soak(
    name: string,
    count: number,
    distinct: number,
    config: (k: number) => TrainConfig,
  ): Promise<void> {
    const server = servers[name]
    const reference: Outcome[] = []
    for (let k = 0; k < distinct; k++) {
      server.configure([])
      reference.push(await page.train(config(k)))
    }
    const heap0 = await page.heapBytes()
    const t0 = performance.now()
    let injected = 0,
      requests = 0
    for (let i = 0; i < count; i++) {
      const f = faults(i)
      server.configure(f.rules, f.seed)
      const before = server.requests.length
      const r = await page.train(config(i % distinct))
      injected += server.injected.length
      requests += server.requests.length - before
      expect(r.hash, `${name} run ${i}: model differs from the fault-free run`).toBe(reference[i % distinct].hash)
      expect(r.metrics, `${name} run ${i}: metrics differ`).toBe(reference[i % distinct].metrics)
      expect(r.gpu.devicesCreated - r.gpu.devicesDestroyed, `${name} run ${i}: GPU devices left alive`).toBe(0)
      expect(r.gpu.liveBuffers, `${name} run ${i}: GPU buffers left alive`).toBe(0)
    }
    const heap1 = await page.heapBytes()
    const gpu = (await page.page.evaluate('window.__gpuStats()')) as Outcome['gpu']
    const seconds = (performance.now() - t0) / 1000
    figures.push(
      `${name}: ${count} runs in ${seconds.toFixed(0)} s; ${requests} GETs, ${injected} faults injected (${((100 * injected) / Math.max(1, requests)).toFixed(1)}%); ` +
        `results identical to fault-free: ${count}/${count}; GPU devices ${gpu.devicesCreated} created / ${gpu.devicesDestroyed} destroyed, ` +
        `buffers ${gpu.buffersCreated} created / ${gpu.buffersDestroyed} destroyed + ${gpu.freedWithDevice} freed with their device, ${gpu.liveBuffers} alive; ` +
        `JS heap after GC ${(heap0 / MiB).toFixed(1)} → ${(heap1 / MiB).toFixed(1)} MiB`,
    )
    if (requests >= 200) expect(injected, 'the server injected no faults').toBeGreaterThan(0)
    expect(heap1 - heap0).toBeLessThan(HEAP_BOUND)
  }

  it(`${GBDT_TRIALS} GBDT trials (marketing, 5 configurations)`, async () => {
    await soak('gbdt', GBDT_TRIALS, Math.min(5, GBDT_TRIALS), k => gbdtConfig(servers.gbdt.tableUrl, k))
  }, 3_600_000)

  it(`${RECSYS_RUNS} recommender runs × 2 epochs (clicks)`, async () => {
    await soak('recsys', RECSYS_RUNS, Math.min(2, RECSYS_RUNS), k => recsysConfig(servers.recsys.tableUrl, k))
  }, 3_600_000)
})
