/**
 * The `scaleout` suite (runs in the page): the recommender on `clicks` and
 * `marketing` with R = 1, 2, 4 ranks for the same epochs — (a) per-rank batch kept and lr
 * unchanged, (b) lr scaled by rule (× √R, × R) with warmup — each a whole training run as
 * `snaptrain train --ranks R` does it (R > 1: rank workers, each with its own GPUDevice and share
 * of the rows, gradients combined every step). Per run: wall time (data statistics, worker start
 * and evaluation included), training-loop time, samples/s, steps and validation AUC. On one
 * software adapter shared by all ranks no speed-up is expected; the larger global batch's
 * effect on AUC (fewer updates per epoch) is what the suite shows.
 */
import { runTraining } from '../src/run/pipeline.ts'
import type { RecsysTrainResult } from '../src/models/recsys/family.ts'
import { valueRow } from './loader-rows.ts'
import {
  caseLabel,
  caseParams,
  SCALEOUT_METRICS,
  SCALEOUT_SIZES,
  SCALEOUT_SIZES_QUICK,
  type ScaleoutCase,
  type ScaleoutDataset,
  type ScaleoutSizes,
} from './scaleout-rows.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/** Runs every dataset × case once (each run is minutes on the software adapter; no repeats). */
export async function runScaleoutSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const z = ctx.quick ? SCALEOUT_SIZES_QUICK : SCALEOUT_SIZES
  const rows: BenchRow[] = []
  for (const d of z.datasets) {
    for (const c of z.cases) rows.push(...(await runCase(ctx, z, d, c)))
  }
  return rows
}

async function runCase(ctx: SuiteContext, z: ScaleoutSizes, d: ScaleoutDataset, c: ScaleoutCase): Promise<BenchRow[]> {
  const batch = z.params.batch_size as number
  const label = caseLabel(d, c, batch)
  ctx.progress(`${label}: training`)
  const t0 = performance.now()
  const r = (await runTraining({
    model: 'recsys',
    table: new URL(`/tables/${d.table}/`, location.href).href,
    label: d.label,
    features: d.features,
    filter: d.filter,
    validFraction: d.validFraction,
    ranks: c.ranks,
    params: caseParams(z, c),
  })) as RecsysTrainResult
  const wallS = (performance.now() - t0) / 1000
  const s = r.summary
  ctx.progress(
    `${label}: ${s.steps} steps, ${wallS.toFixed(1)} s, ${Math.round(s.samples_per_second)} samples/s, AUC ${s.auc?.toFixed(3)}`,
  )
  const M = SCALEOUT_METRICS
  return [
    valueRow(ctx, label, M.wall[0], M.wall[1], [wallS]),
    valueRow(ctx, label, M.train[0], M.train[1], [s.train_seconds]),
    valueRow(ctx, label, M.throughput[0], M.throughput[1], [s.samples_per_second]),
    valueRow(ctx, label, M.auc[0], M.auc[1], [s.auc ?? NaN]),
    valueRow(ctx, label, M.steps[0], M.steps[1], [s.steps]),
  ]
}
