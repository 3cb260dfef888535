/**
 * `snaptrain train --model gbdt|recsys --table T --label COL …`: validates parameters, label,
 * features and filter in Node first (usage errors exit 2 before any browser starts), then trains
 * in the app page in headless Chromium (window.snaptrain.train, WebGPU), printing one progress line
 * per round on stderr, and writes DIR/model.json (recsys: model.bin, the checkpoint layout of
 * src/models/recsys/checkpoint.ts), DIR/manifest.json and DIR/metrics.csv (each to a temp name,
 * then renamed). With --json the last stdout line is the run summary. The two families share the
 * run; each gives its flag checks, its Node precheck against the table and its output writer.
 */
import { join, resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { writeOutputs } from './out-dir.ts'
import { parseCommand, type CommandSpec, type FlagSpec, type FlagValues } from './args.ts'
import { pageErrorMessage, pageTables, withAppPage, type Closers, type PageTable } from './page-run.ts'
import { fileStamp } from './bench.ts'
import { openSnapshot, type Snapshot } from '../table/index.ts'
import { readTable } from '../models/gbdt/dataset.ts'
import { selectFeatures } from '../models/gbdt/features.ts'
import { checkLabels } from '../models/gbdt/objective.ts'
import { httpFor, runParams, type TrainConfig, type TrainProgress, type TrainResult } from '../models/gbdt/train-run.ts'
import { metricsCsv } from '../models/manifest.ts'
import { classifyColumns } from '../models/recsys/features.ts'
import { recsysRunParams, type RecsysTrainConfig, type RecsysTrainResult } from '../models/recsys/train-run.ts'
import type { RecsysParams } from '../models/recsys/types.ts'
import type { GbdtParams } from '../models/gbdt/types.ts'
import { allowOrigins, DATA_FLAGS, tokenHeaders } from './data-flags.ts'

const SPEC = {
  name: 'train',
  summary: 'Train a model on a Delta table in headless Chromium (WebGPU) and write model.json (recsys: model.bin), manifest.json, metrics.csv.',
  flags: {
    model: { type: 'string', choices: ['gbdt', 'recsys'], default: 'gbdt', placeholder: 'gbdt', help: 'model family (gbdt: XGBoost-compatible histogram GBDT; recsys: embeddings + MLP click model, writes model.bin)' },
    ...DATA_FLAGS,
    params: { type: 'string', default: '{}', placeholder: 'JSON', help: 'XGBoost parameters, e.g. \'{"max_depth":6,"eta":0.3,"num_round":100}\' (recsys: epochs, batch_size, embedding_dim, layers, lr, optimizer, embedding_optimizer, embedding_lr, weight_decay, buckets, …)' },
    seed: { type: 'int', placeholder: 'S', help: 'seed of the validation split and (unless params.seed) of the booster (default 0)' },
    out: { type: 'string', placeholder: 'DIR', help: 'output folder (default runs/<timestamp>)' },
    backend: { type: 'string', choices: ['gpu', 'cpu'], default: 'gpu', placeholder: 'gpu|cpu', help: 'training backend in the page (cpu = reference implementation)' },
    workers: { type: 'int', min: 0, placeholder: 'n', help: 'loader workers in the page (default 2)' },
    ranks: { type: 'int', min: 1, default: 1, placeholder: 'R', help: 'data-parallel ranks: R rank workers, each with its own GPU device and share of the data (default 1; --json reports per-collective time and bytes)' },
    timeout: { type: 'number', default: 1800, placeholder: 'S', help: 'give up after S seconds (default 1800)' },
    json: { type: 'boolean', help: 'print the run summary as one JSON object on the last stdout line' },
  },
  notes: `examples:
  snaptrain train --model gbdt --table public/tables/marketing --label y --valid-fraction 0.2 \\
    --params '{"max_depth":6,"eta":0.3,"num_round":100,"eval_metric":["auc","logloss"]}' --json
  snaptrain train --table public/tables/marketing --label y --features age,job,balance --filter "age < 60"
  snaptrain train --model recsys --table public/tables/clicks --label label --valid-fraction 0.1 \\
    --params '{"epochs":1,"batch_size":1024,"layers":[64,32]}' --json

Categorical (string) features are numeric codes of a per-column dictionary of the training
values sorted by value; the dictionaries are stored in model.json (learner.attributes
snaptrain_categories) so predict maps new tables the same way; unseen values and nulls are missing.`,
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Parsed flags of `snaptrain train`. */
export type TrainFlags = FlagValues<typeof SPEC.flags>

/** Runs `snaptrain train`; resolves to the exit code (0 ok, 1 data/run error, 2 usage error). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  if (f.model === 'recsys') return runRecsys(f, io)
  return runTraining(f, io, { check: checkFlags, config: c => ({ ...c, ranks: f.ranks }), precheck, write: writeRun })
}

/** What differs between model families in a `snaptrain train` run; the run itself is shared. */
export interface TrainFamily<P, C extends TrainConfig, R> {
  /** Flag and parameter checks that need no data (throws → exit 2). */
  check(f: TrainFlags): P
  /** The family's page config from the common one. */
  config(base: TrainConfig): C
  /** Checks against the table in Node before a browser starts (throws → exit 1). */
  precheck(config: C, params: P): Promise<void>
  /** Writes DIR's files and the summary. */
  write(io: CliIo, f: TrainFlags, result: R): void
}

/**
 * The shared run: validate flags (exit 2), serve local tables, precheck in Node, train in the
 * app page with progress on stderr, write the outputs; errors name the local paths, not the
 * loopback URLs, and every server is closed.
 */
export async function runTraining<P, C extends TrainConfig, R>(f: TrainFlags, io: CliIo, family: TrainFamily<P, C, R>): Promise<number> {
  let params: P
  try {
    params = family.check(f)
  } catch (e) {
    io.err(`snaptrain train: ${(e as Error).message}`)
    return 2
  }
  const closers: Closers = []
  const tables: PageTable[] = []
  try {
    const { table, valid } = await pageTables(f, tables)
    const config = family.config(trainConfig(f, table, valid))
    await family.precheck(config, params)
    const result = await withAppPage(io, f.timeout, closers, page => page.evaluate<R>(trainScript(config)), line => io.err(progressLine(line)))
    family.write(io, f, result)
    return 0
  } catch (e) {
    const msg = tables.reduce((m, t) => t.localize(m), pageErrorMessage(e))
    io.err(`snaptrain train: ${msg}`)
    return 1
  } finally {
    for (const t of tables) await t.close()
  }
}

/** Flag checks that need no data; returns the validated parameters. Throws naming the flag/parameter. */
export function checkFlags(f: TrainFlags): GbdtParams {
  const p = withParamsPrefix(() => runParams({ params: checkCommonFlags(f), seed: f.seed }))
  // The driver would refuse it too, but only in the page, after a browser started.
  if (p.early_stopping_rounds !== undefined && f['valid-fraction'] === undefined && !f['valid-table']) {
    throw new Error('--params: early_stopping_rounds: needs a validation set (--valid-fraction or --valid-table)')
  }
  return p
}

/**
 * Checks shared by every model family: `--params` is a JSON object, and the validation flags
 * fit together. Returns the raw parameters; throws naming the flag.
 */
export function checkCommonFlags(f: TrainFlags): Record<string, unknown> {
  let raw: unknown
  try {
    raw = JSON.parse(f.params)
  } catch (e) {
    throw new Error(`--params: not valid JSON (${(e as Error).message})`)
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('--params: must be a JSON object')
  if (f['valid-table'] && f['valid-fraction'] !== undefined) throw new Error('--valid-table and --valid-fraction: give at most one')
  if (f['valid-version'] !== undefined && !f['valid-table']) throw new Error('--valid-version: needs --valid-table')
  allowOrigins(f) // a bad origin is a usage error (exit 2), found before any table is served
  const fr = f['valid-fraction']
  if (fr !== undefined && !(fr > 0 && fr < 1)) throw new Error(`--valid-fraction: must be in (0, 1), got ${fr}`)
  return raw as Record<string, unknown>
}

/** Runs a family's parameter parser, prefixing its error with `--params:`. */
export function withParamsPrefix<P>(parse: () => P): P {
  try {
    return parse()
  } catch (e) {
    throw new Error(`--params: ${(e as Error).message}`)
  }
}

/** The page's TrainConfig from the flags and the served tables. */
export function trainConfig(f: TrainFlags, table: PageTable, valid?: PageTable): TrainConfig {
  return {
    model: f.model, table: table.url, tablePath: table.path, version: f.version, label: f.label,
    features: f.features.length ? f.features : undefined, filter: f.filter, validTable: valid?.url, validTablePath: valid?.path,
    validVersion: f['valid-version'], validFraction: f['valid-fraction'], params: JSON.parse(f.params) as Record<string, unknown>,
    seed: f.seed, backend: f.backend, workers: f.workers, headers: tokenHeaders(f), allowOrigins: allowOrigins(f),
  }
}

/**
 * Data checks in Node before a browser starts: the label exists and fits the objective, the
 * features exist, and the filter parses and keeps rows. Reads only the label column.
 */
export async function precheck(config: TrainConfig, params: GbdtParams): Promise<void> {
  const snapshot = await openSnapshot(config.table, { version: config.version, ...httpFor(config, config.table) })
  selectFeatures(snapshot.schema, config.label, config.features)
  checkLabels(params.objective, await readLabels(snapshot, config), config.label)
}

/**
 * The label column of the filtered table (read in Node, label only): throws when the filter
 * leaves no rows or a label is null, naming the filter or the file and row.
 */
export async function readLabels(snapshot: Snapshot, config: TrainConfig): Promise<Float32Array> {
  const t = await readTable(snapshot, [], undefined, { label: config.label, filter: config.filter, workers: 0, http: httpFor(config, config.table) })
  if (t.plan.stats.rows === 0) {
    throw new RangeError(config.filter ? `filter "${config.filter}" selects no rows of ${config.table} version ${snapshot.version}` : `${config.table} version ${snapshot.version} has no rows`)
  }
  const y = t.labels!
  const nullAt = y.findIndex(v => Number.isNaN(v))
  if (nullAt >= 0) throw new RangeError(`label column ${config.label}: null at ${t.paths[nullAt]} row ${t.rows[nullAt]}`)
  return y
}

/** The page call as source text (tsx's keepNames wrappers break functions passed to evaluate). */
export function trainScript(config: TrainConfig): string {
  return `window.snaptrain.train(${JSON.stringify(config)}, p => window.__snaptrainProgress(JSON.stringify(p)))`
}

/** One stderr line per progress event. */
export function progressLine(json: string): string {
  const p = JSON.parse(json) as TrainProgress
  if (p.kind === 'stage') return `train: ${p.message}`
  const m = Object.entries(p.metrics).map(([k, v]) => `${k}=${v.toFixed(6)}`).join(' ')
  return `[${p.round + 1}/${p.rounds}] ${m} (${(p.elapsedMs / 1000).toFixed(1)} s)`
}

/** Writes the three files (temp name + rename each) and prints the summary. */
function writeRun(io: CliIo, f: TrainFlags, r: TrainResult): void {
  const dir = resolve(f.out ?? join('runs', fileStamp(new Date().toISOString())))
  const [modelPath, manifestPath] = writeOutputs(dir, {
    'model.json': r.model, 'manifest.json': JSON.stringify(r.manifest, null, 2) + '\n', 'metrics.csv': metricsCsv(r.metrics),
  })
  const s = r.summary
  io.err(`train: ${s.rounds} rounds in ${s.train_seconds.toFixed(1)} s on ${s.adapter}; auc ${s.auc ?? '-'} logloss ${s.logloss ?? '-'}; wrote ${dir}`)
  if (f.json) {
    const { adapter, ...rest } = s
    io.out(JSON.stringify({ ...rest, model_path: modelPath, manifest_path: manifestPath, adapter }))
  }
}

/** Writes `text` to a temp file beside `path`, then renames it over `path` (src/cli/out-dir.ts). */
// The recommender family of the same command.

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

export { atomicWrite } from './out-dir.ts'
