/**
 * Reference for split_evaluate.wgsl: best split per node over all allowed features × bins × both
 * missing directions, XGBoost hist semantics (src/tree/hist/evaluate_splits.h).
 *
 * M = nodes evaluated, F = features, B = total bins (cutPtrs[F]), S = histogram slots.
 * Gradient sums are exact 64-bit integers (types.ts "Histograms"); this reference holds them as
 * JS numbers, exact while |sum| < 2^53 (N · 2^30 < 2^53, i.e. N < 8.3 M rows per node).
 * The gain is computed in f32 with Math.fround after every operation, in the kernel's order.
 */
import { int64, putInt64 } from './fixed-point.ts'
import type { SplitParams, SplitShape } from './layout.ts'
import { NO_FEATURE, SPLIT_WORDS } from './layout.ts'

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

/** Best candidate while scanning one node (gain 0 = none yet, as XGBoost's initial SplitEntry). */
interface Best {
  gain: number
  feature: number
  splitBin: number
  defaultLeft: boolean
  leftG: number
  leftH: number
}

/** Node context shared by all candidates of one node (exact totals G, H; f32 parent score). */
interface NodeCtx {
  G: number
  H: number
  parentScore: number
  gScale: number
  hScale: number
  p: SplitParams
}

/**
 * Offers the candidate with exact left sums (lg, lh) to `best`. XGBoost SplitEntry::NeedReplace:
 * features are scanned in ascending order and a candidate replaces only on a strictly larger
 * gain, so ties keep the smaller feature, then the earlier candidate of the scan.
 */
function offer(
  best: Best,
  ctx: NodeCtx,
  lg: number,
  lh: number,
  feature: number,
  splitBin: number,
  defaultLeft: boolean,
): void {
  const hl = dequantise(lh, ctx.hScale),
    hr = dequantise(ctx.H - lh, ctx.hScale)
  const mcw = Math.fround(ctx.p.minChildWeight)
  if (!(hl >= mcw && hr >= mcw)) return
  const gl = dequantise(lg, ctx.gScale),
    gr = dequantise(ctx.G - lg, ctx.gScale)
  const children = Math.fround(nodeScore(gl, hl, ctx.p) + nodeScore(gr, hr, ctx.p))
  const gain = Math.fround(children - ctx.parentScore)
  if (!(gain > best.gain) || !Number.isFinite(gain)) return
  Object.assign(best, { gain, feature, splitBin, defaultLeft, leftG: lg, leftH: lh })
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
 * - nodeSums: u32 [M × 4] exact node totals [gLo, gHi, hLo, hHi] (incl. missing rows)
 * - scales: f32 [4] as quantise writes it: [maxAbsG, maxAbsH, gScale, hScale] (dequantised = q / scale)
 * - out: u32 [M × 16] per node: gain (f32 bits, −∞ = none), feature (0xFFFFFFFF = none),
 *   splitBin (i32 bits), defaultLeft, leftG, leftH, rightG, rightH (f32 bits),
 *   left [gLo, gHi, hLo, hHi], right [gLo, gHi, hLo, hHi].
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
): void {
  const B = cutPtrs[shape.features] ?? 0
  for (let m = 0; m < shape.nodes; m++) {
    const ctx = nodeContext(nodeSums, m, scales, p),
      best = emptyBest()
    for (let f = 0; f < shape.features; f++) {
      if (featureMask[shape.maskPerNode ? m * shape.features + f : f] === 0) continue
      scanFeature(hist, nodeSlots[m] * B + cutPtrs[f], cutPtrs[f + 1] - cutPtrs[f], f, ctx, best)
    }
    writeResult(out, m, best, ctx)
  }
}

/** Context of node m: exact totals from `nodeSums`, scales from `scales` words 2, 3, parent score. */
function nodeContext(nodeSums: Uint32Array, m: number, scales: Float32Array, p: SplitParams): NodeCtx {
  const G = int64(nodeSums[m * 4], nodeSums[m * 4 + 1]),
    H = int64(nodeSums[m * 4 + 2], nodeSums[m * 4 + 3])
  const gScale = scales[2],
    hScale = scales[3]
  return { G, H, parentScore: nodeScore(dequantise(G, gScale), dequantise(H, hScale), p), gScale, hScale, p }
}

/** A Best holding no candidate. */
function emptyBest(): Best {
  return { gain: 0, feature: NO_FEATURE, splitBin: 0, defaultLeft: false, leftG: 0, leftH: 0 }
}

/** Packs `best` as record m of `out` (16 words, layout in `splitEvaluate`). */
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
}
