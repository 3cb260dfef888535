/**
 * The `sweep` suite (runs in the page): Hyperband against random search over the SAME
 * configurations at full budget — the configurations Hyperband sampled, each trained to R — for
 * GBDT on `marketing` (resource = boosting rounds) and, smaller, the recommender on a slice of
 * `clicks` (resource = epochs). Per model: best validation AUC of each, total GPU-seconds of each
 * (busy time of the trial devices' queues, src/sweep/gpu-busy.ts) and their ratio. Target
 * (SageMaker's): Hyperband's best AUC within 0.005 at ≤ 1/3 of the GPU-seconds. Sequential
 * trials (parallel 1) so that one trial's busy time is not inflated by another sharing the CPU.
 */
import { DataCache } from '../src/sweep/data-cache.ts'
import { defaultSpace } from '../src/tune/defaults.ts'
import { familyOf } from '../src/models/registry.ts'
import { MemoryStore } from '../src/sweep/store-memory.ts'
import { runPageSweep } from '../src/sweep/run.ts'
import type {
  Bracket,
  Strategy,
  SweepConfig,
  SweepEvent,
  SweepState,
  TrialConfig,
  TrialRequest,
} from '../src/tune/types.ts'
import { valueRow } from './loader-rows.ts'
import { withPeer } from './rows.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/** One model's workload: table, sweep config and what the workload name says. */
interface SweepWorkload {
  name: string
  config: SweepConfig
}

function workloads(quick: boolean): SweepWorkload[] {
  const marketing = new URL('/tables/marketing/', location.href).href
  const clicks = new URL('/tables/clicks/', location.href).href
  // Depth ≤ 5 and the rows with age < 30 (~6k) keep the full-budget side within minutes on a
  // shared software adapter; R/r = 27 gives Hyperband its four brackets (s_max = 3).
  const gbdt: SweepConfig = {
    model: 'gbdt',
    table: marketing,
    label: 'y',
    strategy: 'hyperband',
    seed: 7,
    parallel: 1,
    validFraction: 0.2,
    minResource: 1,
    maxResource: quick ? 3 : 27,
    eta: 3,
    filter: 'age < 30',
    space: { ...defaultSpace(familyOf('gbdt')), max_depth: { type: 'int', low: 2, high: 5 } },
  }
  const recsys: SweepConfig = {
    model: 'recsys',
    table: clicks,
    label: 'label',
    filter: 'hour = 3',
    strategy: 'hyperband',
    seed: 7,
    features: ['device', 'country', 'ad_format', 'category', 'publisher', 'dense_0', 'dense_1', 'dense_2', 'dense_3'],
    parallel: 1,
    validFraction: 0.2,
    minResource: 1,
    maxResource: quick ? 3 : 9,
    eta: 3,
    space: {
      lr: { type: 'loguniform', low: 3e-4, high: 3e-2 },
      embedding_dim: { type: 'categorical', choices: [8, 16] },
      layers: { type: 'categorical', choices: [[32], [64, 32]] },
      batch_size: { type: 'categorical', choices: [512, 1024] },
      embedding_lr: { type: 'loguniform', low: 3e-3, high: 1e-1 },
    },
  }
  return [
    {
      name: `gbdt marketing (${gbdt.filter}), default space with max_depth ≤ 5, rounds r=1 R=${gbdt.maxResource} η=3`,
      config: gbdt,
    },
    {
      name: `recsys clicks (${recsys.filter}, 9 feature columns), epochs r=1 R=${recsys.maxResource} η=3`,
      config: recsys,
    },
  ]
}

/** Runs both models' comparisons. */
export async function runSweepSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const cache = new DataCache()
  const rows: BenchRow[] = []
  for (const w of workloads(ctx.quick)) rows.push(...(await compare(ctx, cache, w)))
  return rows
}

/** Hyperband, then the same configurations at full budget; rows for AUC, GPU-seconds, wall. */
async function compare(ctx: SuiteContext, cache: DataCache, w: SweepWorkload): Promise<BenchRow[]> {
  const progress =
    (label: string) =>
    (e: SweepEvent): void => {
      // Progress updates (fraction < 1) are for the page's bars; the log keeps each step's end.
      if (e.kind === 'stage' && (e.fraction === undefined || e.fraction === 1)) ctx.progress(`${label}: ${e.message}`)
      if (e.kind === 'trial' && e.trial.endedAt && e.trial.status !== 'running') {
        ctx.progress(
          `${label} trial ${e.trial.id} ${e.trial.status} r=${e.trial.curve.at(-1)?.resource ?? 0} auc=${e.trial.metric?.toFixed(4) ?? '-'} ${e.trial.gpuSeconds.toFixed(2)} GPU-s`,
        )
      }
    }
  const hb = await runPageSweep(w.config, progress(`${w.config.model} hyperband`), { store: new MemoryStore(), cache })
  const configs = hb.trials.filter(t => t.promotedFrom === undefined).map(t => t.config)
  const R = w.config.maxResource!
  const full = await runPageSweep({ ...w.config, strategy: 'random' }, progress(`${w.config.model} random-full`), {
    store: new MemoryStore(),
    cache,
    strategy: listStrategy(configs, R),
  })
  return rowsOf(ctx, w.name, hb, full, configs.length)
}

function rowsOf(ctx: SuiteContext, name: string, hb: SweepState, full: SweepState, configs: number): BenchRow[] {
  const failed = (s: SweepState): string => {
    const n = s.trials.filter(t => t.status === 'failed').length
    return n ? `, ${n} failed` : ''
  }
  const hbName = `${name}: hyperband, ${hb.trials.length} trials of ${configs} configurations${failed(hb)}`
  const fullName = `${name}: random search, the same ${configs} configurations at full budget${failed(full)}`
  const auc = (w: string, s: SweepState): BenchRow =>
    valueRow(ctx, w, 'best validation AUC', 'AUC', [s.best?.metric ?? NaN])
  const gpu = (w: string, s: SweepState): BenchRow => valueRow(ctx, w, 'GPU-seconds (queue busy)', 's', [s.gpuSeconds])
  const wall = (w: string, s: SweepState): BenchRow => valueRow(ctx, w, 'wall time', 's', [s.wallSeconds])
  const fullGpu = gpu(fullName, full)
  const gap = valueRow(ctx, `${name}: AUC gap, random-full best − hyperband best (target ≤ 0.005)`, 'AUC gap', 'AUC', [
    (full.best?.metric ?? NaN) - (hb.best?.metric ?? NaN),
  ])
  const estimate = valueRow(
    ctx,
    `${name}: hyperband's own full-budget estimate (cost.ts) for the same configurations`,
    'GPU-seconds (estimate)',
    's',
    [hb.gpuSecondsFullBudget],
  )
  const fullAuc = auc(fullName, full)
  return [
    withPeer(auc(hbName, hb), fullAuc),
    fullAuc,
    gap,
    withPeer(gpu(hbName, hb), fullGpu),
    fullGpu,
    estimate,
    withPeer(wall(hbName, hb), wall(fullName, full)),
    wall(fullName, full),
  ]
}

/**
 * A strategy that runs a fixed list of configurations once each at resource R (the "random
 * search at full budget" side: Hyperband's own samples, so both sides see the same configurations).
 */
export function listStrategy(configs: readonly TrialConfig[], R: number): Strategy {
  let next = 0
  return {
    name: 'random',
    next: (): TrialRequest | 'done' =>
      next < configs.length ? { id: next, config: configs[next++], resource: R, bracket: 0, rung: 0 } : 'done',
    report: () => 'continue',
    complete: () => {},
    plan: (): Bracket[] => [{ index: 0, rungs: [{ n: configs.length, resource: R }] }],
  }
}
