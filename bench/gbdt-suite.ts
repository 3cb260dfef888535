/**
 * The `gbdt` suite: XGBoost-`hist` training on seeded HIGGS-like data (100k and 1M rows × 28
 * features, tools/datagen/synthetic.ts; `--rows N`: one size of N rows) through the driver and the GPU backend — seconds per round,
 * time per stage, histogram throughput against the storage-atomic ceiling measured in the same
 * run, and XGBoost hist (2 threads) on the same rows, measured by the CLI before the browser starts.
 * At the first size also the tasks beyond binary (issue 29 §3): a multiclass round of K = 26
 * against 26 binary rounds of the same run, and ranking gradients' share of a rank:ndcg round.
 */
import { generateSynthetic } from '../tools/datagen/synthetic.ts'
import { binMatrix } from '../src/models/gbdt/binned.ts'
import { buildCuts } from '../src/models/gbdt/cuts.ts'
import { binOffThread } from '../src/models/gbdt/bin-workers.ts'
import { train } from '../src/models/gbdt/driver.ts'
import type { TrainData } from '../src/eval/dataset.ts'
import type { BinnedMatrix, Cuts, GbdtParams } from '../src/models/gbdt/types.ts'
import { parseParams } from '../src/models/gbdt/params.ts'
import { runTraining } from '../src/run/pipeline.ts'
import { atomicCeiling, standaloneHistogramRow } from './gbdt-hist.ts'
import { gbdtBackend } from './gbdt-backend.ts'
import {
  GBDT_BENCH_CLASSES,
  GBDT_BENCH_GROUP_ROWS,
  contiguousGroups,
  openRows,
  profileRounds,
  quantiseRows,
  scoreClasses,
  taskRows,
  trainingRows,
} from './gbdt-rows.ts'
import type { OpenRunMarks } from './gbdt-rows.ts'
import { StageClock, timedBackend } from './gbdt-stages.ts'
import type { GbdtSize, GbdtTableUrls } from './gbdt-types.ts'
import {
  GBDT_BENCH_PARAMS,
  GBDT_TABLE_LABEL,
  GBDT_TRAIN_SEED,
  GBDT_VALID_SEED,
  gbdtSizes,
  validRows,
} from './gbdt-types.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/**
 * Runs every size; rows per size: open → first round (when the CLI serves the tables), prepare,
 * round (+ XGBoost), stages, the atomic ceiling, and the histogram rows (training, standalone)
 * against it.
 */
export async function runGbdtSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  if (ctx.gbdt?.peerNote) ctx.progress(`no XGBoost peer rows: ${ctx.gbdt.peerNote}`)
  const sizes = gbdtSizes(ctx.quick, ctx.gbdtRows)
  for (const size of sizes) rows.push(...(await sizeRows(ctx, size, size === sizes[0])))
  return rows
}

async function sizeRows(ctx: SuiteContext, size: GbdtSize, withTasks: boolean): Promise<BenchRow[]> {
  const { rows: n, rounds } = size
  // First, before this size's other work: the run's device, pipelines and workers start cold.
  const tables = ctx.gbdt?.tables?.find(t => t.rows === n)
  const open = tables ? await openToFirstRound(ctx, tables) : []
  if (!tables) ctx.progress(`n=${n}: no Delta tables served (run from the CLI): no open → first round row`)
  ctx.progress(`n=${n}: generating (seeds ${GBDT_TRAIN_SEED}/${GBDT_VALID_SEED})`)
  const set = prepare(n)
  ctx.progress(`n=${n}: the same quantisation in 2 loader workers (the page's run path)`)
  const workersMs = await offThread(set)
  const params = parseParams({ ...GBDT_BENCH_PARAMS, num_round: rounds })
  const plain = await timeRounds(ctx, set, params)
  const peer = ctx.gbdt?.peers.find(p => p.rows === n)
  const prep = quantiseRows(ctx, {
    n,
    F: set.F,
    sketchMs: set.sketchMs,
    binMs: set.binMs,
    workersMs,
    firstRoundMs: set.sketchMs + set.binMs + plain.firstMs,
    peer,
  })
  const clock = await profileStages(ctx, set, { ...params, num_round: profileRounds(rounds) })
  // Measured per size, right after the training it is compared with: on a shared machine a
  // ceiling taken minutes earlier can be off by 2×.
  ctx.progress(`n=${n}: storage atomic ceiling (device suite's atomicRows, same run)`)
  const ceiling = await atomicCeiling(ctx)
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
  const tasks = withTasks ? await taskRuns(ctx, set, plain, rounds) : []
  return [
    ...open,
    ...prep,
    ...training,
    ...tasks,
    ceiling,
    await standaloneHistogramRow(ctx, set.binned, set.cuts, ceiling),
  ]
}

/**
 * The task rows' runs on the size's rows (the same cuts and bins) with derived labels: a
 * multi:softprob run of GBDT_BENCH_CLASSES classes (rounds as the binary run) and a profiled
 * rank:ndcg run with contiguous query groups of GBDT_BENCH_GROUP_ROWS rows. A run the backend
 * cannot do yet is skipped with a progress line saying why.
 */
async function taskRuns(
  ctx: SuiteContext,
  set: BenchSet,
  binary: { backend: string; ends: number[] },
  rounds: number,
): Promise<BenchRow[]> {
  const n = set.data.labels.length,
    K = GBDT_BENCH_CLASSES
  const v = set.data.valid!
  let multiEnds: number[] | undefined
  try {
    ctx.progress(`n=${n}: multiclass, ${K} classes, ${rounds} rounds (${binary.backend} backend)`)
    const data = {
      ...set.data,
      labels: scoreClasses(set.data.columns, K),
      valid: { ...v, labels: scoreClasses(v.columns, K) },
    }
    const params = parseParams({
      ...GBDT_BENCH_PARAMS,
      objective: 'multi:softprob',
      num_class: K,
      eval_metric: 'mlogloss',
      num_round: rounds,
    })
    const ends: number[] = []
    await train(data, params, gbdtBackend(ctx.cache).factory, {
      cuts: set.cuts,
      binned: set.binned,
      onRound: () => void ends.push(performance.now()),
    })
    multiEnds = ends
  } catch (e) {
    ctx.progress(`n=${n}: no multiclass row: ${(e as Error).message}`)
  }
  let rankRounds: StageClock['rounds'] | undefined
  try {
    ctx.progress(
      `n=${n}: rank:ndcg, groups of ${GBDT_BENCH_GROUP_ROWS} rows, profiled, ${profileRounds(rounds)} rounds`,
    )
    const data = {
      ...set.data,
      labels: scoreClasses(set.data.columns, 5),
      groups: contiguousGroups(n, GBDT_BENCH_GROUP_ROWS),
      valid: {
        ...v,
        labels: scoreClasses(v.columns, 5),
        groups: contiguousGroups(v.labels.length, GBDT_BENCH_GROUP_ROWS),
      },
    }
    const params = parseParams({
      ...GBDT_BENCH_PARAMS,
      objective: 'rank:ndcg',
      eval_metric: 'ndcg@10',
      num_round: profileRounds(rounds),
    })
    const clock = new StageClock()
    const backend = gbdtBackend(ctx.cache, {})
    await train(
      data,
      params,
      timedBackend(backend.factory, clock, () => ctx.device.queue.onSubmittedWorkDone()),
      {
        cuts: set.cuts,
        binned: set.binned,
      },
    )
    rankRounds = clock.rounds
  } catch (e) {
    ctx.progress(`n=${n}: no ranking row: ${(e as Error).message}`)
  }
  return taskRows(ctx, {
    n,
    F: set.F,
    backend: binary.backend,
    binaryEnds: binary.ends,
    multiEnds,
    classes: K,
    rankRounds,
    groupRows: GBDT_BENCH_GROUP_ROWS,
  })
}

/**
 * The whole wait of a run in the page, once: the run pipeline's `runTraining` (what
 * window.snaptrain.train and `snaptrain train` call) on the served Delta tables with one round,
 * timed from the call to round 0's progress event and split by the run's own progress events.
 */
async function openToFirstRound(ctx: SuiteContext, tables: GbdtTableUrls): Promise<BenchRow[]> {
  const n = tables.rows
  ctx.progress(`n=${n}: open → first round: runTraining on ${tables.train} (num_round 1)`)
  const marks: Partial<OpenRunMarks> = {}
  const mark = (k: keyof OpenRunMarks): void => {
    marks[k] ??= performance.now()
  }
  mark('start')
  const result = await runTraining(
    {
      model: 'gbdt',
      table: tables.train,
      validTable: tables.valid,
      label: GBDT_TABLE_LABEL,
      params: { ...GBDT_BENCH_PARAMS, num_round: 1 },
    },
    p => {
      if (p.kind === 'round') mark('round')
      else if (p.message.startsWith('loaded ')) mark('loaded')
      else if (p.message.startsWith('quantising ')) mark('quantising')
      else if (p.message.startsWith('quantised ')) mark('quantised')
      if (p.kind === 'stage') ctx.progress(`n=${n}: run: ${p.message}`)
    },
    {
      hooks: {
        onRead: read => {
          if (read === 0) mark('planned')
        },
      },
    },
  )
  const F = result.manifest.features.length
  ctx.progress(
    `n=${n}: open → first round: ${((marks.round! - marks.start!) / 1000).toFixed(2)} s, ${result.summary.adapter}`,
  )
  return openRows(ctx, { n, F, marks })
}

/** The seeded training + validation tables, with cuts and the binned matrix (timed: CPU work). */
interface BenchSet {
  data: TrainData
  F: number
  cuts: Cuts
  binned: BinnedMatrix
  /** buildCuts and binMatrix, ms (CPU, this thread). */
  sketchMs: number
  binMs: number
}

function prepare(n: number): BenchSet {
  const t = generateSynthetic(n, GBDT_TRAIN_SEED),
    v = generateSynthetic(validRows(n), GBDT_VALID_SEED)
  const t0 = performance.now()
  const cuts = buildCuts(t.columns, GBDT_BENCH_PARAMS.max_bin)
  const t1 = performance.now()
  const binned = binMatrix(t.columns, cuts)
  const t2 = performance.now()
  const data = {
    columns: t.columns,
    labels: t.labels,
    featureNames: t.featureNames,
    valid: { columns: v.columns, labels: v.labels },
  }
  return { data, F: t.columns.length, cuts, binned, sketchMs: t1 - t0, binMs: t2 - t1 }
}

/** binOffThread's time on the set's columns; throws unless it made the same cuts and bytes. */
async function offThread(set: BenchSet): Promise<number> {
  const t0 = performance.now()
  const { cuts, binned } = await binOffThread(set.data.columns, GBDT_BENCH_PARAMS.max_bin)
  const ms = performance.now() - t0
  const same = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
    a.length === b.length && Array.prototype.every.call(a, (x: number, i: number) => Object.is(x, b[i]))
  if (!same(cuts.cutValues, set.cuts.cutValues) || !same(binned.bins, set.binned.bins))
    throw new Error('gbdt bench: the loader workers made other cuts or bins than buildCuts + binMatrix')
  return ms
}

/**
 * Run 1, as in production (lazy submits): the time of every round, the final validation AUC, and
 * `firstMs` from the train() call to round 0's metrics (backend setup and uploads included).
 */
async function timeRounds(
  ctx: SuiteContext,
  set: BenchSet,
  params: GbdtParams,
): Promise<{ backend: string; auc: number; ends: number[]; firstMs: number }> {
  const n = set.data.labels.length
  const plain = gbdtBackend(ctx.cache)
  ctx.progress(`n=${n}: training ${params.num_round} rounds (${plain.name} backend)`)
  const ends: number[] = []
  const t0 = performance.now()
  const booster = await train(set.data, params, plain.factory, {
    cuts: set.cuts,
    binned: set.binned,
    onRound: (r, m) => {
      ends.push(performance.now())
      ctx.progress(`n=${n} round ${r}: valid auc ${m.auc?.toFixed(5)}`)
    },
  })
  return { backend: plain.name, auc: booster.history.at(-1)?.auc ?? NaN, ends, firstMs: ends[0] - t0 }
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
    { cuts: set.cuts, binned: set.binned },
  )
  return clock
}
