/**
 * The epoch cache (src/data/unit-cache.ts) as a user meets it, on a generated 3000-row clicks table
 * (three versions, the last with deletion vectors), the recommender on its CPU reference backend
 * (the loader is the same on either): through the CLI in-process, `train` over 2 epochs reads
 * epoch 2 from the cache (0 bytes fetched, every unit a hit) and `--no-cache` reads it from the
 * table (as many bytes as epoch 1), both writing the same model.bin byte for byte; in the app
 * page, the next run on the same version reads from the cache (a sweep's trials already hold the
 * table in memory: README "Sweeps", so the next *run* is what reads it again), so does a run after
 * page.reload() (the spill store, OPFS, keeps the units; memory is empty), and a run at another
 * version does not; a share whose URLs expire between epochs (the page's thread held past their
 * lifetime at the end of epoch 1) reads epoch 2 without a request to the sharing server — no
 * renewal — while the same run without the cache renews them, and both give the same model.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { RecsysTrainConfig } from '../../src/api-types.ts'
import type { LoaderRead } from '../../src/models/recsys/data.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'
import { parseMetricsCsv } from '../../src/run/manifest.ts'
import { generateSampleTables } from '../../tools/datagen/index.ts'
import { openApp, useApp } from '../support/app-harness.ts'
import { lastJson, runMain } from '../support/cli.ts'
import { fileRequests, queries } from '../support/share-fixture.ts'
import { startSharingServer, type SharingServer } from '../support/sharing-server.ts'

const WAIT = { timeout: 60_000 }
const TOKEN = 'epoch-cache-token'
/** Lifetime of the sharing server's file URLs, and how long the page's thread is held after epoch 1. */
const URL_LIFETIME_S = 2
const GAP_MS = 3_500
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-epoch-cache-'))
const TABLE = join(tmp, 'clicks')
/** Two epochs; one evaluation, at the end of each epoch (eval_every beyond an epoch's 6 steps). */
const PARAMS = { epochs: 2, batch_size: 512, embedding_dim: 4, layers: [8], lr: 0.01, eval_every: 100 }

beforeAll(async () => {
  await generateSampleTables({ outDir: tmp, tables: ['clicks'], rows: 3000 })
}, 60_000)
const app = useApp({ tables: [{ key: 'tables/clicks/', dir: TABLE }] })
let share: SharingServer
beforeAll(async () => {
  useAppPageHost({ url: app.server.url, newPage: () => app.browser.newPage() })
  share = await startSharingServer({
    tables: [{ share: 'demo', schema: 'public', table: 'clicks', dir: TABLE }],
    tokens: [TOKEN],
    urlLifetimeS: URL_LIFETIME_S,
  })
})
afterAll(async () => {
  useAppPageHost(undefined)
  await share?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** A run's loader reads from its `--json` summary, checked against the manifest's. */
function loaderReads(out: string, stdout: { loader_reads?: LoaderRead[] }): LoaderRead[] {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
  expect(manifest.loader_reads).toEqual(stdout.loader_reads)
  return stdout.loader_reads ?? []
}

/** The reads of a run: its passes by name, the training epochs in order. */
function byPass(reads: LoaderRead[]): { statistics: LoaderRead; validation?: LoaderRead; epochs: LoaderRead[] } {
  expect(reads.map(r => r.pass).filter(p => p !== 'epoch')).toEqual(
    reads.some(r => r.pass === 'validation') ? ['statistics', 'validation'] : ['statistics'],
  )
  return {
    statistics: reads.find(r => r.pass === 'statistics')!,
    validation: reads.find(r => r.pass === 'validation'),
    epochs: reads.filter(r => r.pass === 'epoch'),
  }
}

/** metrics.csv without the wall-clock column. */
function metrics(dir: string): Array<Record<string, number>> {
  return parseMetricsCsv(readFileSync(join(dir, 'metrics.csv'), 'utf8')).map(({ elapsed_seconds: _, ...m }) => m)
}

describe('snaptrain train --model recsys over 2 epochs', () => {
  it('reads epoch 2 from the cache; --no-cache reads it from the table; the same model.bin', async () => {
    const train = async (name: string, ...extra: string[]) => {
      const out = join(tmp, name)
      const r = await runMain([
        'train',
        '--model',
        'recsys',
        '--table',
        TABLE,
        '--label',
        'label',
        '--seed',
        '3',
        '--params',
        JSON.stringify(PARAMS),
        '--backend',
        'cpu',
        '--out',
        out,
        '--json',
        ...extra,
      ])
      expect(r.code, r.stderr).toBe(0)
      return { out, reads: byPass(loaderReads(out, lastJson(r))) }
    }
    const cached = await train('cached')
    const uncached = await train('uncached', '--no-cache')
    const files = JSON.parse(readFileSync(join(cached.out, 'manifest.json'), 'utf8')).table.files.length

    // With the cache the table is read once, by the statistics pass (which also decodes the split's
    // row keys): the validation pass and both training epochs read its units from the cache.
    const c = cached.reads
    expect(c.epochs.map(r => r.epoch)).toEqual([0, 1])
    expect(c.statistics.bytes_fetched).toBeGreaterThan(0)
    expect(c.statistics.cache_misses).toBe(c.statistics.units)
    expect(c.validation).toMatchObject({ bytes_fetched: 0, cache_hits: c.statistics.units, cache_misses: 0 })
    // Every unit a pass took is a hit or a miss (units read ahead and not taken count in neither).
    for (const r of [c.statistics, ...c.epochs]) expect(r.cache_hits + r.cache_misses).toBe(r.units)
    for (const e of c.epochs) {
      expect(e).toMatchObject({ bytes_fetched: 0, cache_hits: e.units, cache_misses: 0 })
      expect(e.bytes_from_cache).toBeGreaterThan(0)
      // A plain table's files are each asked once, before their first hit, whether they changed.
      expect(e.revalidations).toBeGreaterThan(0)
      expect(e.revalidations).toBeLessThanOrEqual(files)
    }

    // Without it every pass reads the table: epoch 2 fetches about what epoch 1 fetched (not to the
    // byte: a pooled loader worker keeps the last 2 row groups it read, and which worker reads which
    // unit depends on timing, so a group the previous pass ended with may be reused).
    const [u1, u2] = uncached.reads.epochs
    expect(u1.bytes_fetched).toBeGreaterThan(0)
    expect(u2.bytes_fetched).toBeGreaterThan(0.75 * u1.bytes_fetched)
    expect(u2.bytes_fetched).toBeLessThan(1.35 * u1.bytes_fetched)
    expect(u1.units).toBe(c.epochs[0].units)
    for (const r of [uncached.reads.statistics, u1, u2])
      expect(r).toMatchObject({ cache_hits: 0, cache_misses: 0, bytes_from_cache: 0, revalidations: 0 })

    expect(readFileSync(join(cached.out, 'model.bin')).equals(readFileSync(join(uncached.out, 'model.bin')))).toBe(true)
    expect(metrics(cached.out)).toEqual(metrics(uncached.out))
  })

  it('refuses a bad --cache-mb naming the flag, before a browser starts', async () => {
    const r = await runMain(['train', '--table', TABLE, '--label', 'label', '--model', 'recsys', '--cache-mb', 'lots'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--cache-mb: expected a non-negative number, got 'lots'")
  })
})

/** What a run in the page hands back: its epoch reads and a digest of its model file. */
interface PageRun {
  reads: LoaderRead[]
  model: string
  /** The page's clock around the hold at the end of epoch 1 (share runs). */
  gap?: { start: number; end: number }
}

/** One recommender run in the page (the CPU reference), over `config` merged into the defaults. */
function trainInPage(page: Page, config: Partial<RecsysTrainConfig>, holdMs = 0): Promise<PageRun> {
  const full: RecsysTrainConfig = {
    model: 'recsys',
    table: 'tables/clicks/',
    label: 'label',
    seed: 3,
    backend: 'cpu',
    params: { ...PARAMS, epochs: 1 },
    ...config,
  }
  return page.evaluate(
    async ({ cfg, holdMs }) => {
      let gap: { start: number; end: number } | undefined
      const r = await window.snaptrain.train(cfg, p => {
        // The first evaluation is at the end of epoch 1: hold the page's thread there (epoch 2 waits).
        if (holdMs > 0 && p.kind === 'round' && !gap) {
          const start = Date.now()
          while (Date.now() - start < holdMs) {
            // busy: nothing of the page runs meanwhile
          }
          gap = { start, end: Date.now() }
        }
      })
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', r.model))
      return {
        reads: r.summary.loader_reads ?? [],
        model: Array.from(digest, b => b.toString(16).padStart(2, '0')).join(''),
        gap,
      }
    },
    { cfg: full, holdMs },
  )
}

describe('the cache in the app page', () => {
  it('serves the next run on the same version, and again after a reload (OPFS), never another version', async () => {
    const { page, pageErrors } = await openApp(app, { wait: WAIT })
    const first = await trainInPage(page, {})
    expect(first.reads[0]).toMatchObject({ pass: 'statistics', cache_hits: 0 })
    expect(first.reads[0].bytes_fetched).toBeGreaterThan(0)
    /** Every pass of a run read from the cache: hits only, no byte fetched. */
    const allCached = (run: PageRun) => {
      expect(run.reads.length).toBeGreaterThanOrEqual(2)
      for (const r of run.reads) expect(r).toMatchObject({ bytes_fetched: 0, cache_hits: r.units, cache_misses: 0 })
      expect(run.model).toBe(first.model)
    }

    // The next run on the same version (a sweep's trials hold the table in memory: a run reads again).
    allCached(await trainInPage(page, {}))

    await page.reload(WAIT)
    await page.waitForFunction(() => window.snaptrain !== undefined, null, WAIT)
    const usage = await page.evaluate(() => window.snaptrain.unitCacheUsage())
    expect(usage.entries).toBe(0) // memory is new …
    expect(usage.spilledEntries).toBeGreaterThan(0) // … the spill store is not
    allCached(await trainInPage(page, {}))

    // Version 1 of the same table (its files partly the same): never served version 2's units.
    const older = await trainInPage(page, { version: 1 })
    expect(older.reads[0].cache_hits).toBe(0)
    expect(older.reads[0].bytes_fetched).toBeGreaterThan(0)
    expect(pageErrors).toEqual([])
    await page.context().close()
  })

  it('a share whose URLs expire between epochs: epoch 2 from the cache without a request (no renewal)', async () => {
    const { page, pageErrors } = await openApp(app, { wait: WAIT, allow: [/\/__snaptrain\/sharing\//] })
    const { access, table } = await page.evaluate(
      async text => {
        const { access } = await window.snaptrain.openProfile(text, { source: 'demo.share' })
        const [demo] = await window.snaptrain.listShares(access)
        return { access, table: demo.schemas[0].tables.find(t => t.name === 'clicks')!.url }
      },
      JSON.stringify(share.profile({ token: TOKEN })),
    )
    const run = async (cache: boolean): Promise<PageRun & { log: SharingServer['log'] }> => {
      await page.evaluate(enabled => window.snaptrain.configureUnitCache({ enabled }), cache)
      const from = share.log.length
      const r = await trainInPage(page, { table, access, params: PARAMS }, GAP_MS)
      return { ...r, log: share.log.slice(from) }
    }
    const cached = await run(true)
    const uncached = await run(false)
    await page.evaluate(() => window.snaptrain.configureUnitCache({ enabled: true }))

    // The hold outlasted the URLs: without the cache, epoch 2 renewed them (a query) and read the files again.
    expect(GAP_MS).toBeGreaterThan(URL_LIFETIME_S * 1000)
    const sinceGap = (r: { log: SharingServer['log']; gap?: { start: number } }) =>
      r.log.filter(e => e.at >= r.gap!.start)
    expect(queries(sinceGap(uncached), 'demo.public.clicks').length).toBeGreaterThan(0)
    expect(fileRequests(sinceGap(uncached), 'demo.public.clicks').length).toBeGreaterThan(0)
    const epochs = (r: PageRun) => r.reads.filter(x => x.pass === 'epoch')
    const [e1, e2] = epochs(uncached).map(r => r.bytes_fetched) // about equal: see the first test
    expect(e2).toBeGreaterThan(0.75 * e1)
    expect(e2).toBeLessThan(1.35 * e1)

    // With it: nothing reached the server after epoch 1 — no file request, no query.
    expect(cached.gap!.end - cached.gap!.start).toBeGreaterThanOrEqual(GAP_MS)
    expect(sinceGap(cached)).toEqual([])
    expect(fileRequests(cached.log, 'demo.public.clicks').length).toBeGreaterThan(0)
    expect(queries(cached.log, 'demo.public.clicks').length).toBeGreaterThan(0)
    expect(epochs(cached)[1]).toMatchObject({
      bytes_fetched: 0,
      cache_hits: epochs(cached)[1].units,
      cache_misses: 0,
      revalidations: 0, // a share's files are the server's at a version: never asked again
    })
    expect(cached.model).toBe(uncached.model)
    expect(pageErrors).toEqual([])
    await page.context().close()
  })
})
