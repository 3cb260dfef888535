/**
 * Calls tests/support/xgboost_peer.py (real XGBoost) from the model-format tests: features as
 * raw f32 files, one JSON line back. Only called where runXgboostTests holds.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PYTHON } from '../../support/peers.ts'

const SCRIPT = new URL('../../support/xgboost_peer.py', import.meta.url).pathname

/** A fresh temp folder. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'snaptrain-xgb-'))
}

/** Row-major f32 file of `columns` (F arrays of N values); returns its path. */
function matrixFile(dir: string, columns: Float32Array[]): string {
  const n = columns[0]?.length ?? 0,
    F = columns.length
  const x = new Float32Array(n * F)
  columns.forEach((c, f) => c.forEach((v, i) => (x[i * F + f] = v)))
  const path = join(dir, `x-${Math.random().toString(36).slice(2)}.f32`)
  writeFileSync(path, new Uint8Array(x.buffer))
  return path
}

function call(args: string[]): { margins: number[]; trees?: number } {
  const r = spawnSync(PYTHON, [SCRIPT, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`xgboost_peer.py ${args[0]}: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { margins: number[]; trees?: number }
}

/** XGBoost's margins (output_margin) of the model file at `model` on `columns`. */
export function xgbPredict(model: string, columns: Float32Array[]): number[] {
  const dir = tempDir()
  return call(['predict', model, matrixFile(dir, columns), String(columns[0].length), String(columns.length)]).margins
}

/** Trains in XGBoost and saves `base`.json and `base`.ubj; returns its training margins. */
export function xgbTrain(
  base: string,
  columns: Float32Array[],
  labels: Float32Array,
  types: string[],
  rounds: number,
  params: Record<string, unknown>,
): number[] {
  const dir = tempDir()
  const y = join(dir, 'y.f32')
  writeFileSync(y, new Uint8Array(labels.buffer, labels.byteOffset, labels.byteLength))
  const rows = String(labels.length)
  const x = matrixFile(dir, columns)
  return call([
    'train',
    base,
    x,
    y,
    rows,
    String(columns.length),
    types.join(','),
    String(rounds),
    JSON.stringify(params),
  ]).margins
}

/** Continues the model file `model` in XGBoost (xgb_model) for `rounds`, saving `base`.json / .ubj. */
export function xgbRefine(
  model: string,
  base: string,
  columns: Float32Array[],
  labels: Float32Array,
  rounds: number,
  params: Record<string, unknown>,
): { margins: number[]; trees: number } {
  const dir = tempDir()
  const y = join(dir, 'y.f32')
  writeFileSync(y, new Uint8Array(labels.buffer, labels.byteOffset, labels.byteLength))
  const x = matrixFile(dir, columns)
  const r = call([
    'refine',
    model,
    base,
    x,
    y,
    String(labels.length),
    String(columns.length),
    String(rounds),
    JSON.stringify(params),
  ])
  return { margins: r.margins, trees: r.trees! }
}

/** Largest |a − b| over two margin lists. */
export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]))
  return m
}
