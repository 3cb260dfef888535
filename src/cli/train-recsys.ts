/**
 * `snaptrain train --model recsys …`: the recommender under the same contract as GBDT. Flags and
 * `--params` are validated in Node (exit 2 naming the parameter before any browser starts), then
 * label, features, filter and per-column parameters are checked against the table (label column
 * only is read), then the page trains (window.snaptrain.train with model 'recsys') and DIR gets
 * model.bin (the checkpoint layout of src/models/recsys/checkpoint.ts), manifest.json and
 * metrics.csv (one row per evaluation), each written to a temp name and renamed.
 */
import { join, resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { writeOutputs } from './out-dir.ts'
import { fileStamp } from './bench.ts'
import { checkCommonFlags, readLabels, runTraining, withParamsPrefix, type TrainFlags } from './train.ts'
import { openSnapshot } from '../table/index.ts'
import { checkLabels } from '../models/gbdt/objective.ts'
import { httpFor } from '../models/gbdt/train-run.ts'
import { metricsCsv } from '../models/manifest.ts'
import { classifyColumns } from '../models/recsys/features.ts'
import { recsysRunParams, type RecsysTrainConfig, type RecsysTrainResult } from '../models/recsys/train-run.ts'
import type { RecsysParams } from '../models/recsys/types.ts'

/** The recommender's model file name in DIR. */
export const RECSYS_MODEL_FILE = 'model.bin'

/** Runs `snaptrain train --model recsys`; resolves to the exit code (0 ok, 1 data/run error, 2 usage error). */
export function runRecsys(f: TrainFlags, io: CliIo): Promise<number> {
  return runTraining<RecsysParams, RecsysTrainConfig, RecsysTrainResult>(f, io, {
    check: checkRecsysFlags,
    config: base => ({ ...base, model: 'recsys', ranks: f.ranks }) as RecsysTrainConfig,
    precheck: precheckRecsys,
    write: writeRecsysRun,
  })
}

/** Flag and `--params` checks that need no data; returns the validated parameters. Throws naming the flag/parameter. */
export function checkRecsysFlags(f: TrainFlags): RecsysParams {
  return withParamsPrefix(() => recsysRunParams({ params: checkCommonFlags(f), seed: f.seed }))
}

/**
 * Data checks in Node before a browser starts: label and features exist and have model inputs,
 * per-column params (buckets, log1p) name feature columns of the right kind, the filter keeps
 * rows, and the labels are 0/1 without nulls. Reads only the label column.
 */
export async function precheckRecsys(config: RecsysTrainConfig, params: RecsysParams): Promise<void> {
  const snapshot = await openSnapshot(config.table, { version: config.version, ...httpFor(config, config.table) })
  const kinds = classifyColumns(snapshot.schema.fields, config.label, config.features)
  if (params.buckets && typeof params.buckets === 'object') {
    for (const c of Object.keys(params.buckets)) if (!kinds.sparse.includes(c)) throw new RangeError(`--params: buckets.${c}: not an embedding (id/categorical) feature column (those: ${kinds.sparse.join(', ')})`)
  }
  for (const c of params.log1p) if (!kinds.dense.includes(c)) throw new RangeError(`--params: log1p: '${c}' is not a dense feature column (those: ${kinds.dense.join(', ')})`)
  checkLabels('binary:logistic', await readLabels(snapshot, config), config.label)
}

/** Writes model.bin, manifest.json and metrics.csv (temp name + rename each) and prints the summary. */
function writeRecsysRun(io: CliIo, f: TrainFlags, r: RecsysTrainResult): void {
  const dir = resolve(f.out ?? join('runs', fileStamp(new Date().toISOString())))
  const [modelPath, manifestPath] = writeOutputs(dir, {
    [RECSYS_MODEL_FILE]: new Uint8Array(r.model), 'manifest.json': JSON.stringify(r.manifest, null, 2) + '\n', 'metrics.csv': metricsCsv(r.metrics),
  })
  const s = r.summary
  io.err(`train: ${s.steps} steps (${s.epochs} epochs, ${s.rounds} evaluations) in ${s.train_seconds.toFixed(1)} s on ${s.adapter}; `
    + `${Math.round(s.samples_per_second)} samples/s; auc ${s.auc ?? '-'} logloss ${s.logloss ?? '-'}`
    + `${s.restored_best_step === null ? '' : ` (restore_best: weights of the evaluation at step ${s.restored_best_step})`}; wrote ${dir}`)
  if (f.json) {
    const { adapter, samples_per_second, epochs, steps, restored_best_step, ...rest } = s
    io.out(JSON.stringify({ ...rest, model_path: modelPath, manifest_path: manifestPath, adapter, samples_per_second, epochs, steps, restored_best_step }))
  }
}
