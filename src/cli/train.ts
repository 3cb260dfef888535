/**
 * `snaptrain train --model gbdt|recsys --table T --label COL …`: validates parameters, label,
 * features and filter in Node first (usage errors exit 2 before any browser starts), pins the
 * table version the precheck opened, then trains in the app page in headless Chromium
 * (window.snaptrain.train: the one run, src/run/pipeline.ts, WebGPU), printing one progress line
 * per round on stderr, and writes DIR/model.json (--model-format ubj: model.ubj, UBJSON; --init-model
 * continues a model file; recsys: model.bin, the checkpoint layout of
 * src/models/recsys/checkpoint.ts, and model.onnx, its ONNX export), DIR/manifest.json, DIR/metrics.csv
 * and the continue bundle DIR/continue/ (src/continue/bundle.ts), as one group (temp names, then renamed). With --json the last stdout line is the run summary. `--model` picks the family
 * (src/models/registry.ts); the command is the same for every family.
 */
import { join, resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { fileStamp, writeOutputs } from './out-dir.ts'
import { parseCommand, type CommandSpec, type FlagSpec, type FlagValues } from './args.ts'
import {
  configurePageCache,
  pageErrorMessage,
  pageTables,
  withAppPage,
  type Closers,
  type PageTable,
} from './page-run.ts'
import { progress, type Progress } from './progress.ts'
import { openSnapshot } from '../table/index.ts'
import { httpFor, type RunResult, type TrainConfig, type TrainProgress } from '../run/config.ts'
import { progressDone } from '../run/progress.ts'
import { FAMILIES, FAMILY_MENU, FAMILY_NAMES, familiesWithFlag, familyOf, familyOfConfig } from '../models/registry.ts'
import type { ModelFamily } from '../run/family.ts'
import { runFiles } from '../run/artifacts.ts'
import type { StoppedMark } from '../run/stop.ts'
import type { RecsysTrainSummary } from '../models/recsys/family.ts'
import {
  allowOrigins,
  applyCacheFlags,
  CACHE_FLAGS,
  DATA_FLAGS,
  insecureHttp,
  tokenHeaders,
  validationChoice,
} from './data-flags.ts'
import { forPage } from './governed.ts'
import { tableAddress } from './table-url.ts'
import { readModelFile } from './model-file.ts'
import { MODEL_FORMATS } from '../models/gbdt/model-file.ts'

const SPEC = {
  name: 'train',
  summary:
    'Train a model on a Delta table in headless Chromium (WebGPU) and write model.json or model.ubj (recsys: model.bin and model.onnx), manifest.json, metrics.csv and the continue bundle continue/.',
  flags: {
    model: {
      type: 'string',
      choices: FAMILY_NAMES,
      placeholder: FAMILY_NAMES.join('|'),
      help: `model family (${FAMILY_MENU.map(d => `${d.name}: ${d.label}, writes ${d.modelFiles.join(' or ')}`).join('; ')})`,
    },
    ...DATA_FLAGS,
    weight: {
      type: 'string',
      placeholder: 'COL',
      help: "gbdt: row weight column (XGBoost's DMatrix weight=): scales each row's gradient and hessian, the quantile sketch and the validation metrics; numeric, finite, ≥ 0",
    },
    'base-margin': {
      type: 'string',
      placeholder: 'COL',
      help: "gbdt: base margin column (XGBoost's base_margin=): each row starts at this margin instead of base_score, in training and validation; numeric, finite",
    },
    qid: {
      type: 'string',
      placeholder: 'COL',
      help: "gbdt rank:ndcg / rank:pairwise / rank:map: query id column (XGBoost's qid=): rows are ranked within their query; a query's rows need not be contiguous and are never split by the validation split (nor across --ranks); integer (below 2^24) or string ids",
    },
    params: {
      type: 'string',
      default: '{}',
      placeholder: 'JSON',
      help: 'XGBoost parameters, e.g. \'{"max_depth":6,"eta":0.3,"num_round":100}\' (recsys: epochs, batch_size, embedding_dim, layers, lr, optimizer, embedding_optimizer, embedding_lr, weight_decay, buckets, …)',
    },
    seed: {
      type: 'int',
      placeholder: 'S',
      help: 'seed of the validation split and (unless params.seed) of the booster (default 0)',
    },
    out: { type: 'string', placeholder: 'DIR', help: 'output folder (default runs/<timestamp>)' },
    'model-format': {
      type: 'string',
      choices: MODEL_FORMATS,
      placeholder: 'json|ubj',
      help: 'gbdt model file: json (default) writes DIR/model.json, ubj writes DIR/model.ubj (UBJSON, XGBoost 2.1+ default)',
    },
    'init-model': {
      type: 'string',
      placeholder: 'model.json|model.ubj',
      help: "gbdt: continue boosting from this model (ours or saved by XGBoost; .ubj = UBJSON): its trees first, then num_round more; features default to the model's",
    },
    backend: {
      type: 'string',
      choices: ['gpu', 'cpu'],
      default: 'gpu',
      placeholder: 'gpu|cpu',
      help: 'training backend in the page (cpu = reference implementation)',
    },
    workers: { type: 'int', min: 0, placeholder: 'n', help: 'loader workers in the page (default 2)' },
    ...CACHE_FLAGS,
    ranks: {
      type: 'int',
      min: 1,
      default: 1,
      placeholder: 'R',
      help: 'data-parallel ranks: R rank workers, each with its own GPU device and share of the data (default 1; --json reports per-collective time and bytes)',
    },
    'eval-train': {
      type: 'boolean',
      help: "gbdt: also evaluate each eval_metric on the training rows every round, as XGBoost's evals=[(dtrain, 'train'), …]: train-auc, train-logloss, … beside the validation columns of metrics.csv and the progress (the page's default; early stopping watches validation only; one rank)",
    },
    timeout: { type: 'number', default: 1800, placeholder: 'S', help: 'give up after S seconds (default 1800)' },
    json: { type: 'boolean', help: 'print the run summary as one JSON object on the last stdout line' },
  },
  notes: `examples:
  snaptrain train --model gbdt --table public/tables/marketing --label y --valid-fraction 0.2 \\
    --params '{"max_depth":6,"eta":0.3,"num_round":100,"eval_metric":["auc","logloss"]}' --json
  snaptrain train --table public/tables/marketing --label y --features age,job,balance --filter "age < 60"
  snaptrain train --model recsys --table public/tables/clicks --label label --valid-fraction 0.1 \\
    --params '{"epochs":1,"batch_size":1024,"layers":[64,32]}' --json

Model files: --model-format ubj writes UBJSON (model.ubj) instead of JSON (model.json); both hold
the same XGBoost model and XGBoost's Booster.load_model reads either. --init-model continues a
model (XGBoost's xgb_model): the table needs the model's feature columns; string columns are coded
with the model's dictionaries; rounds, and subsample/colsample draws, are numbered after its trees,
so 10 rounds continued by 5 equal one 15-round run.

Continue bundle: DIR/continue/ holds continue.json (pinned table, label, features and encodings,
validation split, params, seed, rounds/steps done), the model and jobs for XGBoost on Dask and Spark
(gbdt) or PyTorch DDP (recsys); 'snaptrain continue --run DIR' writes it again (README "Continue at scale").

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
  let family: ModelFamily
  try {
    // Without --model, the params' `booster` may name the family (XGBoost's "gblinear"); else the default.
    family = await familyOfConfig({ model: parsed.values.model, params: boosterOf(parsed.values.params) }).load()
  } catch (e) {
    io.err(`snaptrain train: ${(e as Error).message}`)
    return 2
  }
  const f = { ...parsed.values, model: family.name }
  let params: unknown
  let initModel: string | undefined
  let cache: ReturnType<typeof applyCacheFlags>
  try {
    params = checkFlags(f, family)
    cache = applyCacheFlags(f)
    if (f['init-model'] !== undefined) initModel = readModelFile(resolve(f['init-model']), '--init-model')
  } catch (e) {
    io.err(`snaptrain train: ${(e as Error).message}`)
    return 2
  }
  const closers: Closers = []
  const tables: PageTable[] = []
  try {
    const { table, valid } = await pageTables(f, tables)
    const config = await precheck({ ...trainConfig(f, table, valid), initModel }, family, params)
    const shown = progress(io)
    shown.line(`train: ${validationChoice(f, true).line}`)
    const result = await withAppPage(
      io,
      f.timeout,
      closers,
      async page => {
        await configurePageCache(page, cache)
        return page.evaluate<RunResult>(trainScript(forPage(config, page.url())))
      },
      line => showProgress(shown, line),
      page => {
        shown.line(
          'train: Ctrl-C: stopping after the current round or step, keeping what was trained (Ctrl-C again quits at once, writing nothing)',
        )
        page.evaluate('window.snaptrain.stopTraining()').catch(() => undefined)
      },
    ).finally(() => shown.end())
    await writeRun(io, f, family.modelFile(config), family, result)
    return 0
  } catch (e) {
    const msg = tables.reduce((m, t) => t.localize(m), pageErrorMessage(e))
    io.err(`snaptrain train: ${msg}`)
    return 1
  } finally {
    for (const t of tables) await t.close()
  }
}

/** Flags only some families take (the registry's cliFlags). */
const FAMILY_FLAGS = [...new Set(FAMILIES.flatMap(d => d.cliFlags))]

/** Flag checks that need no data; returns the family's validated parameters. Throws naming the flag/parameter. */
export function checkFlags(f: TrainFlags, family: ModelFamily): unknown {
  const raw = checkCommonFlags(f)
  const p = withParamsPrefix(() => family.params({ params: raw, seed: f.seed }))
  const d = familyOf(family.name)
  for (const flag of FAMILY_FLAGS)
    if (!d.cliFlags.includes(flag) && ![undefined, false].includes((f as Record<string, unknown>)[flag] as undefined))
      throw new Error(
        `--${flag}: only for ${familiesWithFlag(flag)
          .map(o => `--model ${o.name}`)
          .join(' or ')}`,
      )
  if (f['eval-train'] && f.ranks > 1)
    throw new Error(`--eval-train: training-rows metrics need the rows on one rank; got --ranks ${f.ranks}`)
  // The run would refuse it too, but only in the page, after a browser started.
  if (typeof raw.objective === 'string' && raw.objective.startsWith('rank:') && f.qid === undefined)
    throw new Error(`--qid: ${raw.objective} ranks rows within queries: name the query id column (--qid COL)`)
  if (typeof raw.objective === 'string' && raw.objective.startsWith('rank:') && f.weight !== undefined)
    throw new Error(
      `--weight: ${raw.objective} weighs query groups, not rows; row weights are not supported for ranking`,
    )
  if (
    d.earlyStoppingNeedsValidation &&
    raw.early_stopping_rounds !== undefined &&
    validationChoice(f, true).validFraction === undefined &&
    !f['valid-table']
  ) {
    throw new Error(
      '--params: early_stopping_rounds: needs a validation set (--valid-fraction above 0, its default, or --valid-table)',
    )
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
  const valid = validationChoice(f, true)
  if (f['valid-version'] !== undefined && !f['valid-table']) throw new Error('--valid-version: needs --valid-table')
  if (f['split-key'].length && valid.validFraction === undefined)
    throw new Error('--split-key: needs a validation share (not with --valid-table or --valid-fraction 0)')
  allowOrigins(f) // a bad origin is a usage error (exit 2), found before any table is served
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

/** The params' `booster` alone (the rest is checked by the family), or nothing when --params is no JSON object. */
function boosterOf(text: string): Record<string, unknown> | undefined {
  try {
    const p = JSON.parse(text) as unknown
    return p && typeof p === 'object' && 'booster' in p ? { booster: (p as { booster: unknown }).booster } : undefined
  } catch {
    return undefined
  }
}

/** The page's TrainConfig from the flags and the served tables. */
export function trainConfig(f: TrainFlags, table: PageTable, valid?: PageTable): TrainConfig {
  return {
    model: f.model,
    table: table.url,
    tablePath: table.path,
    tableAddress: tableAddress(table),
    version: f.version,
    label: f.label,
    ...(f.weight !== undefined ? { weight: f.weight } : {}),
    ...(f['base-margin'] !== undefined ? { baseMargin: f['base-margin'] } : {}),
    ...(f.qid !== undefined ? { qid: f.qid } : {}),
    ...(f['eval-train'] ? { evalTrain: true } : {}),
    features: f.features.length ? f.features : undefined,
    filter: f.filter,
    validTable: valid?.url,
    validTablePath: valid?.path,
    validTableAddress: valid && tableAddress(valid),
    validVersion: f['valid-version'],
    validFraction: validationChoice(f, true).validFraction,
    splitKey: f['split-key'].length ? f['split-key'] : undefined,
    params: JSON.parse(f.params) as Record<string, unknown>,
    ...(f['model-format'] ? { modelFormat: f['model-format'] } : {}),
    seed: f.seed,
    backend: f.backend,
    workers: f.workers,
    ranks: f.ranks,
    headers: tokenHeaders(f),
    allowOrigins: allowOrigins(f),
    ...(f['allow-insecure-http'] ? { http: insecureHttp(f) } : {}),
    ...(table.access ? { access: table.access } : {}),
  }
}

/**
 * Data checks in Node before a browser starts (the family's: label, features, filter; reads only
 * the label column). Returns the config with its table version pinned to the snapshot checked,
 * so the page reads exactly that version (a commit landing meanwhile changes nothing).
 */
export async function precheck(
  config: TrainConfig,
  family: ModelFamily | undefined,
  params?: unknown,
): Promise<TrainConfig> {
  const snapshot = await openSnapshot(config.table, { version: config.version, ...httpFor(config, config.table) })
  await family?.precheck(snapshot, config, params)
  const validVersion =
    config.validTable && config.validVersion === undefined
      ? (await openSnapshot(config.validTable, { ...httpFor(config, config.validTable) })).version
      : config.validVersion
  return { ...config, version: snapshot.version, validVersion }
}

/** The page call as source text (tsx's keepNames wrappers break functions passed to evaluate). */
export function trainScript(config: TrainConfig): string {
  return `window.snaptrain.train(${JSON.stringify(config)}, p => window.__snaptrainProgress(JSON.stringify(p)))`
}

/** One stderr line per progress event (what a pipe gets). */
export function progressLine(json: string): string {
  const p = JSON.parse(json) as TrainProgress
  if (p.kind === 'stage') return `train: ${p.message}`
  return `${roundText(p)} (${(p.elapsedMs / 1000).toFixed(1)} s)`
}

/** `[k/N] auc=… logloss=…` of a round event; `[step k/N] …` of a recommender's evaluation. */
function roundText(p: Extract<TrainProgress, { kind: 'round' }>): string {
  const m = Object.entries(p.metrics)
    .map(([k, v]) => `${k}=${v.toFixed(6)}`)
    .join(' ')
  const { done, total } = progressDone(p)
  return `[${p.steps ? 'step ' : ''}${done}/${total}] ${m}`
}

/** A page progress event on `shown`: stages, then rounds (or steps) of a total. */
function showProgress(shown: Progress, json: string): void {
  const p = JSON.parse(json) as TrainProgress
  if (p.kind === 'stage') shown.stage(`train: ${p.message}`, p.fraction)
  else {
    const { done, total } = progressDone(p)
    shown.step(done, total, roundText(p), progressLine(json))
  }
}

/**
 * Writes the model file, manifest.json, metrics.csv, the continue bundle and the family's exports
 * of the model (recsys: model.onnx) as one group (temp names + rename) and prints the summary.
 */
async function writeRun(io: CliIo, f: TrainFlags, modelFile: string, family: ModelFamily, r: RunResult): Promise<void> {
  const dir = resolve(f.out ?? join('runs', fileStamp(new Date().toISOString())))
  const model = typeof r.model === 'string' ? r.model : new Uint8Array(r.model)
  // An export that cannot be made (e.g. a feature column named like an ONNX output) loses nothing
  // trained: model.bin is still written, and the reason is printed.
  const exports = await family.modelExports?.(model).catch((e: Error) => {
    io.err(`train: exports of the model not written: ${e.message}`)
    return {}
  })
  // The continue bundle (continue/*) is among the run's files; one that cannot be made is reported
  // (the manifest says why in continue_error) and the model, manifest and metrics are written all the same.
  const files = Object.fromEntries(runFiles(modelFile, r).map(f => [f.name, f.data]))
  const linked = JSON.parse(String(files['manifest.json'])) as { continue_error?: string }
  if (linked.continue_error) io.err(`train: continue bundle not written: ${linked.continue_error}`)
  const [modelPath, manifestPath] = writeOutputs(dir, { ...files, ...(exports ?? {}) })
  const stopped = (r.manifest as { stopped?: StoppedMark }).stopped
  const mark = stopped
    ? `stopped by the user after ${'at_round' in stopped ? `round ${stopped.at_round}` : `step ${stopped.at_step}`}; `
    : ''
  io.err(`train: ${mark}${family.describe(r.summary)}; wrote ${dir}`)
  if (f.json) {
    // The recommender's speed, epochs, steps and loader reads per pass after the adapter (absent from
    // other summaries: JSON drops undefined).
    const { adapter, samples_per_second, epochs, steps, restored_best_step, timing, loader_reads, ...rest } =
      r.summary as RecsysTrainSummary
    const recsys = { samples_per_second, epochs, steps, restored_best_step, timing, loader_reads }
    io.out(
      JSON.stringify({
        ...rest,
        model_path: modelPath,
        manifest_path: manifestPath,
        adapter,
        ...recsys,
        ...(stopped ? { stopped } : {}),
      }),
    )
  }
}

export { atomicWrite } from './out-dir.ts'
