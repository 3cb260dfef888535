/**
 * Rows of the `gbdt` suite from what a training run left (pure: no GPU imports, unit-tested):
 * seconds per round with the XGBoost peer's ratio, time per stage, and the in-training histogram
 * throughput against the storage-atomic ceiling.
 */
import { GBDT_STAGES } from './gbdt-stages.ts'
import type { RoundTimes } from './gbdt-stages.ts'
import type { GbdtPeerResult } from './gbdt-types.ts'
import { summarize } from './measure.ts'
import { makeRow, withPeer } from './rows.ts'
import type { BenchRow, Sample, SuiteContext } from './types.ts'

/** What the training run left for the rows. */
export interface TrainingRun {
  n: number
  F: number
  backend: string
  auc: number
  /** performance.now() after each round's metrics (plain run; round 0 is a warm-up). */
  ends: number[]
  /** Stage times of the profiled run (a second run: pipelines are warm, every round counts). */
  rounds: RoundTimes[]
  ceiling: BenchRow
  peer?: GbdtPeerResult
}

/** Rounds of the profiled run: enough for a median, few because profiling adds syncs. */
export function profileRounds(rounds: number): number {
  return Math.max(1, Math.min(3, rounds - 1))
}

/** Round, stage and in-training histogram rows. */
export function trainingRows(ctx: SuiteContext, t: TrainingRun): BenchRow[] {
  const perRound: Sample[] = t.ends.slice(1).map((end, i) => ({ wallMs: end - t.ends[i] }))
  const timed = t.rounds
  const tag = `n=${t.n} f=${t.F} depth=6 bins=256`
  let round = makeRow(ctx, {
    workload: `gbdt round ${tag} ${t.backend} (valid auc ${t.auc.toFixed(4)})`,
    metric: 'time per round',
    unit: 's',
    samples: perRound,
    fromSeconds: s => s,
  })
  const out: BenchRow[] = []
  if (t.peer) {
    const peer = peerRow(ctx, t.peer)
    round = withPeer(round, peer)
    out.push(peer)
  }
  out.unshift(round)
  for (const stage of GBDT_STAGES) {
    out.push(
      makeRow(ctx, {
        workload: `  stage ${stage} n=${t.n}`,
        metric: 'time per round',
        unit: 'ms',
        samples: timed.map(r => ({ wallMs: r.ms[stage] })),
        fromSeconds: s => s * 1000,
      }),
    )
  }
  // Rounds build different row counts: each round's time is scaled to the median count, so the
  // row's values are exactly each round's own bin updates / s.
  const updates = summarize(timed.map(r => r.builtRows)).median * t.F
  const hist = timed.map(r => ({ wallMs: (r.ms.histogram * updates) / (r.builtRows * t.F) }))
  out.push(
    withPeer(
      makeRow(ctx, {
        workload: `histogram in training (built rows only) n=${t.n}`,
        metric: 'bin updates',
        unit: 'M ops/s',
        samples: hist,
        fromSeconds: s => updates / s / 1e6,
      }),
      t.ceiling,
    ),
  )
  return out
}

/** What the quantisation rows are made of: our CPU times, once each, and the XGBoost peer's. */
export interface QuantiseRun {
  n: number
  F: number
  /** buildCuts (sketch + merge + cuts) and binMatrix, ms on the page's thread. */
  sketchMs: number
  binMs: number
  /** The same cuts and bytes from the page's run path: 2 loader workers (bin-workers.ts), ms. */
  workersMs?: number
  /** Columns in memory → first round's metrics: sketchMs + binMs + train() setup + round 0. */
  firstRoundMs?: number
  peer?: GbdtPeerResult
}

/**
 * Quantisation rows: sketch+cuts, binning, their sum against XGBoost's QuantileDMatrix
 * construction from the same float32 columns (ratio = XGBoost s / our s, > 1: we are faster),
 * the same in 2 loader workers (what a run in the page does) against it too, and the time from
 * columns to the first round's metrics.
 */
export function quantiseRows(ctx: SuiteContext, q: QuantiseRun): BenchRow[] {
  const tag = `n=${q.n} f=${q.F}`
  const seconds = (workload: string, ms: number): BenchRow =>
    makeRow(ctx, { workload, metric: 'time', unit: 's', samples: [{ wallMs: ms }], fromSeconds: s => s })
  let total = seconds(`sketch+cuts+bin (CPU) ${tag}`, q.sketchMs + q.binMs)
  let workers =
    q.workersMs === undefined ? undefined : seconds(`sketch+cuts+bin (2 loader workers) ${tag}`, q.workersMs)
  const out = [seconds(`  sketch+cuts (CPU) ${tag}`, q.sketchMs), seconds(`  bin (CPU) ${tag}`, q.binMs)]
  const times = q.peer?.quantileSeconds
  if (q.peer && times?.length) {
    const { min, median, max } = summarize(times)
    const peer: BenchRow = {
      suite: ctx.suite,
      workload: `xgboost ${q.peer.xgboost} QuantileDMatrix nthread=${q.peer.nthread} n=${q.peer.rows} max_bin=256`,
      metric: 'time',
      value: median,
      unit: 's',
      repeats: times.length,
      min,
      median,
      max,
      timing: 'wall',
      adapter: 'cpu (python3 xgboost)',
      commit: ctx.commit,
      date: ctx.date,
    }
    total = withPeer(total, peer)
    workers = workers && withPeer(workers, peer)
    out.push(peer)
  }
  out.unshift(total)
  if (workers) out.push(workers)
  if (q.firstRoundMs !== undefined)
    out.push(seconds(`columns → first round (cuts, bin, setup, round 0) ${tag}`, q.firstRoundMs))
  return out
}

/**
 * Moments of one run through the run pipeline (performance.now(), ms), from its progress events:
 * `start` before the call, `planned` at the training table's first read progress (snapshot
 * opened, memory checked, scan planned), `loaded` at the 'loaded …' stage (training and
 * validation rows read and decoded), `quantising` / `quantised` around the loader workers'
 * sketch + cuts + binning, `round` at round 0's metrics.
 */
export interface OpenRunMarks {
  start: number
  planned: number
  loaded: number
  quantising: number
  quantised: number
  round: number
}

/** The moments in the order a run passes them. */
export const OPEN_RUN_MARKS: readonly (keyof OpenRunMarks)[] = [
  'start',
  'planned',
  'loaded',
  'quantising',
  'quantised',
  'round',
]

/**
 * The `open → first round` row (the whole wait of a run in the page, once) and its split:
 * open + plan, read + decode (training and validation tables, loader workers), quantise (from
 * the loaded rows to the workers' cuts and bins), backend setup + round 0. The parts sum to the
 * total. Throws naming the first moment that is missing or out of order.
 */
export function openRows(ctx: SuiteContext, run: { n: number; F: number; marks: Partial<OpenRunMarks> }): BenchRow[] {
  const m = run.marks
  OPEN_RUN_MARKS.forEach((k, i) => {
    const t = m[k]
    if (t === undefined || !Number.isFinite(t))
      throw new Error(`gbdt bench: the run's progress never reached '${k}' (events: ${OPEN_RUN_MARKS.join(' → ')})`)
    const prev = i > 0 ? m[OPEN_RUN_MARKS[i - 1]]! : t
    if (t < prev) throw new Error(`gbdt bench: the run reached '${k}' before '${OPEN_RUN_MARKS[i - 1]}'`)
  })
  const t = m as OpenRunMarks
  const tag = `n=${run.n} f=${run.F}`
  const seconds = (workload: string, ms: number): BenchRow =>
    makeRow(ctx, { workload, metric: 'time', unit: 's', samples: [{ wallMs: ms }], fromSeconds: s => s })
  return [
    seconds(`open → first round (Delta over HTTP, run pipeline, num_round 1) ${tag}`, t.round - t.start),
    seconds(`  open + plan ${tag}`, t.planned - t.start),
    seconds(`  read + decode (train + valid, loader workers) ${tag}`, t.loaded - t.planned),
    seconds(`  quantise (loader workers) ${tag}`, t.quantised - t.loaded),
    seconds(`  backend setup + round 0 ${tag}`, t.round - t.quantised),
  ]
}

/** XGBoost's rounds (round 0 builds the gradient index: skipped like ours) as a row. */
export function peerRow(ctx: SuiteContext, p: GbdtPeerResult): BenchRow {
  const values = p.roundSeconds.slice(1)
  const { min, median, max } = summarize(values.length ? values : p.roundSeconds)
  return {
    suite: ctx.suite,
    workload: `xgboost ${p.xgboost} hist nthread=${p.nthread} n=${p.rows} (valid auc ${p.validAuc?.toFixed(4)})`,
    metric: 'time per round',
    value: median,
    unit: 's',
    repeats: values.length,
    min,
    median,
    max,
    timing: 'wall',
    adapter: 'cpu (python3 xgboost)',
    commit: ctx.commit,
    date: ctx.date,
  }
}

/** Classes of the suite's multiclass round (issue 29 §3: one round of K = 26 against 26 binary rounds). */
export const GBDT_BENCH_CLASSES = 26

/** Rows per query group of the suite's ranking run. */
export const GBDT_BENCH_GROUP_ROWS = 20

/**
 * A K-class label learnable from the features: each row's class is its score's quantile (score =
 * the sum of the first three features, missing = 0) cut into K equal-count classes.
 */
export function scoreClasses(columns: readonly Float32Array[], K: number): Float32Array {
  const n = columns[0].length
  const score = new Float64Array(n)
  for (const c of columns.slice(0, 3)) for (let i = 0; i < n; i++) score[i] += Number.isNaN(c[i]) ? 0 : c[i]
  const order = Array.from(score.keys()).sort((a, b) => score[a] - score[b] || a - b)
  const out = new Float32Array(n)
  order.forEach((row, rank) => {
    out[row] = Math.floor((rank * K) / n)
  })
  return out
}

/** Query groups of `size` contiguous rows (the last may be shorter), as XGBoost's group_ptr. */
export function contiguousGroups(rows: number, size: number): Uint32Array {
  const G = Math.ceil(rows / size)
  return Uint32Array.from({ length: G + 1 }, (_, g) => Math.min(g * size, rows))
}

/** What the task runs left for their rows (at one size, right after its binary run). */
export interface TaskRun {
  n: number
  F: number
  backend: string
  /** The binary run's round ends (TrainingRun.ends; round 0 a warm-up). */
  binaryEnds: number[]
  /** multi:softprob's round ends with `classes` classes (round 0 a warm-up); undefined when it could not run. */
  multiEnds?: number[]
  classes: number
  /** Stage times of a profiled rank:ndcg run (groups of `groupRows` rows); undefined when it could not run. */
  rankRounds?: RoundTimes[]
  groupRows: number
}

/** Each round's time from the ends of a run's rounds (round 0 dropped: the warm-up). */
function roundSamples(ends: readonly number[]): Sample[] {
  return ends.slice(1).map((end, i) => ({ wallMs: end - ends[i] }))
}

/**
 * Task rows: one multiclass round of K classes against K binary rounds of the same run (the
 * binary round's median × K as the peer: ratio > 1 = the multiclass round is faster, target ≥ 3),
 * and ranking's host-computed gradients as a share of a profiled rank:ndcg round.
 */
export function taskRows(ctx: SuiteContext, t: TaskRun): BenchRow[] {
  const out: BenchRow[] = []
  const tag = `n=${t.n} f=${t.F} depth=6 bins=256`
  if (t.multiEnds) {
    const K = t.classes
    const binaries = makeRow(ctx, {
      workload: `${K} binary rounds (${K} × the binary round) ${tag}`,
      metric: 'time per round',
      unit: 's',
      samples: roundSamples(t.binaryEnds).map(s => ({ wallMs: s.wallMs * K })),
      fromSeconds: s => s,
    })
    const multi = makeRow(ctx, {
      workload: `gbdt multiclass round K=${K} ${tag} ${t.backend}`,
      metric: 'time per round',
      unit: 's',
      samples: roundSamples(t.multiEnds),
      fromSeconds: s => s,
    })
    out.push(withPeer(multi, binaries), binaries)
  }
  if (t.rankRounds) {
    const total = (r: RoundTimes): number => GBDT_STAGES.reduce((s, stage) => s + r.ms[stage], 0)
    const round = makeRow(ctx, {
      workload: `gbdt rank:ndcg round (profiled) ${tag} groups of ${t.groupRows} ${t.backend}`,
      metric: 'time per round',
      unit: 'ms',
      samples: t.rankRounds.map(r => ({ wallMs: total(r) })),
      fromSeconds: s => s * 1000,
    })
    const shares = t.rankRounds.map(r => (100 * r.hostGradientMs) / total(r))
    const { min, median, max } = summarize(shares)
    out.push(round, {
      ...round,
      workload: `  ranking gradients (CPU hand-off) rank:ndcg ${tag} groups of ${t.groupRows}`,
      metric: 'share of the round',
      unit: '%',
      value: median,
      min,
      median,
      max,
    })
  }
  return out
}
