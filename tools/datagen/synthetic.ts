/**
 * Seeded HIGGS-like binary classification data for the `gbdt` bench and the quality table:
 * 28 numeric features (21 "low-level" kinematics of 7 objects — pT, η, φ — and 7 "high-level"
 * pair masses derived from them, as in the UCI HIGGS set), a label drawn from a logistic model
 * with linear terms, interactions and a mass window, and a few missing values (a missing 7th
 * object blanks its 3 features and its mass; 1% of η₄ is missing at random).
 * Pure TypeScript on src/util/rng.ts, so Node (the XGBoost peer's export) and the page produce
 * bit-identical Float32 columns from the same (rows, seed).
 */
import { Rng } from '../../src/util/rng.ts'

/** Objects per row; each contributes pT, η, φ. */
const OBJECTS = 7
/** Object pairs whose invariant-mass-like feature is a high-level column. */
const PAIRS: ReadonlyArray<readonly [number, number]> = [
  [0, 1],
  [0, 2],
  [1, 2],
  [2, 3],
  [3, 4],
  [4, 5],
  [5, 6],
]
/** Probability that object 6 is absent (its 3 features and the (5, 6) mass are NaN). */
const P_MISSING_OBJECT = 0.05
/** Probability that η₄ alone is missing. */
const P_MISSING_ETA4 = 0.01

/** Features per row of the HIGGS-like table. */
export const SYNTHETIC_FEATURES = 3 * OBJECTS + PAIRS.length

/** A generated table, column-major. */
export interface SyntheticTable {
  /** SYNTHETIC_FEATURES Float32Arrays of `rows` values; NaN = missing. */
  columns: Float32Array[]
  /** 0/1 labels, length rows. */
  labels: Float32Array
  /** Column names, e.g. pt_0, eta_0, phi_0, …, m_01. */
  featureNames: string[]
}

/** Names of the columns in order: per object pt_i, eta_i, phi_i, then m_ab per pair. */
export function syntheticFeatureNames(): string[] {
  const low = Array.from({ length: OBJECTS }, (_, i) => [`pt_${i}`, `eta_${i}`, `phi_${i}`]).flat()
  return [...low, ...PAIRS.map(([a, b]) => `m_${a}${b}`)]
}

/**
 * `rows` rows from `seed` (any integer). Throws RangeError for a negative or fractional row count.
 * Every row consumes the same number of random draws, so a row's values depend only on (seed, row).
 */
export function generateSynthetic(rows: number, seed: number): SyntheticTable {
  if (!Number.isInteger(rows) || rows < 0) throw new RangeError(`synthetic: rows must be an integer ≥ 0, got ${rows}`)
  const rng = new Rng(seed)
  const columns = Array.from({ length: SYNTHETIC_FEATURES }, () => new Float32Array(rows))
  const labels = new Float32Array(rows)
  const row = new Float64Array(SYNTHETIC_FEATURES)
  for (let i = 0; i < rows; i++) {
    labels[i] = drawRow(rng, row)
    for (let f = 0; f < SYNTHETIC_FEATURES; f++) columns[f][i] = row[f]
  }
  return { columns, labels, featureNames: syntheticFeatureNames() }
}

/** Fills `row` with one row's features (NaN = missing) and returns its 0/1 label. */
function drawRow(rng: Rng, row: Float64Array): number {
  for (let o = 0; o < OBJECTS; o++) {
    row[3 * o] = Math.exp(0.6 * rng.normal() - 0.1 * o)
    row[3 * o + 1] = 1.2 * rng.normal()
    row[3 * o + 2] = rng.uniform(-Math.PI, Math.PI)
  }
  PAIRS.forEach(([a, b], k) => {
    row[3 * OBJECTS + k] = pairMass(row, a, b)
  })
  const logit = labelLogit(row)
  const missObject = rng.next() < P_MISSING_OBJECT
  const missEta4 = rng.next() < P_MISSING_ETA4
  const label = rng.next() < 1 / (1 + Math.exp(-logit)) ? 1 : 0
  // Missingness is drawn independently of the label but the label is computed from the full row,
  // as in real data where a detector misses an object that still shaped the event.
  if (missObject) {
    row[18] = row[19] = row[20] = row[3 * OBJECTS + 6] = NaN
  }
  if (missEta4) row[13] = NaN
  return label
}

/** sqrt(2 pTa pTb (cosh Δη − cos Δφ)): the massless two-body invariant mass. */
function pairMass(row: Float64Array, a: number, b: number): number {
  const dEta = row[3 * a + 1] - row[3 * b + 1],
    dPhi = row[3 * a + 2] - row[3 * b + 2]
  return Math.sqrt(2 * row[3 * a] * row[3 * b] * (Math.cosh(dEta) - Math.cos(dPhi)))
}

/** Log-odds of label 1: linear terms, an η₀·η₁ interaction, a φ difference and a mass window. */
function labelLogit(row: Float64Array): number {
  const m01 = row[21],
    m23 = row[24]
  const window = m01 > 0.8 && m01 < 1.6 ? 1.2 : 0
  return (
    0.8 * Math.log(row[0]) -
    0.6 * Math.log(row[9]) +
    0.9 * row[1] * row[4] +
    window -
    0.5 * Math.abs(row[7]) +
    0.7 * Math.cos(row[2] - row[5]) +
    0.4 * Math.tanh(m23 - 1) -
    0.3
  )
}

/**
 * Row-major float32 bytes of the features (rows × F, NaN kept) followed by nothing else: the
 * layout `bench/gbdt_peer.py` reads with numpy.fromfile(...).reshape(rows, F).
 */
export function rowMajor(columns: readonly Float32Array[]): Float32Array {
  const F = columns.length,
    n = columns[0]?.length ?? 0
  const out = new Float32Array(n * F)
  for (let f = 0; f < F; f++) {
    const c = columns[f]
    for (let i = 0; i < n; i++) out[i * F + f] = c[i]
  }
  return out
}
