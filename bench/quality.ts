/**
 * `snaptrain quality [--tables marketing,clicks,higgs-like] [--rounds 100] [--markdown] [--json]`:
 * the quality comparison: our validation AUC against XGBoost `tree_method=hist` with
 * identical parameters (binary:logistic, max_depth 6, eta 0.3, max_bin 256, no sampling, seed 0)
 * on exactly the same rows. Tables are read with the GBDT dataset loader on this thread (the same
 * features, categorical codes and seeded 80/20 split as `snaptrain train --valid-fraction 0.2`),
 * ours trains with the CPU reference backend in Node (the executable specification the GPU
 * backend is tested against), XGBoost trains on the rows exported as float32 files, with our
 * base_score passed explicitly (XGBoost 1.7 defaults to 0.5; we estimate it as XGBoost ≥ 2).
 */
import { join } from 'node:path'
import { mkdir, writeFile } from 'node:fs/promises'
import { generateSampleTables } from '../tools/datagen/index.ts'
import { generateSynthetic, rowMajor } from '../tools/datagen/synthetic.ts'
import { GBDT_TRAIN_SEED, GBDT_VALID_SEED } from './gbdt-types.ts'
import { createCpuBackend } from '../src/models/gbdt/cpu-backend.ts'
import { loadDataset } from '../src/models/gbdt/dataset.ts'
import type { TrainData } from '../src/models/gbdt/driver.ts'
import { train } from '../src/models/gbdt/driver.ts'
import { parseParams } from '../src/models/gbdt/params.ts'
import { parsePeerLine, PEER_PYTHON, peerBaseScore, runPeer } from './cli-gbdt.ts'
import type { CliIo } from '../src/cli/io.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'
import { serveDirectory } from '../src/serve/server.ts'

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

const PUBLIC_TABLES = join(PROJECT_ROOT, 'public', 'tables')

const TABLES: Record<
  string,
  { label: string; load: (io: CliIo) => Promise<{ data: TrainData; categorical: number }> }
> = {
  marketing: { label: 'y', load: () => tableData(PUBLIC_TABLES, 'marketing', 'y') },
  'marketing-200k': { label: 'y', load: async io => tableData(await bigMarketing(io), 'marketing', 'y') },
  'higgs-like': { label: 'label', load: async () => synthetic() },
  clicks: { label: 'label', load: () => tableData(PUBLIC_TABLES, 'clicks', 'label') },
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

/** The table through the dataset loader (HTTP on loopback, no workers), 20% validation, seed 0. */
async function tableData(root: string, name: string, label: string): Promise<{ data: TrainData; categorical: number }> {
  const srv = await serveDirectory(root, { cors: true })
  try {
    const ds = await loadDataset({ tableUrl: `${srv.url}${name}/`, label, validFraction: 0.2, seed: 0, workers: 0 })
    return { data: ds.data, categorical: ds.features.filter(f => f.kind === 'categorical').length }
  } finally {
    await srv.close()
  }
}

function synthetic(): { data: TrainData; categorical: number } {
  const t = generateSynthetic(QUALITY_SYNTHETIC_ROWS, GBDT_TRAIN_SEED),
    v = generateSynthetic(QUALITY_SYNTHETIC_ROWS / 4, GBDT_VALID_SEED)
  return {
    data: {
      columns: t.columns,
      labels: t.labels,
      featureNames: t.featureNames,
      valid: { columns: v.columns, labels: v.labels },
    },
    categorical: 0,
  }
}

/** Compares one table: ours (CPU backend) and XGBoost on the same exported rows. */
export async function compareTable(name: string, rounds: number, io: CliIo): Promise<QualityRow> {
  const spec = TABLES[name]
  if (!spec) throw new RangeError(`quality: unknown table '${name}' (tables: ${Object.keys(TABLES).join(', ')})`)
  io.err(`quality: ${name}: loading`)
  const { data, categorical } = await spec.load(io)
  const valid = data.valid!
  const files = await exportRows(name, data)
  io.err(`quality: ${name}: XGBoost hist, ${rounds} rounds`)
  const peer = parsePeerLine(
    await runPeer([
      join(PROJECT_ROOT, 'bench', 'gbdt_peer.py'),
      ...files,
      String(data.columns.length),
      String(rounds),
      '2',
      peerBaseScore(data.labels),
    ]),
  )
  io.err(`quality: ${name}: ours (CPU reference backend), ${rounds} rounds`)
  const params = parseParams({
    objective: 'binary:logistic',
    eval_metric: 'auc',
    max_depth: 6,
    eta: 0.3,
    max_bin: 256,
    num_round: rounds,
    seed: 0,
  })
  const t0 = performance.now()
  const booster = await train(data, params, createCpuBackend)
  const ours = booster.history.at(-1)!.auc
  return {
    table: name,
    label: spec.label,
    rowsTrain: data.labels.length,
    rowsValid: valid.labels.length,
    features: data.columns.length,
    categorical,
    ours,
    xgboost: peer.validAuc,
    delta: ours - peer.validAuc,
    oursBest: best(booster.history.map(h => h.auc)),
    xgboostBest: best(peer.validAucs ?? [peer.validAuc]),
    oursSeconds: (performance.now() - t0) / 1000,
    xgboostVersion: peer.xgboost,
  }
}

/** Writes train/valid features (row-major f32) and labels under bench/tables/quality/; returns the 4 paths. */
async function exportRows(name: string, d: TrainData): Promise<string[]> {
  const dir = join(PROJECT_ROOT, 'bench', 'tables', 'quality')
  await mkdir(dir, { recursive: true })
  const parts: Array<[string, Float32Array]> = [
    ['x', rowMajor(d.columns)],
    ['y', d.labels],
    ['vx', rowMajor(d.valid!.columns)],
    ['vy', d.valid!.labels],
  ]
  const paths: string[] = []
  for (const [part, a] of parts) {
    const p = join(dir, `${name}.${part}.f32`)
    await writeFile(p, new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
    paths.push(p)
  }
  return paths
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

const USAGE = `usage: snaptrain quality [--tables ${Object.keys(TABLES).join(',')}] [--rounds 100] [--json]

Validation AUC of snaptrain (CPU reference backend, in Node) vs XGBoost tree_method=hist
(${PEER_PYTHON}, nthread 2) on the same rows: binary:logistic, max_depth 6, eta 0.3, max_bin 256,
no sampling, seed 0; tables split 80/20 by the seeded per-row split of --valid-fraction 0.2.
Prints a Markdown table; exit 1 when a |Δ| exceeds 0.003.`

/** Runs the command; resolves to the exit code (2 for usage errors, 1 when a |Δ| exceeds 0.003). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let tables = Object.keys(TABLES),
    rounds = 100,
    json = false
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tables') tables = (argv[++i] ?? '').split(',').filter(Boolean)
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
  const unknown = tables.find(t => !Object.hasOwn(TABLES, t))
  if (unknown !== undefined || tables.length === 0) {
    io.err(`snaptrain: quality: unknown table '${unknown ?? ''}' (tables: ${Object.keys(TABLES).join(', ')})\n${USAGE}`)
    return 2
  }
  const rows: QualityRow[] = []
  for (const t of tables) rows.push(await compareTable(t, rounds, io))
  io.out(qualityMarkdown(rows))
  io.out(`XGBoost ${rows[0]?.xgboostVersion ?? '?'} (${PEER_PYTHON}), nthread 2; ours: CPU reference backend`)
  if (json) io.out(JSON.stringify(rows))
  return rows.every(r => Math.abs(r.delta) <= 0.003) ? 0 : 1
}
