/**
 * Node-side part of `snaptrain bench --suite gbdt`: writes the suite's seeded synthetic tables
 * (the same rows the page generates) as float32 files under bench/tables/gbdt/ and runs the
 * XGBoost hist peer (bench/gbdt_peer.py, 2 threads) on them before the browser starts, so the
 * two never compete for the CPU. Without /usr/bin/python3 + xgboost the peer rows are skipped
 * with a note. The same rows are also written once as Delta tables (Parquet, git-ignored) and
 * served on a loopback server with CORS, for the `open → first round` row: a run through the
 * run pipeline opens and reads them over HTTP as a user's run does.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateSynthetic, rowMajor, SYNTHETIC_FEATURES } from '../tools/datagen/synthetic.ts'
import type { SyntheticTable } from '../tools/datagen/synthetic.ts'
import { filesFor, rowGroupRowsFor } from '../tools/datagen/clicks.ts'
import { DeltaTableWriter } from '../tools/datagen/delta-writer.ts'
import { splitRange } from '../tools/datagen/frame.ts'
import type { ColumnSpec, Frame } from '../tools/datagen/types.ts'
import type { GbdtBenchInput, GbdtPeerResult, GbdtSize, GbdtTableUrls } from './gbdt-types.ts'
import {
  GBDT_PEER_THREADS,
  GBDT_TABLE_LABEL,
  GBDT_TRAIN_SEED,
  GBDT_VALID_SEED,
  gbdtSizes,
  validRows,
} from './gbdt-types.ts'
import { estimateBaseScore } from '../src/eval/labels.ts'
import type { CliIo } from '../src/cli/io.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'
import { serveDirectory } from '../src/serve/server.ts'

/** The Python the peer runs with (Debian's python3-xgboost lives there). */
export const PEER_PYTHON = '/usr/bin/python3'

/** Seconds one peer size may take before it is abandoned. */
const PEER_TIMEOUT_S = 300

/** QuantileDMatrix constructions the suite's peer times (bench/gbdt_peer.py; the quality peer times none). */
const QUANTILE_REPEATS = 3

/** The suite's Node-side inputs plus the table server to close. */
export interface PreparedGbdtBench {
  input: GbdtBenchInput
  close(): Promise<void>
}

/**
 * Writes (when missing) and serves the Delta tables of every size, then runs the peer for every
 * size; never throws for a missing Python or xgboost (the peer rows are skipped, the tables stay).
 */
export async function prepareGbdtBench(
  quick: boolean,
  io: CliIo,
  rows?: number,
  root = PROJECT_ROOT,
): Promise<PreparedGbdtBench> {
  const sizes = gbdtSizes(quick, rows)
  const dir = join(root, 'bench', 'tables', 'gbdt')
  for (const size of sizes) await writeDeltaTables(size, dir, io)
  const server = await serveDirectory(dir, { cors: true })
  try {
    const tables: GbdtTableUrls[] = sizes.map(({ rows }) => ({
      rows,
      train: `${server.url}${deltaName(rows, GBDT_TRAIN_SEED)}/`,
      valid: `${server.url}${deltaName(validRows(rows), GBDT_VALID_SEED)}/`,
    }))
    return { input: { ...(await runPeers(sizes, dir, io)), tables }, close: () => server.close() }
  } catch (e) {
    await server.close()
    throw e
  }
}

async function runPeers(sizes: readonly GbdtSize[], dir: string, io: CliIo): Promise<GbdtBenchInput> {
  const missing = await peerUnavailable()
  if (missing) return { peers: [], peerNote: missing }
  const peers: GbdtPeerResult[] = []
  for (const size of sizes) {
    const { paths, baseScore } = await writeSynthetic(size, dir, io)
    io.err(`gbdt: XGBoost hist peer n=${size.rows}, ${size.rounds} rounds, nthread=${GBDT_PEER_THREADS}`)
    const args = [String(SYNTHETIC_FEATURES), String(size.rounds), String(GBDT_PEER_THREADS), baseScore]
    const out = await runPeer([join(PROJECT_ROOT, 'bench', 'gbdt_peer.py'), ...paths, ...args], PEER_TIMEOUT_S, {
      GBDT_PEER_QUANTILE_REPEATS: String(QUANTILE_REPEATS),
    })
    peers.push(parsePeerLine(out))
  }
  return { peers }
}

/** Recorded in each Delta table's `_source.json`; bump when the tables' layout changes. */
const DELTA_WRITER = 'snaptrain bench gbdt delta 1'

/** Folder name of the Delta table of `rows` synthetic rows drawn with `seed`. */
export function deltaName(rows: number, seed: number): string {
  return `higgs-like-${rows}-s${seed}`
}

/** Writes the training and validation rows of `size` as Delta tables under `dir`, unless already there. */
async function writeDeltaTables(size: GbdtSize, dir: string, io: CliIo): Promise<void> {
  for (const [rows, seed] of [
    [size.rows, GBDT_TRAIN_SEED],
    [validRows(size.rows), GBDT_VALID_SEED],
  ] as const) {
    const table = join(dir, deltaName(rows, seed))
    const source = { writer: DELTA_WRITER, rows, seed }
    const current = await readFile(join(table, '_source.json'), 'utf8').then(
      t => t.trim() === JSON.stringify(source),
      () => false,
    )
    if (current && existsSync(join(table, '_delta_log'))) continue
    io.err(`gbdt: writing ${rows} synthetic rows (seed ${seed}) as a Delta table to ${table}, once`)
    await writeDelta(generateSynthetic(rows, seed), table, source)
  }
}

/**
 * One version-0 Delta table of float columns (the generator's feature names, NaN → null, then the
 * label), in about 50k-row Parquet files as the clicks table is, written to a temporary folder and
 * renamed into place.
 */
async function writeDelta(t: SyntheticTable, table: string, source: object): Promise<void> {
  const specs: ColumnSpec[] = [
    ...t.featureNames.map(name => ({ name, type: 'float' as const, nullable: true })),
    { name: GBDT_TABLE_LABEL, type: 'float', nullable: false },
  ]
  const n = t.labels.length
  const tmp = `${table}.tmp-${process.pid}`
  await rm(tmp, { recursive: true, force: true })
  try {
    const writer = new DeltaTableWriter(tmp, specs, 0, 'higgs-like', JSON.stringify(source))
    const adds = []
    for (const [start, end] of splitRange(n, filesFor(n))) {
      const columns: Frame['columns'] = { [GBDT_TABLE_LABEL]: t.labels.subarray(start, end) }
      t.featureNames.forEach((name, f) => (columns[name] = t.columns[f].subarray(start, end)))
      adds.push((await writer.writeDataFile({ numRows: end - start, columns }, rowGroupRowsFor(end - start))).add)
    }
    const bytes = adds.reduce((s, a) => s + a.size, 0)
    await writer.commit(
      {
        operation: 'WRITE',
        operationParameters: { mode: 'Overwrite', partitionBy: '[]' },
        operationMetrics: { numFiles: String(adds.length), numOutputRows: String(n), numOutputBytes: String(bytes) },
      },
      adds,
      [],
    )
    await writeFile(join(tmp, '_source.json'), `${JSON.stringify(source)}\n`)
    await rm(table, { recursive: true, force: true })
    await rename(tmp, table)
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
}

/** Why the peer cannot run (missing Python or xgboost), or undefined when it can. */
async function peerUnavailable(): Promise<string | undefined> {
  if (!existsSync(PEER_PYTHON)) return `${PEER_PYTHON} not found`
  try {
    await runPython(['-c', 'import xgboost'], 60)
    return undefined
  } catch {
    return `${PEER_PYTHON} cannot import xgboost (Debian: apt install python3-xgboost)`
  }
}

/**
 * Writes train/valid features and labels of `size` under `dir` (row-major f32, then labels), and
 * returns the 4 paths with our default base_score for the peer (peerBaseScore).
 */
export async function writeSynthetic(
  size: GbdtSize,
  dir: string,
  io: CliIo,
): Promise<{ paths: string[]; baseScore: string }> {
  const stem = (part: string, rows: number, seed: number): string =>
    join(dir, `higgs-like-${rows}-s${seed}.${part}.f32`)
  const nv = validRows(size.rows)
  const paths = [
    stem('x', size.rows, GBDT_TRAIN_SEED),
    stem('y', size.rows, GBDT_TRAIN_SEED),
    stem('x', nv, GBDT_VALID_SEED),
    stem('y', nv, GBDT_VALID_SEED),
  ]
  io.err(`gbdt: writing the synthetic tables (n=${size.rows} + ${nv}) to ${dir}`)
  await mkdir(dir, { recursive: true })
  const train = generateSynthetic(size.rows, GBDT_TRAIN_SEED),
    valid = generateSynthetic(nv, GBDT_VALID_SEED)
  const arrays = [rowMajor(train.columns), train.labels, rowMajor(valid.columns), valid.labels]
  // Little-endian float32 on every platform Node runs WebGPU-capable Chromium on.
  for (let i = 0; i < 4; i++)
    await writeFile(paths[i], new Uint8Array(arrays[i].buffer, arrays[i].byteOffset, arrays[i].byteLength))
  return { paths, baseScore: peerBaseScore(train.labels) }
}

/**
 * Our default base_score (the label mean, as XGBoost ≥ 2 estimates it, rounded to f32) as text for
 * the peer: XGBoost 1.7 would use 0.5 and grow a different first tree from the same data.
 */
export function peerBaseScore(labels: Float32Array): string {
  return String(Math.fround(estimateBaseScore('binary:logistic', labels)))
}

/** The peer's last stdout line as a result; throws naming the peer when it is not one. */
export function parsePeerLine(stdout: string): GbdtPeerResult {
  const line = stdout.trim().split('\n').at(-1) ?? ''
  let r: GbdtPeerResult
  try {
    r = JSON.parse(line) as GbdtPeerResult
  } catch {
    throw new Error(`gbdt peer: expected a JSON line, got '${line.slice(0, 200)}'`)
  }
  if (!Array.isArray(r.roundSeconds) || r.roundSeconds.length === 0 || typeof r.rows !== 'number') {
    throw new Error(`gbdt peer: result without rows/roundSeconds: '${line.slice(0, 200)}'`)
  }
  return r
}

/** Runs `PEER_PYTHON args…` (extra environment variables in `env`) and resolves to its stdout; rejects with its stderr tail. */
export function runPeer(args: string[], timeoutS = PEER_TIMEOUT_S, env: Record<string, string> = {}): Promise<string> {
  return runPython(args, timeoutS, env)
}

function runPython(args: string[], timeoutS = PEER_TIMEOUT_S, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const opts = { timeout: timeoutS * 1000, maxBuffer: 1 << 20, env: { ...process.env, ...env } }
    execFile(PEER_PYTHON, args, opts, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PEER_PYTHON} ${args[0]}: ${err.message}${stderr ? `\n${stderr.slice(-500)}` : ''}`))
      else resolvePromise(stdout)
    })
  })
}
