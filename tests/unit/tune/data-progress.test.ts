/**
 * Progress of a sweep's data steps (a progress bar for any step over a second): loading
 * the table and binning its features report fractions that rise from 0 to 1, and binning one
 * feature at a time gives exactly the cuts and bytes of binning all features at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { DataCache } from '../../../src/sweep/data-cache.ts'
import type { GbdtShared } from '../../../src/models/gbdt/family.ts'
import { binColumns } from '../../../src/models/gbdt/bin-progress.ts'
import { buildCuts } from '../../../src/models/gbdt/cuts.ts'
import { binMatrix } from '../../../src/models/gbdt/binned.ts'
import type { SweepConfig } from '../../../src/tune/types.ts'

let server: ServedDirectory
let config: SweepConfig
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  config = {
    model: 'gbdt',
    table: `${server.url}marketing/`,
    label: 'y',
    strategy: 'random',
    trials: 2,
    seed: 1,
    filter: 'age < 40',
  }
})
afterAll(async () => {
  await server?.close()
})

/** Fractions rise (never fall), lie in [0, 1], start at 0 and end at 1. */
function expectRising(fractions: number[]): void {
  expect(fractions.length).toBeGreaterThanOrEqual(2)
  expect(fractions[0]).toBe(0)
  expect(fractions.at(-1)).toBe(1)
  for (let i = 0; i < fractions.length; i++) {
    expect(fractions[i]).toBeGreaterThanOrEqual(0)
    expect(fractions[i]).toBeLessThanOrEqual(1)
    if (i > 0) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1]!)
  }
}

it("loading and binning a GBDT sweep's data report rising fractions ending at 1", async () => {
  const cache = new DataCache({ workers: 0 })
  const load: Array<{ message: string; fraction?: number }> = []
  const data = (await cache.load(config, (message, fraction) => load.push({ message, fraction }))).shared as GbdtShared
  const loading = load.filter(e => e.fraction !== undefined)
  expectRising(loading.map(e => e.fraction!))
  expect(loading.at(-1)!.message).toMatch(/of \d+ rows/)
  const bins: Array<{ message: string; fraction?: number }> = []
  const { cuts, binned } = await data.binned(16, (message, fraction) => bins.push({ message, fraction }))
  const F = data.dataset.features.length
  expect(bins).toHaveLength(F + 1) // 0, then once per feature
  expectRising(bins.map(e => e.fraction!))
  expect(bins.at(-1)!.message).toContain(`binning ${F} features (max_bin 16): ${F} done`)
  // Shared: a second trial with the same max_bin gets the same matrix without binning again.
  const again: unknown[] = []
  expect((await data.binned(16, () => again.push(1))).binned).toBe(binned)
  expect(again).toEqual([])
  expect(cuts.cutPtrs).toHaveLength(F + 1)
})

it("the recommender's decode reports rising fractions ending at 1", async () => {
  const cache = new DataCache({ workers: 0 })
  const fractions: number[] = []
  await cache.load({ ...config, model: 'recsys', features: ['age', 'balance', 'duration'] }, (_m, f) => {
    if (f !== undefined) fractions.push(f)
  })
  expectRising(fractions)
})

it('binning feature by feature equals buildCuts + binMatrix over all features', async () => {
  const n = 37
  const cols = [0, 1, 2].map(f =>
    Float32Array.from({ length: n }, (_, i) => (f === 1 && i % 5 === 0 ? NaN : Math.sin(i * (f + 1)) * 10 + f)),
  )
  const weights = Float32Array.from({ length: n }, (_, i) => 1 + (i % 3))
  const want = buildCuts(cols, 8, weights)
  const got = await binColumns(cols, 8, weights)
  expect(got.cuts).toEqual(want)
  expect(got.binned).toEqual(binMatrix(cols, want))
  // Yielding to the event loop after every feature changes nothing but the timing.
  const fractions: number[] = []
  const sliced = await binColumns(cols, 8, weights, f => fractions.push(f), 0)
  expect(sliced).toEqual(got)
  expect(fractions).toEqual([0, 1 / 3, 2 / 3, 1])
  const none = await binColumns([], 8, undefined)
  expect(none.binned.features).toBe(0)
})
