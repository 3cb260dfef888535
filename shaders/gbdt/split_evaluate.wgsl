// split_evaluate: best split per node over all allowed features × bins × both missing directions,
// XGBoost hist semantics (src/tree/hist/evaluate_splits.h): forward scan (missing right, bin ≤ i
// left) always, backward scan (missing left, bin ≤ i − 1 left) when the feature's bins do not sum
// to the node total; gain = score(L) + score(R) − score(parent), score = T_α(G)² / (H + λ);
// children need H ≥ min_child_weight; ties keep the smaller feature, then the earlier candidate.
// M = nodes, F = features, B = total bins (cutPtrs[F]). Sums are exact 64-bit integers (lo, hi).
// Dispatch: one workgroup per node (linearDispatch(M, 1)); invocation lid scans features
// lid, lid + WG, … sequentially, then the workgroup reduces to one best. WG must be a power of 2.

override WG: u32 = 64u;

struct Params {
  nodes: u32,
  features: u32,
  maskPerNode: u32,
  lambda: f32,
  alpha: f32,
  minChildWeight: f32,
}

const NO_FEATURE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: Params;
// [gLo, gHi, hLo, hHi] per (slot, global bin).
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read> cutPtrs: array<u32>;
// Non-zero = feature allowed; [F], or [M × F] when maskPerNode.
@group(0) @binding(3) var<storage, read> featureMask: array<u32>;
@group(0) @binding(4) var<storage, read> nodeSlots: array<u32>;
// Node totals [gLo, gHi, hLo, hHi], missing rows included.
@group(0) @binding(5) var<storage, read> nodeSums: array<u32>;
// [maxAbsG, maxAbsH, gScale, hScale] as quantise writes it: dequantised = q / scale.
@group(0) @binding(6) var<storage, read> scales: array<f32>;
// 16 words per node, layout at decodeSplit in src/kernels/gbdt/layout.ts.
@group(0) @binding(7) var<storage, read_write> out: array<u32>;

// This node's totals, scales and parent score.
var<private> nodeG: vec2u;
var<private> nodeH: vec2u;
var<private> parentScore: f32;
// This invocation's best candidate so far (gain 0 = none, as XGBoost's initial SplitEntry).
var<private> bGain: f32;
var<private> bFeature: u32;
var<private> bBin: i32;
var<private> bLeft: u32;
var<private> bLG: vec2u;
var<private> bLH: vec2u;

var<workgroup> wGain: array<f32, WG>;
var<workgroup> wFeature: array<u32, WG>;
var<workgroup> wBin: array<i32, WG>;
var<workgroup> wLeft: array<u32, WG>;
var<workgroup> wLG: array<vec2u, WG>;
var<workgroup> wLH: array<vec2u, WG>;

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

fn hist_at(w: u32) -> vec2u {
  return vec2u(hist[w], hist[w + 1u]);
}

// Offers the candidate with exact left sums (lg, lh); strict > keeps the earlier on ties.
fn offer(lg: vec2u, lh: vec2u, f: u32, splitBin: i32, defaultLeft: u32) {
  let hl = to_f32(lh) / scales[3];
  let hr = to_f32(i64_sub(nodeH, lh)) / scales[3];
  if (!(hl >= params.minChildWeight && hr >= params.minChildWeight)) {
    return;
  }
  let gl = to_f32(lg) / scales[2];
  let gr = to_f32(i64_sub(nodeG, lg)) / scales[2];
  let gain = (score(gl, hl) + score(gr, hr)) - parentScore;
  // Finite test on the bits (compilers may assume no Inf/NaN in float compares).
  if ((bitcast<u32>(gain) & 0x7f800000u) == 0x7f800000u || !(gain > bGain)) {
    return;
  }
  bGain = gain; bFeature = f; bBin = splitBin; bLeft = defaultLeft; bLG = lg; bLH = lh;
}

// Forward then (when the feature has missing rows in this node) backward scan of feature f.
fn scan_feature(base: u32, n: u32, f: u32) {
  var pg = vec2u(0u, 0u);
  var ph = vec2u(0u, 0u);
  for (var i = 0u; i < n; i++) {
    pg = i64_add(pg, hist_at((base + i) * 4u));
    ph = i64_add(ph, hist_at((base + i) * 4u + 2u));
    offer(pg, ph, f, i32(i), 0u);
  }
  if (all(pg == nodeG) && all(ph == nodeH)) {
    return;
  }
  var sg = vec2u(0u, 0u);
  var sh = vec2u(0u, 0u);
  for (var i = i32(n) - 1; i >= 0; i--) {
    sg = i64_add(sg, hist_at((base + u32(i)) * 4u));
    sh = i64_add(sh, hist_at((base + u32(i)) * 4u + 2u));
    offer(i64_sub(nodeG, sg), i64_sub(nodeH, sh), f, i - 1, 1u);
  }
}

// True when candidate slot b beats slot a: larger gain, or equal gain and smaller feature.
fn beats(b: u32, a: u32) -> bool {
  return wGain[b] > wGain[a] || (wGain[b] == wGain[a] && wFeature[b] < wFeature[a]);
}

fn write_result(m: u32) {
  let o = m * 16u;
  if (wFeature[0] == NO_FEATURE) {
    out[o] = 0xff800000u;
    out[o + 1u] = NO_FEATURE;
    for (var k = 2u; k < 16u; k++) {
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
  parentScore = score(to_f32(nodeG) / scales[2], to_f32(nodeH) / scales[3]);
  bGain = 0.0; bFeature = NO_FEATURE; bBin = 0; bLeft = 0u;
  bLG = vec2u(0u, 0u); bLH = vec2u(0u, 0u);
  let B = cutPtrs[params.features];
  let maskBase = select(0u, m * params.features, params.maskPerNode != 0u);
  for (var f = lid; f < params.features; f += WG) {
    if (featureMask[maskBase + f] != 0u) {
      scan_feature(nodeSlots[m] * B + cutPtrs[f], cutPtrs[f + 1u] - cutPtrs[f], f);
    }
  }
  wGain[lid] = bGain; wFeature[lid] = bFeature; wBin[lid] = bBin; wLeft[lid] = bLeft;
  wLG[lid] = bLG; wLH[lid] = bLH;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride && beats(lid + stride, lid)) {
      wGain[lid] = wGain[lid + stride]; wFeature[lid] = wFeature[lid + stride]; wBin[lid] = wBin[lid + stride];
      wLeft[lid] = wLeft[lid + stride]; wLG[lid] = wLG[lid + stride]; wLH[lid] = wLH[lid + stride];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    write_result(m);
  }
}
