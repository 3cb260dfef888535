/**
 * `snaptrain sweep --table T --label COL --model FAMILY --strategy S …` (src/models/registry.ts): validates the space,
 * strategy knobs, trial count and parallelism in Node first (usage errors exit 2 before any
 * browser starts; the page refuses a parallelism above its adapter's limit before loading data),
 * checks the label and filter against the table, then runs the sweep in the app page
 * (window.snaptrain.sweep, one GPUDevice per parallel trial, stored in that page's IndexedDB).
 * One stderr line per finished trial; DIR gets trials.csv, sweep.json, optuna-journal.log, the
 * best model (model.json / model.bin + manifest.json) and its continue bundle (continue/), each
 * written to a temp name and renamed.
 * `--optuna-journal FILE` appends the same journal to FILE; `--warm-start-journal FILE` seeds the
 * strategy with a journal's finished trials (tune/optuna.ts).
 */
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, unlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CliIo } from './io.ts'
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
import { precheck } from './train.ts'
import { FAMILY_MENU, FAMILY_NAMES, familyOf, loadFamily } from '../models/registry.ts'
import { fileStamp, writeOutputs, type OutputData } from './out-dir.ts'
import { STRATEGY_NAMES } from '../tune/strategy.ts'
import { planSweep, sweepGaucGroup, sweepMetric } from '../sweep/plan.ts'
import { exportSweep, importSweep, trialsCsv } from '../tune/export.ts'
import { OPTUNA_JOURNAL_FILE, optunaJournal, readJournal, warmStartBest, warmStartFromJournal } from '../tune/optuna.ts'
import { sweepBestFiles } from '../continue/sweep-bundle.ts'
import type { RunManifest } from '../run/manifest.ts'
import type { StrategyName, SweepConfig, SweepEvent, SweepState, TrialArtifacts, TrialRecord } from '../tune/types.ts'
import { hasBrackets, rungReached, stateCounts, stateWord, strategyLine, trialStates } from '../tune/trial-state.ts'
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

/** The flags of `snaptrain sweep`. */
export const SPEC = {
  name: 'sweep',
  summary:
    'Sweep hyperparameters (grid, random, Hyperband, ASHA, TPE, BOHB) on a Delta table in headless Chromium (WebGPU); writes trials.csv, sweep.json, an Optuna journal and the best model.',
  flags: {
    ...DATA_FLAGS,
    weight: {
      type: 'string',
      placeholder: 'COL',
      help: "gbdt: row weight column (XGBoost's DMatrix weight=), as snaptrain train --weight",
    },
    'base-margin': {
      type: 'string',
      placeholder: 'COL',
      help: "gbdt: base margin column (XGBoost's base_margin=), as snaptrain train --base-margin",
    },
    qid: {
      type: 'string',
      placeholder: 'COL',
      help: "gbdt rank:*: query id column (XGBoost's qid=), as snaptrain train --qid",
    },
    model: {
      type: 'string',
      choices: FAMILY_NAMES,
      required: true,
      placeholder: FAMILY_NAMES.join('|'),
      help: 'model family',
    },
    space: {
      type: 'string',
      placeholder: 'space.json',
      help: "search space JSON file (default: the model's default space)",
    },
    strategy: {
      type: 'string',
      choices: [...STRATEGY_NAMES],
      default: 'hyperband',
      placeholder: 'name',
      help: `search strategy: ${STRATEGY_NAMES.join(', ')}`,
    },
    trials: {
      type: 'int',
      placeholder: 'N',
      help: "configurations to try (hyperband/bohb: caps the brackets' total; default per strategy)",
    },
    parallel: {
      type: 'int',
      placeholder: 'P',
      help: 'trials in parallel, one GPU device each (default from the adapter: 2 on a software adapter)',
    },
    seed: {
      type: 'int',
      placeholder: 'S',
      help: 'sweep seed: configurations, brackets and the validation split (default 0)',
    },
    'min-resource': {
      type: 'int',
      placeholder: 'r',
      help: `smallest resource of a trial: ${FAMILY_MENU.map(d => `${d.resource.many} (${d.name})`).join(' or ')}`,
    },
    'max-resource': { type: 'int', placeholder: 'R', help: 'largest resource of a trial (full budget)' },
    eta: { type: 'number', placeholder: 'η', help: 'Hyperband/ASHA reduction factor (default 3)' },
    metric: {
      type: 'string',
      placeholder: 'NAME',
      // The plan checks it against the model's own (registry `metrics`; GBDT: any XGBoost eval_metric).
      help: `validation metric: ${[...new Set(FAMILY_MENU.flatMap(d => d.metrics))].join('|')} (auc, aucpr, ndcg, map, pre (with @k), gauc maximised; every loss minimised; gauc: recsys, with gauc_group fixed in the space; GBDT: error@t, tweedie-nloglik@ρ, ndcg@k; default: the objective's own eval metric (mlogloss for multi:*, ndcg@32 for rank:ndcg, rmse for reg:squarederror…), auc for binary objectives and recsys)`,
    },
    out: { type: 'string', placeholder: 'DIR', help: 'output folder (default runs/sweep-<timestamp>)' },
    ...CACHE_FLAGS,
    timeout: { type: 'number', default: 3600, placeholder: 'S', help: 'give up after S seconds (default 3600)' },
    json: {
      type: 'boolean',
      help: 'print {best, trials, stopped_early, gpu_seconds, gpu_seconds_full_budget, wall_seconds, complete, pruned, failed} as the last stdout line (best.params: the complete train parameters of the best trial, its num_round / epochs included)',
    },
    'csv-formula-guard': {
      type: 'boolean',
      help: "trials.csv: write text cells starting with = + - @ tab or CR (numbers excepted) with a leading ' so spreadsheets do not run them (default off)",
    },
    'optuna-journal': {
      type: 'string',
      placeholder: 'FILE',
      help: `append the sweep to FILE as an Optuna journal (JournalFileStorage; study = the sweep id), creating FILE; DIR always gets ${OPTUNA_JOURNAL_FILE} too`,
    },
    'warm-start-journal': {
      type: 'string',
      placeholder: 'FILE',
      help: "warm-start from an Optuna journal's finished (COMPLETE) trials: the first trial is their best configuration, TPE and BOHB also fit them",
    },
    'warm-start-study': {
      type: 'string',
      placeholder: 'NAME',
      help: 'the study of --warm-start-journal to read (default: its only study)',
    },
  },
  notes: `examples:
  snaptrain sweep --table public/tables/marketing --label y --model gbdt --strategy hyperband --trials 27 --json
  snaptrain sweep --table public/tables/marketing --label y --model gbdt --strategy random --trials 10 \\
    --space space.json --max-resource 30 --parallel 2 --out runs/sweep1
  snaptrain sweep --table public/tables/marketing --label y --model gbdt --strategy tpe --trials 20 \\
    --warm-start-journal runs/sweep1/${OPTUNA_JOURNAL_FILE} --optuna-journal optuna.log

Optuna: load the journal with optuna.load_study(study_name=<sweep id>,
storage=JournalStorage(JournalFileStorage(FILE))), or optuna-dashboard on the same storage.

A space file maps parameter names to domains: {"eta": {"type": "loguniform", "low": 0.01, "high": 0.3},
"max_depth": {"type": "int", "low": 2, "high": 8}, "colsample_bytree": {"type": "uniform", "low": 0.5, "high": 1},
"grow_policy": {"type": "categorical", "choices": ["depthwise", "lossguide"]}, "max_bin": 128}.`,
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Parsed flags of `snaptrain sweep`. */
export type SweepFlags = FlagValues<typeof SPEC.flags>

/** What `--json` prints. */
export interface SweepSummary {
  /** params: what `snaptrain train --params` reproduces the best model with (resource included). */
  best: { params: Record<string, unknown>; metric: number; trial: number } | null
  trials: number
  /** Trials the strategy stopped mid-training (ASHA); `pruned` counts these and the ones not promoted. */
  stopped_early: number
  gpu_seconds: number
  gpu_seconds_full_budget: number
  wall_seconds: number
  /** Trials by state as Optuna reads them (tune/trial-state.ts). */
  complete: number
  pruned: number
  failed: number
  /** Only for a warm-started sweep: the journal's study and how many of its trials seeded it. */
  warm_start?: { journal: string; study: string; seeded: number; best_value: number }
}

/** Runs `snaptrain sweep`; resolves to the exit code (0 ok, 1 data/run error, 2 usage error). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const t0 = performance.now()
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  let config: SweepConfig
  let cache: ReturnType<typeof applyCacheFlags>
  try {
    config = checkFlags(f)
    cache = applyCacheFlags(f)
  } catch (e) {
    io.err(`snaptrain sweep: ${(e as Error).message}`)
    return 2
  }
  io.err(`sweep: ${validationChoice(f, false).line}`)
  const tables: PageTable[] = []
  try {
    const { table, valid } = await pageTables(f, tables)
    const pageConfig: SweepConfig = {
      ...config,
      table: table.url,
      tablePath: table.path,
      tableAddress: tableAddress(table),
      validTable: valid?.url,
      validTablePath: valid?.path,
      validTableAddress: valid && tableAddress(valid),
      headers: tokenHeaders(f),
      ...(table.access ? { access: table.access } : {}),
    }
    // The family's checks in Node (GBDT's labels; a recommender sweep's gauc_group column, its
    // precheck with labels included: registry sweep.precheck); every trial reads the version checked here.
    const group = sweepGaucGroup(config)
    const family =
      familyOf(config.model).sweep.precheck || group !== undefined ? await loadFamily(config.model) : undefined
    const { version, label, features, filter, validVersion, allowOrigins } = config
    const data = {
      model: config.model,
      table: pageConfig.table,
      version,
      label,
      features,
      filter,
      headers: pageConfig.headers,
      access: pageConfig.access,
      allowOrigins,
      http: insecureHttp(f),
      validTable: pageConfig.validTable,
      validVersion,
    }
    const pinned = await precheck(
      data,
      family,
      family?.params(group === undefined ? {} : { params: { gauc_group: group } }),
    )
    pageConfig.version = pinned.version
    pageConfig.validVersion = pinned.validVersion
    const result = namedSweep(await runInPage(io, f.timeout, pageConfig, cache))
    await writeSweep(io, f, result, (performance.now() - t0) / 1000)
    return result.state.status === 'finished' ? 0 : 1
  } catch (e) {
    io.err(`snaptrain sweep: ${tables.reduce((m, t) => t.localize(m), pageErrorMessage(e))}`)
    return 1
  } finally {
    for (const t of tables) await t.close()
  }
}

/**
 * The sweep config from the flags, validated without data (space file, strategy knobs, trials,
 * parallel against the largest limit of any adapter). Throws naming the flag or the space entry.
 */
export function checkFlags(f: SweepFlags): SweepConfig {
  validationChoice(f, false) // at most one of the two; a share in (0, 1)
  if (f['split-key'].length && f['valid-table']) throw new Error('--split-key: not with --valid-table')
  for (const flag of ['weight', 'base-margin', 'qid'] as const)
    if (f[flag] !== undefined && !familyOf(f.model).cliFlags.includes(flag))
      throw new Error(`--${flag}: only for families that take it (--model gbdt)`)
  const config: SweepConfig = {
    model: f.model,
    table: f.table,
    version: f.version,
    label: f.label,
    ...(f.weight !== undefined ? { weight: f.weight } : {}),
    ...(f['base-margin'] !== undefined ? { baseMargin: f['base-margin'] } : {}),
    ...(f.qid !== undefined ? { qid: f.qid } : {}),
    features: f.features.length ? f.features : undefined,
    filter: f.filter,
    validTable: f['valid-table'],
    validVersion: f['valid-version'],
    validFraction: f['valid-fraction'],
    splitKey: f['split-key'].length ? f['split-key'] : undefined,
    space: f.space ? readSpace(f.space) : undefined,
    strategy: f.strategy as StrategyName,
    trials: f.trials,
    parallel: f.parallel,
    seed: f.seed,
    minResource: f['min-resource'],
    maxResource: f['max-resource'],
    eta: f.eta,
    ...(f.metric !== undefined ? { metric: f.metric } : {}),
    allowOrigins: allowOrigins(f),
    // The page's reads of the table obey --allow-insecure-http as the Node precheck does.
    ...(f['allow-insecure-http'] ? { http: insecureHttp(f) } : {}),
  }
  // Without --metric: the objective's own (plan.ts sweepMetric), so the warm start and the summary name it.
  config.metric = sweepMetric(config)
  if (f['warm-start-study'] !== undefined && !f['warm-start-journal'])
    throw new Error('--warm-start-study: needs --warm-start-journal')
  if (f['warm-start-journal']) {
    const text = readText('--warm-start-journal', f['warm-start-journal'])
    try {
      config.warmStart = warmStartFromJournal(text, config, familyOf(config.model), {
        journal: f['warm-start-journal'],
        study: f['warm-start-study'],
      })
    } catch (e) {
      throw new Error(`--warm-start-journal: ${(e as Error).message}`)
    }
  }
  // An existing --optuna-journal FILE must be a journal now, not after the sweep ran.
  if (f['optuna-journal'] && existsSync(f['optuna-journal'])) {
    try {
      readJournal(readText('--optuna-journal', f['optuna-journal']), f['optuna-journal'])
    } catch (e) {
      throw new Error(`--optuna-journal: ${(e as Error).message}`)
    }
  }
  const plan = planSweep(config)
  if (plan.errors.length) throw new Error(plan.errors.join('; '))
  return config
}

/** A file's text; throws naming the flag and the file. */
function readText(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    throw new Error(
      `${flag}: cannot read ${resolve(path)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    )
  }
}

/** The space file as JSON; throws naming the file. */
function readSpace(path: string): Record<string, unknown> {
  const text = readText('--space', path)
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch (e) {
    throw new Error(`--space: ${resolve(path)} is not valid JSON (${(e as Error).message})`)
  }
}

/** What the page hands back: the final state, its export (with the call log) and the best trial's artifacts. */
export interface PageResult {
  state: SweepState
  exported: string
  best?: TrialArtifacts
}

async function runInPage(
  io: CliIo,
  seconds: number,
  config: SweepConfig,
  cache: ReturnType<typeof applyCacheFlags>,
): Promise<PageResult> {
  const closers: Closers = []
  const shown = progress(io)
  const printed = new Set<number>()
  const result = await withAppPage(
    io,
    seconds,
    closers,
    async page => {
      await configurePageCache(page, cache)
      return page.evaluate<PageResult>(sweepScript(forPage(config, page.url())))
    },
    line => showProgress(shown, config, line, printed),
  ).finally(() => shown.end())
  // The trials whose lines the last events did not settle (the final state decides every rung).
  for (const line of trialLines(result.state, printed)) io.err(line)
  return result
}

/**
 * The page's result with its sweep's tables named by their addresses (sweep.json and the state):
 * the page read them at this process's loopback URLs, whose ports mean nothing after the run.
 */
export function namedSweep(r: PageResult): PageResult {
  const stored = importSweep(r.exported, FAMILY_NAMES)
  return {
    ...r,
    state: { ...r.state, config: namedConfig(r.state.config) },
    exported: exportSweep({ ...stored, config: namedConfig(stored.config) }),
  }
}

function namedConfig({ tableAddress, validTableAddress, ...c }: SweepConfig): SweepConfig {
  return {
    ...c,
    table: tableAddress ?? c.table,
    ...(c.validTable !== undefined ? { validTable: validTableAddress ?? c.validTable } : {}),
  }
}

/**
 * A page event on `shown`: stages (with their fraction), each trial as a line once its state is
 * settled (trialLines; `printed` holds those printed), and on a terminal the count of finished
 * trials (of `--trials` where the strategy has that many), the pruned ones, and the best metric so far.
 */
function showProgress(shown: Progress, config: SweepConfig, json: string, printed: Set<number>): void {
  const e = JSON.parse(json) as SweepEvent
  if (e.kind === 'stage') return shown.stage(`sweep: ${e.message}`, e.fraction)
  if (e.kind !== 'state') return
  const s = e.state
  for (const line of trialLines(s, printed)) shown.line(line)
  const c = stateCounts(trialStates(s, familyOf(s.config.model)))
  const ended = c.complete + c.pruned + c.failed
  const best = s.best ? `, best ${s.best.metric.toFixed(5)} (trial ${s.best.trial})` : ''
  const total = config.trials !== undefined && config.trials >= s.trials.length ? config.trials : undefined
  shown.step(
    ended,
    total,
    `sweep: ${ended}${total === undefined ? '' : `/${total}`} trials done, ${c.running} running, ${c.pruned} pruned${best}`,
  )
}

/**
 * The lines of `state`'s trials not in `printed` whose state is settled (then added to it): ended,
 * and — a Hyperband / BOHB trial below its bracket's last rung — promoted or pruned, so each trial
 * is printed once, with the state Optuna would give it.
 */
export function trialLines(state: SweepState, printed: Set<number>): string[] {
  const family = familyOf(state.config.model)
  const states = trialStates(state, family)
  const promoted = new Set(state.trials.map(t => t.promotedFrom))
  const out: string[] = []
  for (const t of [...state.trials].sort((a, b) => a.id - b.id)) {
    const st = states.get(t.id)!
    if (printed.has(t.id) || st === 'RUNNING' || st === 'WAITING') continue
    const open = st === 'COMPLETE' && hasBrackets(state.config.strategy) && t.rung < t.bracket && !promoted.has(t.id)
    if (open) continue
    printed.add(t.id)
    out.push(trialLine(t, stateWord(st), state, family))
  }
  return out
}

/**
 * One trial as a stderr line: its state word, bracket and rung where the strategy has them (ASHA:
 * the rung reached), the resource reached of requested, the metric, GPU-seconds, the trial it was
 * promoted from, its parameters and any error.
 */
export function trialLine(
  t: TrialRecord,
  word: string,
  state: SweepState,
  family = familyOf(state.config.model),
): string {
  const c = state.config
  const rung = rungReached(t, state, family)
  const where = hasBrackets(c.strategy)
    ? `bracket ${t.bracket} rung ${t.rung} `
    : rung !== undefined
      ? `rung ${rung} `
      : ''
  const metric = t.metric !== undefined ? t.metric.toFixed(5) : '-'
  const params = Object.entries(t.config)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? Number(v.toPrecision(4)) : JSON.stringify(v)}`)
    .join(' ')
  return (
    `[trial ${t.id}] ${word.padEnd(8)} ${where}${family.resource.param} ${t.curve.at(-1)?.resource ?? 0}/${t.resource} ` +
    `${c.metric ?? 'auc'} ${metric} ${t.gpuSeconds.toFixed(2)} GPU-s` +
    `${t.promotedFrom !== undefined ? ` from #${t.promotedFrom}` : ''} ${params}${t.error ? ` error: ${t.error}` : ''}`
  )
}

/** The page call as source text (tsx's keepNames wrappers break functions passed to evaluate). */
export function sweepScript(config: SweepConfig): string {
  return `(async () => {
    const api = window.snaptrain
    const state = await api.sweep(${JSON.stringify(config)}, e => window.__snaptrainProgress(JSON.stringify(e)))
    const exported = await api.exportSweep(state.id)
    const best = state.best ? await api.sweepArtifacts(state.id, state.best.trial) : undefined
    return { state, exported, best }
  })()`
}

/**
 * The stderr line of a stage event (trials: trialLines). Of a stage's progress updates (fraction)
 * only the last (1) is printed: a terminal log needs no bar.
 */
export function progressLine(json: string): string | undefined {
  const e = JSON.parse(json) as SweepEvent
  if (e.kind === 'stage') return e.fraction === undefined || e.fraction === 1 ? `sweep: ${e.message}` : undefined
  return undefined
}

/** The --json summary of a finished state. */
export function sweepSummary(s: SweepState, wallSeconds: number): SweepSummary {
  const c = stateCounts(trialStates(s, familyOf(s.config.model)))
  return {
    best: s.best ? { params: s.best.params, metric: s.best.metric, trial: s.best.trial } : null,
    trials: s.trials.length,
    stopped_early: s.stoppedEarly,
    gpu_seconds: s.gpuSeconds,
    gpu_seconds_full_budget: s.gpuSecondsFullBudget,
    wall_seconds: wallSeconds,
    complete: c.complete,
    pruned: c.pruned,
    failed: c.failed,
    ...(s.config.warmStart
      ? {
          warm_start: {
            journal: s.config.warmStart.journal,
            study: s.config.warmStart.study,
            seeded: s.config.warmStart.trials.length,
            best_value: warmStartBest(s.config.warmStart!, s.config),
          },
        }
      : {}),
  }
}

/**
 * The files of DIR by name: trials.csv (tune/export.ts `trialsCsv`, the function the page's
 * download uses too), sweep.json, optuna-journal.log (tune/optuna.ts `optunaJournal`, the page's
 * download too), and the best trial's model, manifest and continue bundle (continue/*) when there is one.
 */
export function sweepOutputFiles(f: Pick<SweepFlags, 'csv-formula-guard'>, r: PageResult): Record<string, OutputData> {
  const files: Record<string, OutputData> = {
    'trials.csv': trialsCsv(r.state.trials, {
      formulaGuard: f['csv-formula-guard'],
      states: trialStates(r.state, familyOf(r.state.config.model)),
    }),
    'sweep.json': r.exported + '\n',
    [OPTUNA_JOURNAL_FILE]: optunaJournal(r.state, familyOf(r.state.config.model)),
  }
  if (r.best?.model) {
    // A text model (XGBoost JSON) as stored; a binary one travels as base64 (registry textModel).
    const d = familyOf(r.state.config.model)
    files[d.modelFiles[0]!] = d.textModel ? r.best.model : Buffer.from(r.best.model, 'base64')
  }
  if (r.best?.manifest && r.best.model) {
    // The best trial's continue bundle in DIR/continue/, the manifest linked to it (src/continue/sweep-bundle.ts).
    const best = sweepBestFiles(r.state, r.best)
    files['manifest.json'] = best.manifest
    for (const b of best.bundle) files[b.name] = b.data
  } else if (r.best?.manifest) files['manifest.json'] = JSON.stringify(r.best.manifest, null, 2) + '\n'
  return files
}

/**
 * Appends `state` to the Optuna journal `path` (created when missing) under Optuna's own lock
 * (`<path>.lock`, created exclusively: JournalFileOpenLock and JournalFileSymlinkLock both take
 * that name), so an Optuna process writing the same journal never interleaves with us.
 */
async function appendJournal(path: string, state: SweepState): Promise<void> {
  const lock = `${path}.lock`
  for (let wait = 1; ; wait = Math.min(wait * 2, 1000)) {
    try {
      closeSync(openSync(lock, 'wx'))
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new Error(`--optuna-journal: cannot lock ${resolve(lock)} (${(e as Error).message})`)
      await new Promise(done => setTimeout(done, wait))
    }
  }
  try {
    const existing = existsSync(path) ? readFileSync(path, 'utf8') : ''
    appendFileSync(path, optunaJournal(state, familyOf(state.config.model), existing))
  } catch (e) {
    throw new Error(`--optuna-journal ${resolve(path)}: ${(e as Error).message}`)
  } finally {
    unlinkSync(lock)
  }
}

async function writeSweep(io: CliIo, f: SweepFlags, r: PageResult, wallSeconds: number): Promise<void> {
  const dir = resolve(f.out ?? join('runs', `sweep-${fileStamp(new Date().toISOString())}`))
  const files = sweepOutputFiles(f, r)
  const best = files['manifest.json'] ? (JSON.parse(String(files['manifest.json'])) as RunManifest) : undefined
  if (best?.continue_error) io.err(`sweep: continue bundle not written: ${best.continue_error}`)
  // One group: DIR holds the previous run or this whole one, never a mix (out-dir.ts).
  writeOutputs(dir, files)
  if (f['optuna-journal']) await appendJournal(f['optuna-journal'], r.state)
  const s = sweepSummary(r.state, wallSeconds)
  if (s.warm_start)
    io.err(
      `sweep: warm-started from ${s.warm_start.seeded} finished trials of study ${s.warm_start.study} in ${s.warm_start.journal} (best ${r.state.config.metric} ${s.warm_start.best_value.toFixed(5)}: trial 0 ran its configuration)`,
    )
  io.err(
    `sweep: ${r.state.status}: ${strategyLine(r.state, familyOf(r.state.config.model))}; ${s.complete} complete, ${s.pruned} pruned, ${s.failed} failed; best ${s.best ? `trial ${s.best.trial} ${r.state.config.metric} ${s.best.metric.toFixed(5)}` : '-'}; ` +
      `${s.gpu_seconds.toFixed(1)} GPU-s (full budget ${s.gpu_seconds_full_budget.toFixed(1)}), ${wallSeconds.toFixed(1)} s wall; wrote ${dir}`,
  )
  if (f.json) io.out(JSON.stringify(s))
}
