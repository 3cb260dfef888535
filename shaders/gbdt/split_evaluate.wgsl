// split_evaluate: best split per node over all allowed features × bins × both missing directions,
// XGBoost hist semantics (src/tree/hist/evaluate_splits.h): forward scan (missing right, bin ≤ i
// left) always, backward scan (missing left, bin ≤ i − 1 left) when the feature's bins do not sum
// to the node total; gain = score(L) + score(R) − score(parent), score = T_α(G)² / (H + λ);
// children need H ≥ min_child_weight; ties keep the smaller feature, then the earlier candidate.
// Categorical features (featureKind, XGBoost 1.7): one-hot — each category alone goes right,
// missing left, then missing right with it; partition — categories sorted by weight −T(G)/(H + λ)
// (ties by bin), sorted[0..j] go right: forward (missing left) and backward (missing right), at
// most max_cat_threshold categories on the scanned side. A categorical result carries the bitset
// of the bins going right.
// With monotone constraints or max_delta_step (weightGain) the gain is XGBoost's TreeEvaluator's:
// children's weights clipped to ±max_delta_step and clamped to the node's bounds, score
// −(2Gw + (H + λ)w²); a split on a monotone feature whose weights break its order is no candidate.
// M = nodes, F = features, B = total bins (cutPtrs[F]). Sums are exact 64-bit integers (lo, hi).
// Dispatch: one workgroup per node (linearDispatch(M, 1)); invocation lid scans the numeric and
// one-hot features lid, lid + WG, … sequentially; then, per partition feature, the workgroup ranks
// its ≤ 256 categories by weight in parallel and invocation f % WG scans them; then the workgroup
// reduces to one best. WG must be a power of 2.

override WG: u32 = 64u;

struct Params {
  nodes: u32,
  features: u32,
  maskPerNode: u32,
  lambda: f32,
  alpha: f32,
  minChildWeight: f32,
  maxCatThreshold: u32,
  maxDeltaStep: f32,
  // 1: XGBoost's weight-based gain (monotone constraints or max_delta_step).
  weightGain: u32,
  // 1: nodeSums carries NODE_BOUND_WORDS f32 bounds per node after the M node sums.
  constrained: u32,
}

const NO_FEATURE: u32 = 0xffffffffu;
// layout.ts SPLIT_WORDS, CAT_WORDS, NODE_BOUND_WORDS, MAX_WEIGHT_BOUND; featureKind values
// FEATURE_ONE_HOT, FEATURE_PARTITION (bits FEATURE_KIND_BITS), MONOTONE_INCREASING / _DECREASING << 2.
const SPLIT_WORDS: u32 = 27u;
const CAT_WORDS: u32 = 8u;
const NODE_BOUND_WORDS: u32 = 4u;
const MAX_WEIGHT_BOUND: f32 = 0x1.fffffep+127f;
const MAX_CATS: u32 = 256u;
const ONE_HOT: u32 = 1u;
const PARTITION: u32 = 2u;
const KIND_BITS: u32 = 3u;
const INCREASING: u32 = 1u;
const DECREASING: u32 = 2u;

@group(0) @binding(0) var<uniform> params: Params;
// [gLo, gHi, hLo, hHi] per (slot, global bin).
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read> cutPtrs: array<u32>;
// Non-zero = feature allowed; [F], or [M × F] when maskPerNode.
@group(0) @binding(3) var<storage, read> featureMask: array<u32>;
@group(0) @binding(4) var<storage, read> nodeSlots: array<u32>;
// Node totals [gLo, gHi, hLo, hHi], missing rows included; when constrained, then per node f32
// bits [lower, upper] of its children's weights and [lower, upper] of its own (its parent's).
@group(0) @binding(5) var<storage, read> nodeSums: array<u32>;
// [maxAbsG, maxAbsH, gScale, hScale] as quantise writes it: dequantised = q / scale.
@group(0) @binding(6) var<storage, read> scales: array<f32>;
// SPLIT_WORDS words per node, layout at decodeSplit in src/kernels/gbdt/layout.ts.
@group(0) @binding(7) var<storage, read_write> out: array<u32>;
// Per feature: 0 numeric, ONE_HOT, PARTITION, | monotone << 2 (layout.ts featureKinds).
@group(0) @binding(8) var<storage, read> featureKind: array<u32>;

// This node's totals, scales and parent score.
var<private> nodeG: vec2u;
var<private> nodeH: vec2u;
var<private> parentScore: f32;
// Bounds of this node's children's weights.
var<private> nodeLower: f32;
var<private> nodeUpper: f32;
// This invocation's best candidate so far (gain 0 = none, as XGBoost's initial SplitEntry).
var<private> bGain: f32;
var<private> bFeature: u32;
var<private> bBin: i32;
var<private> bLeft: u32;
var<private> bLG: vec2u;
var<private> bLH: vec2u;
// 1 when the best is categorical; then bBits holds the bins going right.
var<private> bCat: u32;
var<private> bBits: array<u32, CAT_WORDS>;

var<workgroup> wGain: array<f32, WG>;
var<workgroup> wFeature: array<u32, WG>;
var<workgroup> wBin: array<i32, WG>;
var<workgroup> wLeft: array<u32, WG>;
var<workgroup> wLG: array<vec2u, WG>;
var<workgroup> wLH: array<vec2u, WG>;
var<workgroup> wCat: array<u32, WG>;
var<workgroup> wBits: array<u32, WG * CAT_WORDS>;
// The partition feature being scanned: each bin's weight, then the bins in ascending weight.
var<workgroup> wWeight: array<f32, MAX_CATS>;
var<workgroup> wSorted: array<u32, MAX_CATS>;

// f32 of a signed 64-bit integer from four exact 16-bit pieces of its magnitude (int→float
// rounding is implementation-defined in WGSL; the pieces convert exactly), high to low.
fn to_f32(v: vec2u) -> f32 {
  let neg = (v.y >> 31u) == 1u;
  let m = select(v, i64_sub(vec2u(0u, 0u), v), neg);
  let a = f32(m.y >> 16u) * 281474976710656.0;
  let b = f32(m.y & 0xffffu) * 4294967296.0;
  let c = f32(m.x >> 16u) * 65536.0;
  let d = f32(m.x & 0xffffu);
  let r = ((a + b) + c) + d;
  return select(r, -r, neg);
}

fn threshold_l1(g: f32) -> f32 {
  if (g > params.alpha) {
    return g - params.alpha;
  }
  if (g < -params.alpha) {
    return g + params.alpha;
  }
  return 0.0;
}

// XGBoost CalcGainGivenWeight with max_delta_step 0.
fn score(g: f32, h: f32) -> f32 {
  if (h <= 0.0) {
    return 0.0;
  }
  let t = threshold_l1(g);
  return (t * t) / (h + params.lambda);
}

// XGBoost's evaluator CalcWeight: −T(G)/(H + λ), 0 below min_child_weight or without hessian,
// clipped to ±max_delta_step when set, clamped to [lo, hi].
fn bounded_weight(g: f32, h: f32, lo: f32, hi: f32) -> f32 {
  var w = 0.0;
  if (!(h < params.minChildWeight || h <= 0.0)) {
    w = -(threshold_l1(g) / (h + params.lambda));
    if (params.maxDeltaStep != 0.0 && abs(w) > params.maxDeltaStep) {
      w = select(params.maxDeltaStep, -params.maxDeltaStep, w < 0.0);
    }
  }
  if (w < lo) {
    return lo;
  }
  if (w > hi) {
    return hi;
  }
  return w;
}

// XGBoost CalcGainGivenWeight (no α term): −(2Gw + (H + λ)w²).
fn gain_given_weight(g: f32, h: f32, w: f32) -> f32 {
  if (h <= 0.0) {
    return 0.0;
  }
  return -(((2.0 * g) * w) + ((h + params.lambda) * (w * w)));
}

fn hist_at(w: u32) -> vec2u {
  return vec2u(hist[w], hist[w + 1u]);
}

// Offers the candidate with exact left sums (lg, lh); true when it became the best. XGBoost
// NeedReplace: a larger gain wins; an equal gain only from a smaller feature than the best's (so
// the order features are scanned in does not matter); within a feature the earlier one stays.
// A replacing candidate is numeric (bCat 0); a categorical caller sets bCat and bBits after.
fn offer(lg: vec2u, lh: vec2u, f: u32, splitBin: i32, defaultLeft: u32) -> bool {
  let hl = to_f32(lh) / scales[3];
  let hr = to_f32(i64_sub(nodeH, lh)) / scales[3];
  if (!(hl >= params.minChildWeight && hr >= params.minChildWeight)) {
    return false;
  }
  let gl = to_f32(lg) / scales[2];
  let gr = to_f32(i64_sub(nodeG, lg)) / scales[2];
  var children: f32;
  if (params.weightGain != 0u) {
    let wl = bounded_weight(gl, hl, nodeLower, nodeUpper);
    let wr = bounded_weight(gr, hr, nodeLower, nodeUpper);
    let mono = featureKind[f] >> 2u;
    if ((mono == INCREASING && !(wl <= wr)) || (mono == DECREASING && !(wl >= wr))) {
      return false;
    }
    children = gain_given_weight(gl, hl, wl) + gain_given_weight(gr, hr, wr);
  } else {
    children = score(gl, hl) + score(gr, hr);
  }
  let gain = children - parentScore;
  // Finite test on the bits (compilers may assume no Inf/NaN in float compares).
  if ((bitcast<u32>(gain) & 0x7f800000u) == 0x7f800000u) {
    return false;
  }
  let tieWins = gain == bGain && bFeature != NO_FEATURE && f < bFeature;
  if (!(gain > bGain) && !tieWins) {
    return false;
  }
  bGain = gain; bFeature = f; bBin = splitBin; bLeft = defaultLeft; bLG = lg; bLH = lh; bCat = 0u;
  return true;
}

// The best becomes categorical with only bin `bin` going right.
fn set_one_bin(bin: u32) {
  bCat = 1u;
  for (var k = 0u; k < CAT_WORDS; k++) {
    bBits[k] = 0u;
  }
  bBits[bin >> 5u] = 1u << (bin & 31u);
}

// XGBoost EnumerateOneHot: bin i alone goes right, missing left, then missing right with it.
fn scan_one_hot(base: u32, n: u32, f: u32) {
  var fg = vec2u(0u, 0u);
  var fh = vec2u(0u, 0u);
  for (var i = 0u; i < n; i++) {
    fg = i64_add(fg, hist_at((base + i) * 4u));
    fh = i64_add(fh, hist_at((base + i) * 4u + 2u));
  }
  let mg = i64_sub(nodeG, fg);
  let mh = i64_sub(nodeH, fh);
  for (var i = 0u; i < n; i++) {
    let g = hist_at((base + i) * 4u);
    let h = hist_at((base + i) * 4u + 2u);
    if (offer(i64_sub(nodeG, g), i64_sub(nodeH, h), f, -1, 1u)) {
      set_one_bin(i);
    }
    if (offer(i64_sub(i64_sub(nodeG, g), mg), i64_sub(i64_sub(nodeH, h), mh), f, -1, 0u)) {
      set_one_bin(i);
    }
  }
}

// XGBoost CalcWeight of a bin (CalcWeightCat, the sort key): −T(G)/(H + λ), 0 below
// min_child_weight or without hessian, clipped to ±max_delta_step; never monotone-bounded.
fn category_weight(bin: u32) -> f32 {
  let g = to_f32(hist_at(bin * 4u)) / scales[2];
  let h = to_f32(hist_at(bin * 4u + 2u)) / scales[3];
  return bounded_weight(g, h, -MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND);
}

// Workgroup-wide: wSorted[0..n) = feature's bins in ascending weight, ties by bin (the stable
// sort XGBoost does): bin i's position is how many bins weigh less, or as much with a lower index.
fn sort_categories(base: u32, n: u32, lid: u32) {
  for (var i = lid; i < n; i += WG) {
    wWeight[i] = category_weight(base + i);
  }
  workgroupBarrier();
  for (var i = lid; i < n; i += WG) {
    let w = wWeight[i];
    var rank = 0u;
    for (var j = 0u; j < n; j++) {
      let v = wWeight[j];
      if (v < w || (v == w && j < i)) {
        rank++;
      }
    }
    wSorted[rank] = i;
  }
  workgroupBarrier();
}

// XGBoost 1.7 EnumeratePart over wSorted, t = min(max_cat_threshold, n): forward, sorted[0..j]
// right (missing left), j < t − 1; backward, sorted[j..n) left (missing right), j > n − t. The
// right-going set is sorted[0, size).
fn scan_partition(base: u32, n: u32, f: u32) {
  let t = i32(min(params.maxCatThreshold, n));
  var size = 0;
  var rg = vec2u(0u, 0u);
  var rh = vec2u(0u, 0u);
  for (var j = 0; j < t - 1; j++) {
    let b = base + wSorted[j];
    rg = i64_add(rg, hist_at(b * 4u));
    rh = i64_add(rh, hist_at(b * 4u + 2u));
    if (offer(i64_sub(nodeG, rg), i64_sub(nodeH, rh), f, -1, 1u)) {
      size = j + 1;
    }
  }
  var lg = vec2u(0u, 0u);
  var lh = vec2u(0u, 0u);
  for (var j = i32(n) - 1; j > i32(n) - t; j--) {
    let b = base + wSorted[j];
    lg = i64_add(lg, hist_at(b * 4u));
    lh = i64_add(lh, hist_at(b * 4u + 2u));
    if (offer(lg, lh, f, -1, 0u)) {
      size = j;
    }
  }
  if (size > 0) {
    bCat = 1u;
    for (var k = 0u; k < CAT_WORDS; k++) {
      bBits[k] = 0u;
    }
    for (var j = 0; j < size; j++) {
      let c = wSorted[j];
      bBits[c >> 5u] |= 1u << (c & 31u);
    }
  }
}

// Forward then (when the feature has missing rows in this node) backward scan of feature f.
fn scan_feature(base: u32, n: u32, f: u32) {
  var pg = vec2u(0u, 0u);
  var ph = vec2u(0u, 0u);
  for (var i = 0u; i < n; i++) {
    pg = i64_add(pg, hist_at((base + i) * 4u));
    ph = i64_add(ph, hist_at((base + i) * 4u + 2u));
    _ = offer(pg, ph, f, i32(i), 0u);
  }
  if (all(pg == nodeG) && all(ph == nodeH)) {
    return;
  }
  var sg = vec2u(0u, 0u);
  var sh = vec2u(0u, 0u);
  for (var i = i32(n) - 1; i >= 0; i--) {
    sg = i64_add(sg, hist_at((base + u32(i)) * 4u));
    sh = i64_add(sh, hist_at((base + u32(i)) * 4u + 2u));
    _ = offer(i64_sub(nodeG, sg), i64_sub(nodeH, sh), f, i - 1, 1u);
  }
}

// True when candidate slot b beats slot a: larger gain, or equal gain and smaller feature.
fn beats(b: u32, a: u32) -> bool {
  return wGain[b] > wGain[a] || (wGain[b] == wGain[a] && wFeature[b] < wFeature[a]);
}

fn write_result(m: u32) {
  let o = m * SPLIT_WORDS;
  if (wFeature[0] == NO_FEATURE) {
    out[o] = 0xff800000u;
    out[o + 1u] = NO_FEATURE;
    for (var k = 2u; k < SPLIT_WORDS; k++) {
      out[o + k] = 0u;
    }
    return;
  }
  let rg = i64_sub(nodeG, wLG[0]);
  let rh = i64_sub(nodeH, wLH[0]);
  out[o] = bitcast<u32>(wGain[0]);
  out[o + 1u] = wFeature[0];
  out[o + 2u] = bitcast<u32>(wBin[0]);
  out[o + 3u] = wLeft[0];
  out[o + 4u] = bitcast<u32>(to_f32(wLG[0]) / scales[2]);
  out[o + 5u] = bitcast<u32>(to_f32(wLH[0]) / scales[3]);
  out[o + 6u] = bitcast<u32>(to_f32(rg) / scales[2]);
  out[o + 7u] = bitcast<u32>(to_f32(rh) / scales[3]);
  out[o + 8u] = wLG[0].x; out[o + 9u] = wLG[0].y; out[o + 10u] = wLH[0].x; out[o + 11u] = wLH[0].y;
  out[o + 12u] = rg.x; out[o + 13u] = rg.y; out[o + 14u] = rh.x; out[o + 15u] = rh.y;
  out[o + 16u] = wCat[0];
  for (var k = 0u; k < CAT_WORDS; k++) {
    out[o + 17u + k] = select(0u, wBits[k], wCat[0] != 0u);
  }
  let gl = bitcast<f32>(out[o + 4u]);
  let hl = bitcast<f32>(out[o + 5u]);
  let gr = bitcast<f32>(out[o + 6u]);
  let hr = bitcast<f32>(out[o + 7u]);
  out[o + 17u + CAT_WORDS] = bitcast<u32>(bounded_weight(gl, hl, nodeLower, nodeUpper));
  out[o + 18u + CAT_WORDS] = bitcast<u32>(bounded_weight(gr, hr, nodeLower, nodeUpper));
}

// Copies reduction slot `src` into slot `to`.
fn take(to: u32, src: u32) {
  wGain[to] = wGain[src]; wFeature[to] = wFeature[src]; wBin[to] = wBin[src];
  wLeft[to] = wLeft[src]; wLG[to] = wLG[src]; wLH[to] = wLH[src]; wCat[to] = wCat[src];
  for (var k = 0u; k < CAT_WORDS; k++) {
    wBits[to * CAT_WORDS + k] = wBits[src * CAT_WORDS + k];
  }
}

@compute @workgroup_size(WG)
fn split_evaluate(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat node index over the folded x·y grid (uniform across the workgroup).
  let m = workgroup_index(wid, nwg);
  if (m >= params.nodes) {
    return;
  }
  nodeG = vec2u(nodeSums[m * 4u], nodeSums[m * 4u + 1u]);
  nodeH = vec2u(nodeSums[m * 4u + 2u], nodeSums[m * 4u + 3u]);
  let g = to_f32(nodeG) / scales[2];
  let h = to_f32(nodeH) / scales[3];
  nodeLower = -MAX_WEIGHT_BOUND;
  nodeUpper = MAX_WEIGHT_BOUND;
  var parentLower = -MAX_WEIGHT_BOUND;
  var parentUpper = MAX_WEIGHT_BOUND;
  if (params.constrained != 0u) {
    let b = params.nodes * 4u + m * NODE_BOUND_WORDS;
    nodeLower = bitcast<f32>(nodeSums[b]);
    nodeUpper = bitcast<f32>(nodeSums[b + 1u]);
    parentLower = bitcast<f32>(nodeSums[b + 2u]);
    parentUpper = bitcast<f32>(nodeSums[b + 3u]);
  }
  if (params.weightGain != 0u) {
    parentScore = gain_given_weight(g, h, bounded_weight(g, h, parentLower, parentUpper));
  } else {
    parentScore = score(g, h);
  }
  bGain = 0.0; bFeature = NO_FEATURE; bBin = 0; bLeft = 0u;
  bLG = vec2u(0u, 0u); bLH = vec2u(0u, 0u); bCat = 0u;
  let B = cutPtrs[params.features];
  let maskBase = select(0u, m * params.features, params.maskPerNode != 0u);
  for (var f = lid; f < params.features; f += WG) {
    if (featureMask[maskBase + f] != 0u) {
      let kind = featureKind[f] & KIND_BITS;
      let base = nodeSlots[m] * B + cutPtrs[f];
      if (kind == ONE_HOT) {
        scan_one_hot(base, cutPtrs[f + 1u] - cutPtrs[f], f);
      } else if (kind != PARTITION) {
        scan_feature(base, cutPtrs[f + 1u] - cutPtrs[f], f);
      }
    }
  }
  // Partition features one at a time (uniform loop: the mask, kinds and cuts are the same for
  // the whole workgroup): sort together, scan by the feature's invocation.
  for (var f = 0u; f < params.features; f++) {
    if (featureMask[maskBase + f] != 0u && (featureKind[f] & KIND_BITS) == PARTITION) {
      let base = nodeSlots[m] * B + cutPtrs[f];
      let n = min(cutPtrs[f + 1u] - cutPtrs[f], MAX_CATS);
      sort_categories(base, n, lid);
      if (lid == f % WG) {
        scan_partition(base, n, f);
      }
      workgroupBarrier();
    }
  }
  wGain[lid] = bGain; wFeature[lid] = bFeature; wBin[lid] = bBin; wLeft[lid] = bLeft;
  wLG[lid] = bLG; wLH[lid] = bLH; wCat[lid] = bCat;
  for (var k = 0u; k < CAT_WORDS; k++) {
    wBits[lid * CAT_WORDS + k] = bBits[k];
  }
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride && beats(lid + stride, lid)) {
      take(lid, lid + stride);
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    write_result(m);
  }
}
