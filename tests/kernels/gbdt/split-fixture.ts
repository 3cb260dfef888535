/** Random histograms and the parity comparison shared by the split kernels' tests. */
import { expect } from 'vitest'
import { dequantise, nodeScore, splitEvaluate } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import {
  decodeSplit,
  featureKinds,
  MAX_WEIGHT_BOUND,
  NODE_BOUND_WORDS,
  SPLIT_WORDS,
} from '../../../src/kernels/gbdt/layout.ts'
import { int64, putInt64 } from '../../../src/kernels/gbdt/fixed-point.ts'
import type { SplitParams, SplitShape } from '../../../src/kernels/gbdt/layout.ts'
import { Rng, shuffleInPlace } from '../../../src/util/rng.ts'

/** Inputs of one split_evaluate call, built from rows so every node total is consistent. */
export interface SplitCase {
  hist: Uint32Array<ArrayBuffer>
  cutPtrs: Uint32Array<ArrayBuffer>
  featureMask: Uint32Array<ArrayBuffer>
  nodeSlots: Uint32Array<ArrayBuffer>
  nodeSums: Uint32Array<ArrayBuffer>
  scales: Float32Array<ArrayBuffer>
  /** layout.ts featureKinds of the case's categorical features. */
  featureKind: Uint32Array<ArrayBuffer>
  shape: SplitShape
}

export interface CaseOptions {
  rows: number
  nodes: number
  features: number
  maxBins: number
  /** Fraction of a missing-capable feature's rows that are missing (1 = all missing). */
  missingRate?: number
  maskPerNode?: boolean
  maskRate?: number
  /** Bins per feature (default: feature 0 maxBins, the others random in [1, maxBins]). */
  bins?: number[]
  /** Features split as categories (their bins shuffled against the signal), and max_cat_to_onehot. */
  categorical?: number[]
  maxCatToOnehot?: number
  /** Monotone constraint per feature (1, −1, 0) in featureKind. */
  monotone?: number[]
  /**
   * Random weight bounds per node after the sums (for SplitParams.constrained): the children's
   * [lower, upper] and the wider parent's; some nodes unbounded.
   */
  bounds?: boolean
}

/** Per-bin exact sums per (slot, feature) from `rows` random quantised rows spread over the nodes. */
export function randomCase(seed: number, o: CaseOptions): SplitCase {
  const rng = new Rng(seed)
  const nb = o.bins ?? Array.from({ length: o.features }, (_, f) => (f === 0 ? o.maxBins : 1 + rng.int(o.maxBins)))
  // A categorical feature's codes carry the signal in no particular order: a shuffled bin map.
  const perm = nb.map((n, f) => {
    const p = Array.from({ length: n }, (_, b) => b)
    if (o.categorical?.includes(f)) shuffleInPlace(p, rng)
    return p
  })
  const cutPtrs = new Uint32Array(o.features + 1)
  nb.forEach((n, f) => {
    cutPtrs[f + 1] = cutPtrs[f] + n
  })
  const B = cutPtrs[o.features],
    slots = o.nodes + 1
  // Node m lives in slot (m + 1) % slots: slots are not the node index.
  const nodeSlots = Uint32Array.from({ length: o.nodes }, (_, m) => (m + 1) % slots)
  const g = new Float64Array(slots * B),
    h = new Float64Array(slots * B),
    G = new Float64Array(o.nodes),
    H = new Float64Array(o.nodes)
  const hasMissing = nb.map(() => rng.int(2) === 1)
  for (let i = 0; i < o.rows; i++) {
    const m = rng.int(o.nodes),
      s = nodeSlots[m]
    // Quantised pairs as quantise writes them: |qg| ≤ 2^30, 0 ≤ qh ≤ 2^30; a per-node drift makes gains non-trivial.
    const qg = Math.round((rng.uniform(-1, 1) * 0.7 + ((m % 3) - 1) * 0.3) * 2 ** 30),
      qh = rng.int(2 ** 30)
    G[m] += qg
    H[m] += qh
    for (let f = 0; f < o.features; f++) {
      if (hasMissing[f] && rng.next() < (o.missingRate ?? 0.2)) continue
      // Bin skewed by qg so some features carry signal.
      const bin = perm[f][Math.min(nb[f] - 1, Math.max(0, Math.floor((rng.next() * 0.7 + (qg > 0 ? 0.3 : 0)) * nb[f])))]
      g[s * B + cutPtrs[f] + bin] += qg
      h[s * B + cutPtrs[f] + bin] += qh
    }
  }
  const hist = new Uint32Array(slots * B * 4)
  for (let k = 0; k < slots * B; k++) {
    putInt64(hist, k * 4, g[k])
    putInt64(hist, k * 4 + 2, h[k])
  }
  const nodeSums = new Uint32Array(o.nodes * (o.bounds ? 4 + NODE_BOUND_WORDS : 4))
  for (let m = 0; m < o.nodes; m++) {
    putInt64(nodeSums, m * 4, G[m])
    putInt64(nodeSums, m * 4 + 2, H[m])
  }
  const maskLen = o.maskPerNode ? o.nodes * o.features : o.features
  const featureMask = Uint32Array.from({ length: maskLen }, () => (rng.next() < (o.maskRate ?? 0) ? 0 : 1))
  // Drawn after everything else, so a case with bounds has the same rows and masks as without.
  if (o.bounds) {
    const b = new Float32Array(nodeSums.buffer, o.nodes * 16)
    for (let m = 0; m < o.nodes; m++) {
      const lo = rng.next() < 0.2 ? -MAX_WEIGHT_BOUND : -0.1 - 3 * rng.next(),
        hi = rng.next() < 0.2 ? MAX_WEIGHT_BOUND : 0.1 + 3 * rng.next()
      const wide = rng.next() < 0.3
      b.set([lo, hi, wide ? -MAX_WEIGHT_BOUND : lo - rng.next(), wide ? MAX_WEIGHT_BOUND : hi + rng.next()], m * 4)
    }
  }
  // Power-of-two scales as quantise picks them (here for |g| ≤ 1, |h| ≤ 0.25).
  const scales = Float32Array.from([1, 0.25, 2 ** 30, 2 ** 32])
  const flags = Uint8Array.from({ length: o.features }, (_, f) => (o.categorical?.includes(f) ? 1 : 0))
  return {
    featureKind: featureKinds(cutPtrs, flags, o.maxCatToOnehot ?? 4, o.monotone),
    hist,
    cutPtrs,
    featureMask,
    nodeSlots,
    nodeSums,
    scales,
    shape: { nodes: o.nodes, features: o.features, maskPerNode: o.maskPerNode ? 1 : 0 },
  }
}

/**
 * Best gain among candidates of node m whose left child differs from the chosen one's (in f64):
 * the choice is only compared exactly when this runner-up is > 1e-4 relative below.
 */
function runnerUp(c: SplitCase, m: number, p: SplitParams, chosen: number): number {
  const { cutPtrs, hist } = c,
    B = cutPtrs[c.shape.features]
  const G = int64(c.nodeSums[m * 4], c.nodeSums[m * 4 + 1]),
    H = int64(c.nodeSums[m * 4 + 2], c.nodeSums[m * 4 + 3])
  const [gs, hs] = [c.scales[2], c.scales[3]]
  const score = (g: number, hh: number): number => nodeScore(g / gs, hh / hs, p)
  let best = -Infinity
  const consider = (lg: number, lh: number): void => {
    if (lg === chosen || !(lh / hs >= p.minChildWeight && (H - lh) / hs >= p.minChildWeight)) return
    best = Math.max(best, score(lg, lh) + score(G - lg, H - lh) - score(G, H))
  }
  for (let f = 0; f < c.shape.features; f++) {
    if (c.featureMask[c.shape.maskPerNode ? m * c.shape.features + f : f] === 0) continue
    const bins = Array.from(
      { length: cutPtrs[f + 1] - cutPtrs[f] },
      (_, k) => (c.nodeSlots[m] * B + cutPtrs[f] + k) * 4,
    )
    const mg = G - bins.reduce((s, w) => s + int64(hist[w], hist[w + 1]), 0),
      mh = H - bins.reduce((s, w) => s + int64(hist[w + 2], hist[w + 3]), 0)
    const missing = mg !== 0 || mh !== 0
    // Left = prefix (missing right) or prefix + missing (missing left; the empty prefix too).
    let sg = 0,
      sh = 0
    if (missing) consider(mg, mh)
    for (const w of bins) {
      sg += int64(hist[w], hist[w + 1])
      sh += int64(hist[w + 2], hist[w + 3])
      consider(sg, sh)
      if (missing) consider(sg + mg, sh + mh)
    }
  }
  return best
}

/** Compares kernel output with the reference; returns how many nodes had their choice checked exactly. */
export function compare(gpu: Uint32Array, want: Uint32Array, c: SplitCase, p: SplitParams): number {
  let exact = 0
  for (let m = 0; m < c.shape.nodes; m++) {
    const got = decodeSplit(gpu, m),
      ref = decodeSplit(want, m)
    const G = int64(c.nodeSums[m * 4], c.nodeSums[m * 4 + 1]),
      H = int64(c.nodeSums[m * 4 + 2], c.nodeSums[m * 4 + 3])
    const parent = nodeScore(dequantise(G, c.scales[2]), dequantise(H, c.scales[3]), p)
    const tol = 1e-5 * Math.max(Math.abs(ref.gain), parent, 1e-3)
    if (ref.feature < 0) {
      expect(got.feature, `node ${m}: no split expected`).toBe(-1)
      expect(got.gain).toBe(-Infinity)
      exact++
      continue
    }
    expect(Math.abs(got.gain - ref.gain), `node ${m}: gain ${got.gain} vs ${ref.gain}`).toBeLessThanOrEqual(tol)
    const second = runnerUp(c, m, p, int64(ref.leftSum[0], ref.leftSum[1]))
    if (!(ref.gain - second > 1e-4 * Math.abs(ref.gain))) continue
    exact++
    expect([got.feature, got.splitBin, got.defaultLeft], `node ${m}: split choice`).toEqual([
      ref.feature,
      ref.splitBin,
      ref.defaultLeft,
    ])
    expect(Array.from(gpu.slice(m * SPLIT_WORDS + 8, (m + 1) * SPLIT_WORDS)), `node ${m}: child sums`).toEqual(
      Array.from(want.slice(m * SPLIT_WORDS + 8, (m + 1) * SPLIT_WORDS)),
    )
    for (const k of ['leftG', 'leftH', 'rightG', 'rightH'] as const) {
      expect(Math.abs(got[k] - ref[k]), `node ${m}: ${k}`).toBeLessThanOrEqual(1e-6 * Math.abs(ref[k]))
    }
  }
  return exact
}

/** A GPU path computing split_evaluate's `out` (u32 × M·16) for a case. */
export type SplitRunner = (c: SplitCase, p: SplitParams) => Promise<Uint32Array>

/**
 * Runs `gpu` and the reference on a random case and compares (see `compare`); at least 80 % of
 * the nodes must be checked exactly. Returns the exact count and how many nodes split.
 */
export async function checkSplits(
  seed: number,
  o: CaseOptions,
  p: SplitParams,
  gpu: SplitRunner,
): Promise<{ exact: number; splits: number }> {
  const c = randomCase(seed, o)
  const want = referenceSplits(c, p)
  const exact = compare(await gpu(c, p), want, c, p)
  const splits = Array.from({ length: o.nodes }, (_, m) => decodeSplit(want, m).feature >= 0).filter(Boolean).length
  // The near-tie filter must leave most nodes checked exactly, or the test proves little.
  expect(exact, `exactly checked nodes of ${o.nodes}`).toBeGreaterThanOrEqual(Math.ceil(o.nodes * 0.8))
  return { exact, splits }
}

/** The reference's `out` for a case. */
export function referenceSplits(c: SplitCase, p: SplitParams): Uint32Array {
  const want = new Uint32Array(c.shape.nodes * SPLIT_WORDS)
  splitEvaluate(c.hist, c.cutPtrs, c.featureMask, c.nodeSlots, c.nodeSums, c.scales, want, c.shape, p, c.featureKind)
  return want
}

/**
 * Runs `gpu` and the reference on a random case with categorical features and requires the same
 * records word for word (the category sort and scans are the same f32 operations on both sides).
 * Returns how many nodes split, and how many of those on a categorical feature.
 */
export async function checkSplitsExact(
  seed: number,
  o: CaseOptions,
  p: SplitParams,
  gpu: SplitRunner,
): Promise<{ splits: number; categorical: number }> {
  const c = randomCase(seed, o)
  const want = referenceSplits(c, p),
    got = await gpu(c, p)
  let splits = 0,
    categorical = 0
  for (let m = 0; m < o.nodes; m++) {
    const at = m * SPLIT_WORDS
    expect(Array.from(got.slice(at, at + SPLIT_WORDS)), `node ${m} record`).toEqual(
      Array.from(want.slice(at, at + SPLIT_WORDS)),
    )
    const r = decodeSplit(want, m)
    if (r.feature >= 0) splits++
    if (r.catBins) categorical++
  }
  return { splits, categorical }
}
