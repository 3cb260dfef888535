/**
 * The `gbdt` suite: XGBoost-`hist` training on seeded HIGGS-like data (100k and 1M rows × 28
 * features, tools/datagen/synthetic.ts) through the driver and the GPU backend — seconds per round,
 * time per stage, histogram throughput against the storage-atomic ceiling measured in the same
 * run, and XGBoost hist (2 threads) on the same rows, measured by the CLI before the browser starts.
 */
import { generateSynthetic } from '../tools/datagen/synthetic.ts'
import { binMatrix } from '../src/models/gbdt/binned.ts'
import { buildCuts } from '../src/models/gbdt/cuts.ts'
import { train } from '../src/models/gbdt/driver.ts'
import type { TrainData } from '../src/models/gbdt/driver.ts'
import type { BinnedMatrix, Cuts, GbdtParams } from '../src/models/gbdt/types.ts'
import { parseParams } from '../src/models/gbdt/params.ts'
import { atomicCeiling, standaloneHistogramRow } from './gbdt-hist.ts'
import { gbdtBackend } from './gbdt-backend.ts'
import { profileRounds, trainingRows } from './gbdt-rows.ts'
import { StageClock, timedBackend } from './gbdt-stages.ts'
import type { GbdtSize } from './gbdt-types.ts'
import {
  GBDT_BENCH_PARAMS,
  GBDT_SIZES,
  GBDT_SIZES_QUICK,
  GBDT_TRAIN_SEED,
  GBDT_VALID_SEED,
  validRows,
} from './gbdt-types.ts'
import { makeRow } from './rows.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/**
 * Runs every size; rows per size: prepare, round (+ XGBoost), stages, the atomic ceiling, and the
 * histogram rows (training, standalone) against it.
 */
export async function runGbdtSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  if (ctx.gbdt?.peerNote) ctx.progress(`no XGBoost peer rows: ${ctx.gbdt.peerNote}`)
  for (const size of ctx.quick ? GBDT_SIZES_QUICK : GBDT_SIZES) rows.push(...(await sizeRows(ctx, size)))
  return rows
}

async function sizeRows(ctx: SuiteContext, size: GbdtSize): Promise<BenchRow[]> {
  const { rows: n, rounds } = size
  ctx.progress(`n=${n}: generating (seeds ${GBDT_TRAIN_SEED}/${GBDT_VALID_SEED})`)
  const set = prepare(n)
  const prep = makeRow(ctx, {
    workload: `sketch+cuts+bin (CPU) n=${n} f=${set.F}`,
    metric: 'time',
    unit: 's',
    samples: [{ wallMs: set.prepMs }],
    fromSeconds: s => s,
  })
  const params = parseParams({ ...GBDT_BENCH_PARAMS, num_round: rounds })
  const plain = await timeRounds(ctx, set, params)
  const clock = await profileStages(ctx, set, { ...params, num_round: profileRounds(rounds) })
  // Measured per size, right after the training it is compared with: on a shared machine a
  // ceiling taken minutes earlier can be off by 2×.
  ctx.progress(`n=${n}: storage atomic ceiling (device suite's atomicRows, same run)`)
  const ceiling = await atomicCeiling(ctx)
  const peer = ctx.gbdt?.peers.find(p => p.rows === n)
  const training = trainingRows(ctx, {
    n,
    F: set.F,
    backend: plain.backend,
    auc: plain.auc,
    ends: plain.ends,
    rounds: clock.rounds,
    ceiling,
    peer,
  })
  return [prep, ...training, ceiling, await standaloneHistogramRow(ctx, set.binned, set.cuts, ceiling)]
}

/** The seeded training + validation tables, with cuts and the binned matrix (timed: CPU work). */
interface BenchSet {
  data: TrainData
  F: number
  cuts: Cuts
  binned: BinnedMatrix
  prepMs: number
}

function prepare(n: number): BenchSet {
  const t = generateSynthetic(n, GBDT_TRAIN_SEED),
    v = generateSynthetic(validRows(n), GBDT_VALID_SEED)
  const t0 = performance.now()
  const cuts = buildCuts(t.columns, GBDT_BENCH_PARAMS.max_bin)
  const binned = binMatrix(t.columns, cuts)
  const data = {
    columns: t.columns,
    labels: t.labels,
    featureNames: t.featureNames,
    valid: { columns: v.columns, labels: v.labels },
  }
  return { data, F: t.columns.length, cuts, binned, prepMs: performance.now() - t0 }
}

/** Run 1, as in production (lazy submits): the time of every round and the final validation AUC. */
async function timeRounds(
  ctx: SuiteContext,
  set: BenchSet,
  params: GbdtParams,
): Promise<{ backend: string; auc: number; ends: number[] }> {
  const n = set.data.labels.length
  const plain = gbdtBackend(ctx.cache)
  ctx.progress(`n=${n}: training ${params.num_round} rounds (${plain.name} backend)`)
  const ends: number[] = []
  const booster = await train(set.data, params, plain.factory, {
    cuts: set.cuts,
    onRound: (r, m) => {
      ends.push(performance.now())
      ctx.progress(`n=${n} round ${r}: valid auc ${m.auc?.toFixed(5)}`)
    },
  })
  return { backend: plain.name, auc: booster.history.at(-1)?.auc ?? NaN, ends }
}

/** Run 2, profiled (every stage submitted and awaited alone): time per stage and rows built. */
async function profileStages(ctx: SuiteContext, set: BenchSet, params: GbdtParams): Promise<StageClock> {
  ctx.progress(`n=${set.data.labels.length}: profiled run, ${params.num_round} rounds`)
  const clock = new StageClock()
  const backend = gbdtBackend(ctx.cache, {})
  await train(
    set.data,
    params,
    timedBackend(backend.factory, clock, () => ctx.device.queue.onSubmittedWorkDone()),
    { cuts: set.cuts },
  )
  return clock
}
