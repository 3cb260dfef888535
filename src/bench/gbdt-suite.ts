/**
 * The `gbdt` suite: XGBoost-`hist` training on seeded HIGGS-like data (100k and 1M rows × 28
 * features, src/datagen/synthetic.ts) through the driver and the GPU backend — seconds per round,
 * time per stage, histogram throughput against the storage-atomic ceiling measured in the same
 * run, and XGBoost hist (2 threads) on the same rows, measured by the CLI before the browser starts.
 */
import { generateSynthetic } from '../datagen/synthetic.ts'
import { binMatrix } from '../models/gbdt/binned.ts'
import { buildCuts } from '../models/gbdt/cuts.ts'
import { train } from '../models/gbdt/driver.ts'
import { parseParams } from '../models/gbdt/params.ts'
import { atomicCeiling, standaloneHistogramRow } from './gbdt-hist.ts'
import { gbdtBackend } from './gbdt-backend.ts'
import { GBDT_STAGES, StageClock, timedBackend } from './gbdt-stages.ts'
import type { RoundTimes } from './gbdt-stages.ts'
import type { GbdtPeerResult, GbdtSize } from './gbdt-types.ts'
import { GBDT_BENCH_PARAMS, GBDT_SIZES, GBDT_SIZES_QUICK, GBDT_TRAIN_SEED, GBDT_VALID_SEED, validRows } from './gbdt-types.ts'
import { makeRow, withPeer } from './rows.ts'
import { summarize } from './measure.ts'
import type { BenchRow, Sample, SuiteContext } from './types.ts'

/** Runs every size; rows per size: prepare, round (+ XGBoost), stages, histogram (training and standalone). */
export async function runGbdtSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  ctx.progress('storage atomic ceiling (device suite, same run)')
  const ceiling = await atomicCeiling(ctx)
  const rows: BenchRow[] = [ceiling]
  if (ctx.gbdt?.peerNote) ctx.progress(`no XGBoost peer rows: ${ctx.gbdt.peerNote}`)
  for (const size of ctx.quick ? GBDT_SIZES_QUICK : GBDT_SIZES) rows.push(...await sizeRows(ctx, size, ceiling))
  return rows
}

async function sizeRows(ctx: SuiteContext, size: GbdtSize, ceiling: BenchRow): Promise<BenchRow[]> {
  const { rows: n, rounds } = size
  ctx.progress(`n=${n}: generating (seeds ${GBDT_TRAIN_SEED}/${GBDT_VALID_SEED})`)
  const data = generateSynthetic(n, GBDT_TRAIN_SEED), valid = generateSynthetic(validRows(n), GBDT_VALID_SEED)
  const F = data.columns.length
  const params = parseParams({ ...GBDT_BENCH_PARAMS, num_round: rounds })
  const t0 = performance.now()
  const cuts = buildCuts(data.columns, params.max_bin)
  const binned = binMatrix(data.columns, cuts)
  const prepMs = performance.now() - t0
  const tag = `n=${n} f=${F}`
  const out: BenchRow[] = [makeRow(ctx, { workload: `sketch+cuts+bin (CPU) ${tag}`, metric: 'time', unit: 's', samples: [{ wallMs: prepMs }], fromSeconds: s => s })]
  const backend = await gbdtBackend(ctx.device)
  ctx.progress(`n=${n}: training ${rounds} rounds (${backend.name} backend)`)
  const clock = new StageClock()
  const ends: number[] = []
  const booster = await train({ columns: data.columns, labels: data.labels, featureNames: data.featureNames, valid },
    params, timedBackend(backend.factory, clock, () => ctx.device.queue.onSubmittedWorkDone()),
    { cuts, onRound: (r, m) => { ends.push(performance.now()); ctx.progress(`n=${n} round ${r}: valid auc ${m.auc?.toFixed(5)}`) } })
  const auc = booster.history.at(-1)?.auc ?? NaN
  out.push(...trainingRows(ctx, { n, F, backend: backend.name, auc, ends, rounds: clock.rounds, ceiling, peer: ctx.gbdt?.peers.find(p => p.rows === n) }))
  out.push(await standaloneHistogramRow(ctx, binned, cuts, ceiling))
  return out
}

/** What the training run left for the rows. */
interface TrainingRun {
  n: number
  F: number
  backend: string
  auc: number
  /** performance.now() after each round's metrics. */
  ends: number[]
  rounds: RoundTimes[]
  ceiling: BenchRow
  peer?: GbdtPeerResult
}

/** Round, stage and in-training histogram rows; round 0 (pipelines, first touch) is a warm-up. */
export function trainingRows(ctx: SuiteContext, t: TrainingRun): BenchRow[] {
  const timed = t.rounds.slice(1, t.ends.length)
  const perRound: Sample[] = timed.map((r, i) => ({ wallMs: t.ends[i + 1] - t.ends[i] - r.bookkeepingMs }))
  const tag = `n=${t.n} f=${t.F} depth=6 bins=256`
  let round = makeRow(ctx, { workload: `gbdt round ${tag} ${t.backend} (valid auc ${t.auc.toFixed(4)})`, metric: 'time per round', unit: 's', samples: perRound, fromSeconds: s => s })
  const out: BenchRow[] = []
  if (t.peer) {
    const peer = peerRow(ctx, t.peer)
    round = withPeer(round, peer)
    out.push(peer)
  }
  out.unshift(round)
  for (const stage of GBDT_STAGES) {
    out.push(makeRow(ctx, { workload: `  stage ${stage} n=${t.n}`, metric: 'time per round', unit: 'ms', samples: timed.map(r => ({ wallMs: r.ms[stage] })), fromSeconds: s => s * 1000 }))
  }
  const hist = timed.map(r => ({ wallMs: r.ms.histogram }))
  const updates = summarize(timed.map(r => r.builtRows)).median * t.F
  out.push(withPeer(makeRow(ctx, { workload: `histogram in training (built rows only) n=${t.n}`, metric: 'bin updates', unit: 'M ops/s', samples: hist, fromSeconds: s => updates / s / 1e6 }), t.ceiling))
  return out
}

/** XGBoost's rounds (round 0 builds the gradient index: skipped like ours) as a row. */
export function peerRow(ctx: SuiteContext, p: GbdtPeerResult): BenchRow {
  const values = p.roundSeconds.slice(1)
  const { min, median, max } = summarize(values.length ? values : p.roundSeconds)
  return {
    suite: ctx.suite, workload: `xgboost ${p.xgboost} hist nthread=${p.nthread} n=${p.rows} (valid auc ${p.validAuc.toFixed(4)})`,
    metric: 'time per round', value: median, unit: 's', repeats: values.length, min, median, max, timing: 'wall',
    adapter: 'cpu (python3 xgboost)', commit: ctx.commit, date: ctx.date,
  }
}
