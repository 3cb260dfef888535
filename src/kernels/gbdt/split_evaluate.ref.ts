/**
 * Reference for split_evaluate.wgsl: best split per node over all allowed features × bins × both
 * missing directions, XGBoost hist semantics (src/tree/hist/evaluate_splits.h). Categorical
 * features (featureKind) are split as XGBoost 1.7 does: one category vs the rest (EnumerateOneHot)
 * or, with at least max_cat_to_onehot categories, a partition of the categories sorted by weight
 * (EnumeratePart, both directions, at most max_cat_threshold categories on the scanned side).
 * With monotone constraints or max_delta_step the gain is XGBoost's TreeEvaluator's: children's
 * weights clipped (max_delta_step) and clamped to the node's bounds, gain = Σ −(2Gw + (H + λ)w²),
 * and a split on a monotone feature whose weights break its order is no candidate (gain −∞).
 *
 * M = nodes evaluated, F = features, B = total bins (cutPtrs[F]), S = histogram slots.
 * Gradient sums are exact 64-bit integers (types.ts "Histograms"); this reference holds them as
 * JS numbers, exact while |sum| < 2^53 (N · 2^30 < 2^53, i.e. N < 8.3 M rows per node).
 * The gain is computed in f32 with Math.fround after every operation, in the kernel's order.
 */
import { int64, putInt64 } from './fixed-point.ts'
import type { SplitParams, SplitShape } from './layout.ts'
import {
  CAT_WORDS,
  DEFAULT_MAX_CAT_THRESHOLD,
  FEATURE_KIND_BITS,
  FEATURE_ONE_HOT,
  FEATURE_PARTITION,
  MAX_WEIGHT_BOUND,
  MONOTONE_DECREASING,
  MONOTONE_INCREASING,
  NODE_BOUND_WORDS,
  NO_FEATURE,
  SPLIT_WORDS,
} from './layout.ts'

/**
 * f32 of a 64-bit integer as the kernel computes it: magnitude split into four exact 16-bit
 * pieces (WGSL int→float rounding is implementation-defined; these pieces are exact), summed
 * high to low with correctly rounded f32 adds, sign applied last.
 */
export function int64ToF32(v: number): number {
  const m = Math.abs(v)
  const hi = Math.floor(m / 4294967296),
    lo = m - hi * 4294967296
  const a = Math.fround(Math.floor(hi / 65536) * 281474976710656)
  const b = Math.fround((hi % 65536) * 4294967296)
  const c = Math.fround(Math.floor(lo / 65536) * 65536)
  const d = Math.fround(lo % 65536)
  const r = Math.fround(Math.fround(Math.fround(a + b) + c) + d)
  return v < 0 ? -r : r
}

/** Dequantised f32 of quantised integer sum `q` with scale `scale` (q / scale). */
export function dequantise(q: number, scale: number): number {
  return Math.fround(int64ToF32(q) / Math.fround(scale))
}

/** XGBoost ThresholdL1: soft-thresholds `g` by `alpha` (f32). */
function thresholdL1(g: number, alpha: number): number {
  if (g > alpha) return Math.fround(g - alpha)
  if (g < -alpha) return Math.fround(g + alpha)
  return 0
}

/** XGBoost CalcGainGivenWeight with max_delta_step 0: T(G)² / (H + λ), 0 when H ≤ 0 (f32). */
export function nodeScore(g: number, h: number, p: SplitParams): number {
  if (h <= 0) return 0
  const t = thresholdL1(g, Math.fround(p.alpha))
  return Math.fround(Math.fround(t * t) / Math.fround(h + Math.fround(p.lambda)))
}

/**
 * XGBoost's evaluator CalcWeight (f32): −T(G)/(H + λ), 0 below min_child_weight or without
 * hessian, clipped to ±max_delta_step when set, then clamped to [lower, upper].
 */
export function boundedWeight(g: number, h: number, p: SplitParams, lower: number, upper: number): number {
  let w = 0
  if (!(h < Math.fround(p.minChildWeight) || h <= 0)) {
    w = -Math.fround(thresholdL1(g, Math.fround(p.alpha)) / Math.fround(h + Math.fround(p.lambda)))
    const mds = Math.fround(p.maxDeltaStep ?? 0)
    if (mds !== 0 && Math.abs(w) > mds) w = w < 0 ? -mds : mds
  }
  return Math.min(Math.max(w, lower), upper)
}

/** XGBoost CalcGainGivenWeight (f32, no α term): −(2Gw + (H + λ)w²), 0 when H ≤ 0. */
export function gainGivenWeight(g: number, h: number, w: number, p: SplitParams): number {
  if (h <= 0) return 0
  const a = Math.fround(Math.fround(2 * g) * w),
    b = Math.fround(Math.fround(h + Math.fround(p.lambda)) * Math.fround(w * w))
  return -Math.fround(a + b)
}

/**
 * XGBoost CalcWeight of a bin's dequantised sums (f32), the key categories are sorted by
 * (CalcWeightCat): −T(G)/(H + λ), 0 below min_child_weight or without hessian, clipped to
 * ±max_delta_step when set; never bounded by monotone constraints.
 */
export function categoryWeight(g: number, h: number, p: SplitParams): number {
  return boundedWeight(g, h, p, -MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND)
}

/** Best candidate while scanning one node (gain 0 = none yet, as XGBoost's initial SplitEntry). */
interface Best {
  gain: number
  feature: number
  splitBin: number
  defaultLeft: boolean
  leftG: number
  leftH: number
  /** Categorical split: bitset of the bins going right (CAT_WORDS words); null = numeric. */
  cats: Uint32Array | null
}

/** Node context shared by all candidates of one node (exact totals G, H; f32 parent score). */
interface NodeCtx {
  G: number
  H: number
  parentScore: number
  gScale: number
  hScale: number
  p: SplitParams
  /** XGBoost's weight-based gain (monotone constraints or max_delta_step). */
  byWeight: boolean
  /** Bounds of the children's weights (±MAX_WEIGHT_BOUND unconstrained). */
  lower: number
  upper: number
  /** featureKind words (kind | monotone << 2), or undefined: all numeric, unconstrained. */
  kinds?: Uint32Array
}

/**
 * Offers the candidate with exact left sums (lg, lh) to `best`; true when it replaced it.
 * XGBoost SplitEntry::NeedReplace: a larger gain replaces; an equal gain only from a smaller
 * feature than the best's, so ties keep the smaller feature, then the earlier candidate of its
 * scan — whatever order the features are scanned in (the kernel scans partition features last).
 * `cats`: the right-going bins of a categorical candidate (copied when kept), null for numeric.
 */
function offer(
  best: Best,
  ctx: NodeCtx,
  lg: number,
  lh: number,
  feature: number,
  splitBin: number,
  defaultLeft: boolean,
  cats: Uint32Array | null = null,
): boolean {
  const hl = dequantise(lh, ctx.hScale),
    hr = dequantise(ctx.H - lh, ctx.hScale)
  const mcw = Math.fround(ctx.p.minChildWeight)
  if (!(hl >= mcw && hr >= mcw)) return false
  const gl = dequantise(lg, ctx.gScale),
    gr = dequantise(ctx.G - lg, ctx.gScale)
  let children: number
  if (ctx.byWeight) {
    const wl = boundedWeight(gl, hl, ctx.p, ctx.lower, ctx.upper),
      wr = boundedWeight(gr, hr, ctx.p, ctx.lower, ctx.upper)
    const mono = (ctx.kinds?.[feature] ?? 0) >> 2
    if ((mono === MONOTONE_INCREASING && !(wl <= wr)) || (mono === MONOTONE_DECREASING && !(wl >= wr))) return false
    children = Math.fround(gainGivenWeight(gl, hl, wl, ctx.p) + gainGivenWeight(gr, hr, wr, ctx.p))
  } else children = Math.fround(nodeScore(gl, hl, ctx.p) + nodeScore(gr, hr, ctx.p))
  const gain = Math.fround(children - ctx.parentScore)
  if (!Number.isFinite(gain)) return false
  const tieWins = gain === best.gain && best.feature !== NO_FEATURE && feature < best.feature
  if (!(gain > best.gain) && !tieWins) return false
  Object.assign(best, { gain, feature, splitBin, defaultLeft, leftG: lg, leftH: lh, cats: cats ? cats.slice() : null })
  return true
}

/** Exact [g, h] of bin `bin` (global bin index within a slot) of `hist`. */
function binSums(hist: Uint32Array, bin: number): [number, number] {
  const w = bin * 4
  return [int64(hist[w], hist[w + 1]), int64(hist[w + 2], hist[w + 3])]
}

/** A CAT_WORDS bitset with the given bins set. */
function bitset(bins: Iterable<number>): Uint32Array {
  const bits = new Uint32Array(CAT_WORDS)
  for (const b of bins) bits[b >> 5] = (bits[b >> 5] | (1 << (b & 31))) >>> 0
  return bits
}

/**
 * XGBoost EnumerateOneHot over feature f's n bins: bin i goes right, the rest left, with missing
 * left (defaultLeft) and then with missing right (with the chosen category).
 */
function scanOneHot(hist: Uint32Array, base: number, n: number, f: number, ctx: NodeCtx, best: Best): void {
  let fg = 0,
    fh = 0
  for (let i = 0; i < n; i++) {
    const [g, h] = binSums(hist, base + i)
    fg += g
    fh += h
  }
  const mg = ctx.G - fg,
    mh = ctx.H - fh
  for (let i = 0; i < n; i++) {
    const [g, h] = binSums(hist, base + i),
      cats = bitset([i])
    offer(best, ctx, ctx.G - g, ctx.H - h, f, -1, true, cats)
    offer(best, ctx, ctx.G - g - mg, ctx.H - h - mh, f, -1, false, cats)
  }
}

/**
 * Feature f's bins in ascending category weight, ties by bin (XGBoost's stable sort by
 * CalcWeightCat): position of bin i = how many bins weigh less, or as much with a smaller index —
 * the rank the kernel's invocations compute in parallel.
 */
function sortCategories(hist: Uint32Array, base: number, n: number, ctx: NodeCtx): number[] {
  const w = Array.from({ length: n }, (_, i) => {
    const [g, h] = binSums(hist, base + i)
    return categoryWeight(dequantise(g, ctx.gScale), dequantise(h, ctx.hScale), ctx.p)
  })
  const sorted = new Array<number>(n)
  for (let i = 0; i < n; i++) {
    let rank = 0
    for (let j = 0; j < n; j++) if (w[j] < w[i] || (w[j] === w[i] && j < i)) rank++
    sorted[rank] = i
  }
  return sorted
}

/**
 * XGBoost 1.7 EnumeratePart over feature f's n bins sorted by weight, t = min(max_cat_threshold, n):
 * forward, sorted[0..j] go right (missing left) for j < t − 1; backward, sorted[j..n) go left
 * (missing right) for j > n − t; the right-going set is sorted[0, partition) either way.
 */
function scanPartition(hist: Uint32Array, base: number, n: number, f: number, ctx: NodeCtx, best: Best): void {
  const sorted = sortCategories(hist, base, n, ctx)
  const t = Math.min(ctx.p.maxCatThreshold ?? DEFAULT_MAX_CAT_THRESHOLD, n)
  let partition = 0,
    rg = 0,
    rh = 0
  for (let j = 0; j < t - 1; j++) {
    const [g, h] = binSums(hist, base + sorted[j])
    rg += g
    rh += h
    if (offer(best, ctx, ctx.G - rg, ctx.H - rh, f, -1, true)) partition = j + 1
  }
  let lg = 0,
    lh = 0
  for (let j = n - 1; j > n - t; j--) {
    const [g, h] = binSums(hist, base + sorted[j])
    lg += g
    lh += h
    if (offer(best, ctx, lg, lh, f, -1, false)) partition = j
  }
  if (partition > 0) best.cats = bitset(sorted.slice(0, partition))
}

/**
 * Scans feature f of one node: forward (missing right, bins 0..n−1, splitBin = i) always; backward
 * (missing left, i = n−1..0, splitBin = i − 1, −1 = only missing goes left) only when the bins
 * do not sum to the node total (XGBoost SplitContainsMissingValues, exact here).
 */
function scanFeature(hist: Uint32Array, base: number, n: number, f: number, ctx: NodeCtx, best: Best): void {
  let pg = 0,
    ph = 0
  for (let i = 0; i < n; i++) {
    const w = (base + i) * 4
    pg += int64(hist[w], hist[w + 1])
    ph += int64(hist[w + 2], hist[w + 3])
    offer(best, ctx, pg, ph, f, i, false)
  }
  if (pg === ctx.G && ph === ctx.H) return
  let sg = 0,
    sh = 0
  for (let i = n - 1; i >= 0; i--) {
    const w = (base + i) * 4
    sg += int64(hist[w], hist[w + 1])
    sh += int64(hist[w + 2], hist[w + 3])
    offer(best, ctx, ctx.G - sg, ctx.H - sh, f, i - 1, true)
  }
}

/**
 * Evaluates M nodes. Buffers (kernel bindings, same names and order):
 * - hist: u32 [S × B × 4] [gLo, gHi, hLo, hHi] per (slot, global bin)
 * - cutPtrs: u32 [F + 1]
 * - featureMask: u32 [F] or [M × F] (maskPerNode); non-zero = feature allowed
 * - nodeSlots: u32 [M] histogram slot of each node
 * - nodeSums: u32 [M × 4] exact node totals [gLo, gHi, hLo, hHi] (incl. missing rows); when
 *   p.constrained, followed by [M × NODE_BOUND_WORDS] f32 bounds (layout.ts NODE_BOUND_WORDS)
 * - scales: f32 [4] as quantise writes it: [maxAbsG, maxAbsH, gScale, hScale] (dequantised = q / scale)
 * - out: u32 [M × SPLIT_WORDS] per node: gain (f32 bits, −∞ = none), feature (0xFFFFFFFF = none),
 *   splitBin (i32 bits), defaultLeft, leftG, leftH, rightG, rightH (f32 bits),
 *   left [gLo, gHi, hLo, hHi], right [gLo, gHi, hLo, hHi], categorical, bins going right (8 words),
 *   left and right weight (f32 bits)
 * - featureKind: u32 [F] (binding 8; layout.ts featureKinds: kind | monotone << 2), FEATURE_NUMERIC when absent
 */
export function splitEvaluate(
  hist: Uint32Array,
  cutPtrs: Uint32Array,
  featureMask: Uint32Array,
  nodeSlots: Uint32Array,
  nodeSums: Uint32Array,
  scales: Float32Array,
  out: Uint32Array,
  shape: SplitShape,
  p: SplitParams,
  featureKind?: Uint32Array,
): void {
  const B = cutPtrs[shape.features] ?? 0
  for (let m = 0; m < shape.nodes; m++) {
    const ctx = nodeContext(nodeSums, m, scales, p, shape.nodes, featureKind),
      best = emptyBest()
    for (let f = 0; f < shape.features; f++) {
      if (featureMask[shape.maskPerNode ? m * shape.features + f : f] === 0) continue
      const base = nodeSlots[m] * B + cutPtrs[f],
        n = cutPtrs[f + 1] - cutPtrs[f],
        kind = (featureKind?.[f] ?? 0) & FEATURE_KIND_BITS
      if (kind === FEATURE_ONE_HOT) scanOneHot(hist, base, n, f, ctx, best)
      else if (kind === FEATURE_PARTITION) scanPartition(hist, base, n, f, ctx, best)
      else scanFeature(hist, base, n, f, ctx, best)
    }
    writeResult(out, m, best, ctx)
  }
}

/**
 * Context of node m of M: exact totals from `nodeSums`, scales from `scales` words 2, 3, bounds
 * (when p.constrained) after the M sums, parent score (by weight: its weight clamped to its parent's bounds).
 */
function nodeContext(
  nodeSums: Uint32Array,
  m: number,
  scales: Float32Array,
  p: SplitParams,
  M: number,
  kinds?: Uint32Array,
): NodeCtx {
  const G = int64(nodeSums[m * 4], nodeSums[m * 4 + 1]),
    H = int64(nodeSums[m * 4 + 2], nodeSums[m * 4 + 3])
  const gScale = scales[2],
    hScale = scales[3]
  const b = p.constrained
    ? new Float32Array(nodeSums.buffer, nodeSums.byteOffset + (M * 4 + m * NODE_BOUND_WORDS) * 4, NODE_BOUND_WORDS)
    : [-MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND, -MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND]
  const byWeight = p.constrained === true || (p.maxDeltaStep ?? 0) !== 0
  const g = dequantise(G, gScale),
    h = dequantise(H, hScale)
  const parentScore = byWeight ? gainGivenWeight(g, h, boundedWeight(g, h, p, b[2], b[3]), p) : nodeScore(g, h, p)
  return { G, H, parentScore, gScale, hScale, p, byWeight, lower: b[0], upper: b[1], kinds }
}

/** A Best holding no candidate. */
function emptyBest(): Best {
  return { gain: 0, feature: NO_FEATURE, splitBin: 0, defaultLeft: false, leftG: 0, leftH: 0, cats: null }
}

/** Packs `best` as record m of `out` (SPLIT_WORDS words, layout in `splitEvaluate`). */
function writeResult(out: Uint32Array, m: number, best: Best, ctx: NodeCtx): void {
  const o = m * SPLIT_WORDS
  const f32 = new Float32Array(out.buffer, out.byteOffset + o * 4 + 16, 4)
  out.fill(0, o, o + SPLIT_WORDS)
  if (best.feature === NO_FEATURE) {
    new Float32Array(out.buffer, out.byteOffset + o * 4, 1)[0] = -Infinity
    out[o + 1] = NO_FEATURE
    return
  }
  new Float32Array(out.buffer, out.byteOffset + o * 4, 1)[0] = best.gain
  out[o + 1] = best.feature
  out[o + 2] = best.splitBin >>> 0
  out[o + 3] = best.defaultLeft ? 1 : 0
  f32[0] = dequantise(best.leftG, ctx.gScale)
  f32[1] = dequantise(best.leftH, ctx.hScale)
  f32[2] = dequantise(ctx.G - best.leftG, ctx.gScale)
  f32[3] = dequantise(ctx.H - best.leftH, ctx.hScale)
  putInt64(out, o + 8, best.leftG)
  putInt64(out, o + 10, best.leftH)
  putInt64(out, o + 12, ctx.G - best.leftG)
  putInt64(out, o + 14, ctx.H - best.leftH)
  if (best.cats) {
    out[o + 16] = 1
    out.set(best.cats, o + 17)
  }
  const w = new Float32Array(out.buffer, out.byteOffset + (o + 17 + CAT_WORDS) * 4, 2)
  w[0] = boundedWeight(f32[0], f32[1], ctx.p, ctx.lower, ctx.upper)
  w[1] = boundedWeight(f32[2], f32[3], ctx.p, ctx.lower, ctx.upper)
}
