/**
 * `snaptrain quality [--tables marketing,clicks,higgs-like] [--rounds 100] [--markdown] [--json]`:
 * the quality comparison: our validation AUC against XGBoost `tree_method=hist` with
 * identical parameters (binary:logistic, max_depth 6, eta 0.3, max_bin 256, no sampling, seed 0)
 * on exactly the same rows. Tables are read with the GBDT dataset loader on this thread (the same
 * features, categorical codes and seeded 80/20 split as `snaptrain train --valid-fraction 0.2`),
 * ours trains with the CPU reference backend in Node (the executable specification the GPU
 * backend is tested against), XGBoost trains on the rows exported as float32 files, with our
 * base_score passed explicitly (XGBoost 1.7 defaults to 0.5; we estimate it as XGBoost ≥ 2).
 *
 * `--categorical` compares the three ways of splitting a categorical feature on both sides, per
 * table: ordinal codes (the codes as numbers), one-hot only (one category against the rest) and
 * XGBoost's default partitions (one-hot up to 4 levels, else the best of the categories sorted by
 * gradient/hessian ratio, at most 64 on one side) — the measurement that picks our default.
 *
 * `--tasks [a,b|all]` compares every task beyond binary AUC instead (bench/quality-tasks.ts).
 */
import { join } from 'node:path'
import { generateSampleTables } from '../tools/datagen/index.ts'
import { generateSynthetic } from '../tools/datagen/synthetic.ts'
import { GBDT_BENCH_PARAMS, GBDT_TRAIN_SEED, GBDT_VALID_SEED } from './gbdt-types.ts'
import { createCpuBackend } from '../src/models/gbdt/cpu-backend.ts'
import type { TrainData } from '../src/eval/dataset.ts'
import { train } from '../src/models/gbdt/driver.ts'
import { parseParams } from '../src/models/gbdt/params.ts'
import type { GbdtParams } from '../src/models/gbdt/types.ts'
import { parsePeerLine, PEER_PYTHON, peerBaseScore, runPeer } from './cli-gbdt.ts'
import type { GbdtPeerResult } from './gbdt-types.ts'
import { PUBLIC_TABLES, publicTable } from './quality-data.ts'
import { exportRows, type Loaded, tableData } from './quality-rows.ts'
import { runTasks, TASKS } from './quality-tasks.ts'
import type { CliIo } from '../src/cli/io.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'

/** Rows of the HIGGS-like quality table (validation: a quarter as many, another seed). */
export const QUALITY_SYNTHETIC_ROWS = 100_000

/** One compared table. */
export interface QualityRow {
  table: string
  label: string
  rowsTrain: number
  rowsValid: number
  features: number
  categorical: number
  ours: number
  xgboost: number
  delta: number
  /** Best validation AUC over the rounds and its 1-based round, ours and XGBoost's. */
  oursBest: [number, number]
  xgboostBest: [number, number]
  oursSeconds: number
  xgboostVersion: string
}

/** Rows and seed of the larger marketing-generator table (a second draw of the same population). */
export const QUALITY_MARKETING_ROWS = 200_000
const QUALITY_MARKETING_SEED = 7

/** The sample tables' folder (`npm run data`). */
const SAMPLE_TABLES = join(PROJECT_ROOT, 'public', 'tables')

/** The public tables with a 0/1 label (the others are --tasks' tables). */
const BINARY_TABLES = Object.fromEntries(
  ['lending_club', 'nycflights', 'mlc_churn', 'ames'].map(name => [name, PUBLIC_TABLES[name]]),
)

const TABLES: Record<string, { label: string; load: (io: CliIo, seed: number) => Promise<Loaded> }> = {
  marketing: { label: 'y', load: (_, seed) => tableData(SAMPLE_TABLES, 'marketing', 'y', seed) },
  'marketing-200k': { label: 'y', load: async (io, seed) => tableData(await bigMarketing(io), 'marketing', 'y', seed) },
  'higgs-like': { label: 'label', load: async () => synthetic() },
  clicks: { label: 'label', load: (_, seed) => tableData(SAMPLE_TABLES, 'clicks', 'label', seed) },
  ...Object.fromEntries(
    Object.entries(BINARY_TABLES).map(([name, t]) => [
      name,
      {
        label: t.label,
        load: async (io: CliIo, seed: number) =>
          tableData(await publicTable(name, s => io.err(`quality: ${s}`)), name, t.label, seed),
      },
    ]),
  ),
}

/** Tables of `--categorical` unless `--tables` is given: every quality table with real categorical columns. */
const CATEGORICAL_TABLES = ['marketing', ...Object.keys(BINARY_TABLES)]

/** The parameters both sides train with (plus the split kind's, CATEGORICAL_MODES): the gbdt suite's. */
const QUALITY_PARAMS = GBDT_BENCH_PARAMS

/** How categorical features are split. */
export type CategoricalMode = 'ordinal' | 'onehot' | 'partition'

/**
 * Our parameters per split kind; XGBoost gets the same max_cat_* (ordinal: the codes typed as
 * numbers). One-hot only: max_cat_to_onehot above every table's level count. Partition: XGBoost's
 * defaults (one-hot below 4 levels, at most 64 categories on one side).
 */
export const CATEGORICAL_MODES: Record<CategoricalMode, Record<string, number | boolean>> = {
  ordinal: { enable_categorical: false },
  onehot: { enable_categorical: true, max_cat_to_onehot: 256 },
  partition: { enable_categorical: true, max_cat_to_onehot: 4, max_cat_threshold: 64 },
}

/** bench/tables/quality-marketing-200000/marketing (seed 7), generated once when missing; returns its parent folder. */
async function bigMarketing(io: CliIo): Promise<string> {
  const outDir = join(PROJECT_ROOT, 'bench', 'tables', `quality-marketing-${QUALITY_MARKETING_ROWS}`)
  await generateSampleTables({
    outDir,
    marketingRows: QUALITY_MARKETING_ROWS,
    seed: QUALITY_MARKETING_SEED,
    tables: ['marketing'],
    ifMissing: true,
    log: s => io.err(`quality: ${s}`),
  })
  return outDir
}

function synthetic(): Loaded {
  const t = generateSynthetic(QUALITY_SYNTHETIC_ROWS, GBDT_TRAIN_SEED),
    v = generateSynthetic(QUALITY_SYNTHETIC_ROWS / 4, GBDT_VALID_SEED)
  return {
    data: {
      columns: t.columns,
      labels: t.labels,
      featureNames: t.featureNames,
      valid: { columns: v.columns, labels: v.labels },
    },
    categorical: [],
  }
}

/** Compares one table: ours (CPU backend) and XGBoost on the same exported rows. */
export async function compareTable(name: string, rounds: number, io: CliIo, seed = 0): Promise<QualityRow> {
  const { spec, data, categorical, files } = await prepare(name, io, seed)
  const valid = data.valid!
  const params = parseParams({ ...QUALITY_PARAMS, num_round: rounds })
  io.err(`quality: ${name}: XGBoost hist, ${rounds} rounds`)
  const peer = await runXgboost(files, data, rounds, nativeSplits(params))
  io.err(`quality: ${name}: ours (CPU reference backend), ${rounds} rounds`)
  const t0 = performance.now()
  const booster = await train(data, params, createCpuBackend)
  const ours = booster.history.at(-1)!.auc
  return {
    table: name,
    label: spec.label,
    rowsTrain: data.labels.length,
    rowsValid: valid.labels.length,
    features: data.columns.length,
    categorical: categorical.length,
    ours,
    xgboost: peer.validAuc,
    delta: ours - peer.validAuc,
    oursBest: best(booster.history.map(h => h.auc)),
    xgboostBest: best(peer.validAucs),
    oursSeconds: (performance.now() - t0) / 1000,
    xgboostVersion: peer.xgboost,
  }
}

/** One split kind on one table, both sides. */
export interface ModeResult {
  ours: number
  xgboost: number
  oursBest: [number, number]
  xgboostBest: [number, number]
  oursSeconds: number
}

/** One table of the categorical comparison. */
export interface CategoricalRow {
  table: string
  label: string
  rowsTrain: number
  rowsValid: number
  features: number
  categorical: Array<{ name: string; levels: number }>
  modes: Record<CategoricalMode, ModeResult>
  xgboostVersion: string
}

/** Compares the three split kinds on one table: ours (CPU backend) and XGBoost on the same rows. */
export async function compareCategorical(name: string, rounds: number, io: CliIo, seed = 0): Promise<CategoricalRow> {
  const { spec, data, categorical, files } = await prepare(name, io, seed)
  const modes = {} as Record<CategoricalMode, ModeResult>
  let version = '?'
  for (const mode of Object.keys(CATEGORICAL_MODES) as CategoricalMode[]) {
    const params = parseParams({ ...QUALITY_PARAMS, ...CATEGORICAL_MODES[mode], num_round: rounds })
    io.err(`quality: ${name}: ${mode}: XGBoost hist, then ours (CPU reference backend), ${rounds} rounds`)
    const peer = await runXgboost(files, data, rounds, nativeSplits(params))
    const t0 = performance.now()
    const aucs = (await train(data, params, createCpuBackend)).history.map(h => h.auc)
    const xgbAucs = peer.validAucs
    modes[mode] = {
      ours: aucs.at(-1)!,
      xgboost: peer.validAuc,
      oursBest: best(aucs),
      xgboostBest: best(xgbAucs),
      oursSeconds: (performance.now() - t0) / 1000,
    }
    version = peer.xgboost
  }
  return {
    table: name,
    label: spec.label,
    rowsTrain: data.labels.length,
    rowsValid: data.valid!.labels.length,
    features: data.columns.length,
    categorical,
    modes,
    xgboostVersion: version,
  }
}

/** The table loaded and its rows exported for the peer. */
async function prepare(
  name: string,
  io: CliIo,
  seed: number,
): Promise<Loaded & { spec: (typeof TABLES)[string]; files: string[] }> {
  const spec = TABLES[name]
  if (!spec) throw new RangeError(`quality: unknown table '${name}' (tables: ${Object.keys(TABLES).join(', ')})`)
  io.err(`quality: ${name}: loading`)
  const loaded = await spec.load(io, seed)
  return { ...loaded, spec, files: await exportRows(`${name}-s${seed}`, loaded.data) }
}

/**
 * XGBoost's categorical settings for our resolved parameters: undefined when we split codes as
 * numbers (XGBoost then sees plain numbers too), else the max_cat_* XGBoost must use.
 */
function nativeSplits(p: GbdtParams): Record<string, number> | undefined {
  if (!p.enable_categorical) return undefined
  return { max_cat_to_onehot: p.max_cat_to_onehot, max_cat_threshold: p.max_cat_threshold }
}

/** XGBoost hist on the exported rows (its validation AUC every round); with `native`, categorical features are typed 'c'. */
async function runXgboost(
  files: string[],
  data: TrainData,
  rounds: number,
  native: Record<string, number> | undefined,
): Promise<GbdtPeerResult & { validAuc: number; validAucs: number[] }> {
  const types = native ? (data.featureTypes ?? []).map(t => (t === 'c' ? 'c' : 'q')).join('') : '-'
  const peer = parsePeerLine(
    await runPeer([
      join(PROJECT_ROOT, 'bench', 'gbdt_peer.py'),
      ...files,
      String(data.columns.length),
      String(rounds),
      '2',
      peerBaseScore(data.labels),
      types || '-',
      JSON.stringify(native ?? {}),
    ]),
  )
  const { validAuc, validAucs } = peer
  if (validAuc === undefined || !validAucs) throw new Error('quality: the XGBoost peer reported no validation AUC')
  return { ...peer, validAuc, validAucs }
}

/** Largest value and its 1-based position. */
export function best(values: readonly number[]): [number, number] {
  let at = 0
  values.forEach((v, i) => {
    if (v > values[at]) at = i
  })
  return [values[at], at + 1]
}

/** The comparison as a Markdown table. */
export function qualityMarkdown(rows: readonly QualityRow[]): string {
  const head =
    '| table (label) | train / valid rows | features (categorical) | snaptrain AUC | XGBoost hist AUC | Δ | within 0.003 | best AUC (round) snaptrain / XGBoost |\n|---|---:|---:|---:|---:|---:|---|---|'
  const f5 = (v: number): string => v.toFixed(5)
  const body = rows.map(
    r =>
      `| ${r.table} (${r.label}) | ${r.rowsTrain} / ${r.rowsValid} | ${r.features} (${r.categorical}) | ${f5(r.ours)} | ${f5(r.xgboost)} | ` +
      `${r.delta >= 0 ? '+' : ''}${f5(r.delta)} | ${Math.abs(r.delta) <= 0.003 ? 'yes' : 'NO'} | ${f5(r.oursBest[0])} (${r.oursBest[1]}) / ${f5(r.xgboostBest[0])} (${r.xgboostBest[1]}) |`,
  )
  return [head, ...body].join('\n')
}

const MODE_NAMES: Record<CategoricalMode, string> = {
  ordinal: 'ordinal codes',
  onehot: 'one-hot only',
  partition: 'partition (XGBoost defaults)',
}

/** Categorical columns by level count, the largest three named: "sub_grade 35, addr_state 50". */
function levelsText(cats: CategoricalRow['categorical']): string {
  const sorted = [...cats].sort((a, b) => b.levels - a.levels)
  const named = sorted.slice(0, 3).map(c => `${c.name} ${c.levels}`)
  const rest = sorted.slice(3)
  return rest.length ? `${named.join(', ')}, +${rest.length} with ≤ ${rest[0].levels}` : named.join(', ')
}

/** The categorical comparison as a Markdown table: one row per table and split kind. */
export function categoricalMarkdown(rows: readonly CategoricalRow[]): string {
  const head =
    '| table (label) | train / valid rows | categorical columns (levels) | split kind | snaptrain AUC | XGBoost hist AUC | Δ | within 0.003 | best AUC (round) snaptrain / XGBoost |\n|---|---:|---|---|---:|---:|---:|---|---|'
  const f5 = (v: number): string => v.toFixed(5)
  const body = rows.flatMap(r =>
    (Object.keys(MODE_NAMES) as CategoricalMode[]).map((mode, i) => {
      const m = r.modes[mode],
        d = m.ours - m.xgboost
      const lead =
        i === 0
          ? `| ${r.table} (${r.label}) | ${r.rowsTrain} / ${r.rowsValid} | ${levelsText(r.categorical)} `
          : '| | | '
      return (
        `${lead}| ${MODE_NAMES[mode]} | ${f5(m.ours)} | ${f5(m.xgboost)} | ${d >= 0 ? '+' : ''}${f5(d)} | ` +
        `${Math.abs(d) <= 0.003 ? 'yes' : 'NO'} | ${f5(m.oursBest[0])} (${m.oursBest[1]}) / ${f5(m.xgboostBest[0])} (${m.xgboostBest[1]}) |`
      )
    }),
  )
  return [head, ...body].join('\n')
}

/**
 * Which split kind wins, per table and across them: for ours and XGBoost, at the last round and at
 * the best round, the kind with the highest validation AUC per table, and the mean AUC over tables.
 */
export function categoricalSummary(rows: readonly CategoricalRow[]): string {
  const modes = Object.keys(MODE_NAMES) as CategoricalMode[]
  const pick: Array<[string, (m: ModeResult) => number]> = [
    ['snaptrain, last round', m => m.ours],
    ['snaptrain, best round', m => m.oursBest[0]],
    ['XGBoost, last round', m => m.xgboost],
    ['XGBoost, best round', m => m.xgboostBest[0]],
  ]
  const head = `| AUC | ${modes.map(m => `${MODE_NAMES[m]}: mean (tables won)`).join(' | ')} |\n|---|${modes.map(() => '---:').join('|')}|`
  const body = pick.map(([what, auc]) => {
    const wins = new Map(modes.map(m => [m, 0]))
    for (const r of rows) {
      const top = modes.reduce((a, b) => (auc(r.modes[b]) > auc(r.modes[a]) ? b : a))
      wins.set(top, wins.get(top)! + 1)
    }
    const mean = (m: CategoricalMode): number => rows.reduce((s, r) => s + auc(r.modes[m]), 0) / rows.length
    return `| ${what} | ${modes.map(m => `${mean(m).toFixed(5)} (${wins.get(m)})`).join(' | ')} |`
  })
  return [head, ...body].join('\n')
}

const USAGE = `usage: snaptrain quality [--tables ${Object.keys(TABLES).join(',')}] [--rounds 100] [--seed 0] [--categorical] [--json]
       snaptrain quality --tasks all|${Object.keys(TASKS).join(',')} [--rounds 100] [--seed 0] [--json]

Validation AUC of snaptrain (CPU reference backend, in Node) vs XGBoost tree_method=hist
(${PEER_PYTHON}, nthread 2) on the same rows: binary:logistic, max_depth 6, eta 0.3, max_bin 256,
no sampling, seed 0; tables split 80/20 by the seeded per-row split of --valid-fraction 0.2
(--seed: that split's seed, default 0; the synthetic table ignores it).
--categorical: each table three times, categorical features as ordinal codes, one-hot-only splits
(max_cat_to_onehot 256) and partition splits (max_cat_to_onehot 4, max_cat_threshold 64), on
both sides (default tables: ${CATEGORICAL_TABLES.join(', ')}).
--tasks: the tasks beyond binary AUC on public tables (multiclass, regression, counts, ranking,
row weights, a monotone constraint), the same parameters on both sides; each validation metric
within 0.005 (AUC, accuracy, NDCG, MAP) or 1 % (losses) of XGBoost's, else exit 1.
Prints a Markdown table; exit 1 when a |Δ| exceeds 0.003.`

/** Runs the command; resolves to the exit code (2 for usage errors, 1 when a |Δ| exceeds 0.003). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let tables = Object.keys(TABLES),
    rounds = 100,
    json = false,
    categorical = false,
    seed = 0,
    tablesGiven = false,
    tasks: string[] | undefined
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tables') {
      tables = (argv[++i] ?? '').split(',').filter(Boolean)
      tablesGiven = true
    } else if (argv[i] === '--tasks') {
      const v = argv[++i] ?? ''
      tasks = v === 'all' ? Object.keys(TASKS) : v.split(',').filter(Boolean)
    } else if (argv[i] === '--categorical') categorical = true
    else if (argv[i] === '--seed') seed = Number(argv[++i])
    else if (argv[i] === '--rounds') rounds = Number(argv[++i])
    else if (argv[i] === '--json') json = true
    else if (argv[i] === '--help' || argv[i] === '-h') {
      io.out(USAGE)
      return 0
    } else {
      io.err(`snaptrain: quality: unknown option '${argv[i]}'`)
      return 2
    }
  }
  if (!(Number.isInteger(rounds) && rounds > 0)) {
    io.err(`snaptrain: quality: --rounds must be a positive integer`)
    return 2
  }
  if (!(Number.isInteger(seed) && seed >= 0)) {
    io.err(`snaptrain: quality: --seed must be a non-negative integer`)
    return 2
  }
  if (tasks) {
    const bad = tasks.find(t => !Object.hasOwn(TASKS, t))
    if (bad !== undefined || tasks.length === 0 || categorical || tablesGiven) {
      const why = bad !== undefined || tasks.length === 0 ? `unknown task '${bad ?? ''}'` : '--tasks goes alone'
      io.err(`snaptrain: quality: ${why} (tasks: all, ${Object.keys(TASKS).join(', ')})\n${USAGE}`)
      return 2
    }
    return runTasks(tasks, rounds, seed, json, io)
  }
  if (categorical && !tablesGiven) tables = CATEGORICAL_TABLES
  const unknown = tables.find(t => !Object.hasOwn(TABLES, t))
  if (unknown !== undefined || tables.length === 0) {
    io.err(`snaptrain: quality: unknown table '${unknown ?? ''}' (tables: ${Object.keys(TABLES).join(', ')})\n${USAGE}`)
    return 2
  }
  if (categorical) return runCategorical(tables, rounds, seed, json, io)
  const rows: QualityRow[] = []
  for (const t of tables) rows.push(await compareTable(t, rounds, io, seed))
  io.out(qualityMarkdown(rows))
  io.out(`XGBoost ${rows[0]?.xgboostVersion ?? '?'} (${PEER_PYTHON}), nthread 2; ours: CPU reference backend`)
  if (json) io.out(JSON.stringify(rows))
  return rows.every(r => Math.abs(r.delta) <= 0.003) ? 0 : 1
}

async function runCategorical(
  tables: string[],
  rounds: number,
  seed: number,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const rows: CategoricalRow[] = []
  for (const t of tables) rows.push(await compareCategorical(t, rounds, io, seed))
  io.out(categoricalMarkdown(rows))
  io.out('')
  io.out(categoricalSummary(rows))
  io.out(`XGBoost ${rows[0]?.xgboostVersion ?? '?'} (${PEER_PYTHON}), nthread 2; ours: CPU reference backend`)
  if (json) io.out(JSON.stringify(rows))
  const deltas = rows.flatMap(r => Object.values(r.modes).map(m => m.ours - m.xgboost))
  return deltas.every(d => Math.abs(d) <= 0.003) ? 0 : 1
}
