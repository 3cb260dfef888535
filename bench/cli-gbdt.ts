/**
 * Node-side part of `snaptrain bench --suite gbdt`: writes the suite's seeded synthetic tables
 * (the same rows the page generates) as float32 files under bench/tables/gbdt/ and runs the
 * XGBoost hist peer (bench/gbdt_peer.py, 2 threads) on them before the browser starts, so the
 * two never compete for the CPU. Without /usr/bin/python3 + xgboost the peer rows are skipped
 * with a note.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateSynthetic, rowMajor, SYNTHETIC_FEATURES } from '../tools/datagen/synthetic.ts'
import type { GbdtBenchInput, GbdtPeerResult, GbdtSize } from './gbdt-types.ts'
import {
  GBDT_PEER_THREADS,
  GBDT_SIZES,
  GBDT_SIZES_QUICK,
  GBDT_TRAIN_SEED,
  GBDT_VALID_SEED,
  validRows,
} from './gbdt-types.ts'
import { estimateBaseScore } from '../src/models/gbdt/objective.ts'
import type { CliIo } from '../src/cli/io.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'

/** The Python the peer runs with (Debian's python3-xgboost lives there). */
export const PEER_PYTHON = '/usr/bin/python3'

/** Seconds one peer size may take before it is abandoned. */
const PEER_TIMEOUT_S = 300

/** QuantileDMatrix constructions the suite's peer times (bench/gbdt_peer.py; the quality peer times none). */
const QUANTILE_REPEATS = 3

/** Runs the peer for every size of the run; never throws for a missing Python or xgboost. */
export async function prepareGbdtBench(quick: boolean, io: CliIo, root = PROJECT_ROOT): Promise<GbdtBenchInput> {
  const missing = await peerUnavailable()
  if (missing) return { peers: [], peerNote: missing }
  const peers: GbdtPeerResult[] = []
  for (const size of quick ? GBDT_SIZES_QUICK : GBDT_SIZES) {
    const { paths, baseScore } = await writeSynthetic(size, join(root, 'bench', 'tables', 'gbdt'), io)
    io.err(`gbdt: XGBoost hist peer n=${size.rows}, ${size.rounds} rounds, nthread=${GBDT_PEER_THREADS}`)
    const args = [String(SYNTHETIC_FEATURES), String(size.rounds), String(GBDT_PEER_THREADS), baseScore]
    const out = await runPeer([join(root, 'bench', 'gbdt_peer.py'), ...paths, ...args], PEER_TIMEOUT_S, {
      GBDT_PEER_QUANTILE_REPEATS: String(QUANTILE_REPEATS),
    })
    peers.push(parsePeerLine(out))
  }
  return { peers }
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
