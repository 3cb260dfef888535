// split_evaluate_scan: best split of every (node, feature) pair by a workgroup-parallel scan:
// invocation i holds bin i; an inclusive Hillis–Steele scan of the exact 64-bit (g, h) pairs gives
// each bin's prefix; invocation i offers the forward candidate (missing right, bin ≤ i left) and,
// when the feature has missing rows in the node, the backward one (missing left, bin ≤ i − 1
// left); a workgroup reduction keeps the best (larger gain; ties: forward before backward, then
// XGBoost's scan order). Same gain maths as split_evaluate.wgsl. split_reduce picks per node.
// M = nodes, F = features, B = total bins. Dispatch: one workgroup per (node, feature),
// linearDispatch(M·F, 1); WG (power of 2) must be ≥ the largest feature's bin count.
// Measured on SwiftShader (64 nodes × 28 features × 256 bins): ~2.6 s against ~50 ms for
// split_evaluate, whose loop needs no barriers; this variant is for real GPUs — pick by measuring.

override WG: u32 = 256u;

struct Params {
  nodes: u32,
  features: u32,
  maskPerNode: u32,
  lambda: f32,
  alpha: f32,
  minChildWeight: f32,
}

const NO_FEATURE: u32 = 0xffffffffu;
const NO_RANK: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read> cutPtrs: array<u32>;
@group(0) @binding(3) var<storage, read> featureMask: array<u32>;
@group(0) @binding(4) var<storage, read> nodeSlots: array<u32>;
@group(0) @binding(5) var<storage, read> nodeSums: array<u32>;
// [maxAbsG, maxAbsH, gScale, hScale] as quantise writes it: dequantised = q / scale.
@group(0) @binding(6) var<storage, read> scales: array<f32>;
// 16 words per (node, feature) record m·F + f, layout in split_evaluate.ref.ts.
@group(0) @binding(7) var<storage, read_write> featureBest: array<u32>;

var<private> nodeG: vec2u;
var<private> nodeH: vec2u;
var<private> parentScore: f32;

// Inclusive prefix sums of bin g and h (64-bit), then the reduction's gain and candidate rank.
var<workgroup> pg: array<vec2u, WG>;
var<workgroup> ph: array<vec2u, WG>;
var<workgroup> wGain: array<f32, WG>;
var<workgroup> wRank: array<u32, WG>;

fn add64(a: vec2u, b: vec2u) -> vec2u {
  let lo = a.x + b.x;
  return vec2u(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2u, b: vec2u) -> vec2u {
  return vec2u(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

// f32 of a signed 64-bit integer from four exact 16-bit pieces of its magnitude (int→float
// rounding is implementation-defined in WGSL; the pieces convert exactly), high to low.
fn to_f32(v: vec2u) -> f32 {
  let neg = (v.y >> 31u) == 1u;
  let m = select(v, sub64(vec2u(0u, 0u), v), neg);
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

// Gain of the candidate with exact left sums (lg, lh); 0 when invalid (never beats "none").
fn candidate_gain(lg: vec2u, lh: vec2u) -> f32 {
  let hl = to_f32(lh) / scales[3];
  let hr = to_f32(sub64(nodeH, lh)) / scales[3];
  if (!(hl >= params.minChildWeight && hr >= params.minChildWeight)) {
    return 0.0;
  }
  let gl = to_f32(lg) / scales[2];
  let gr = to_f32(sub64(nodeG, lg)) / scales[2];
  let gain = (score(gl, hl) + score(gr, hr)) - parentScore;
  // Finite test on the bits (compilers may assume no Inf/NaN in float compares).
  if ((bitcast<u32>(gain) & 0x7f800000u) == 0x7f800000u) {
    return 0.0;
  }
  return gain;
}

// Left sums of the candidate of rank r over n bins: forward r = i → prefix(i); backward
// r = 2n − 1 − i → prefix(i − 1) + missing (g then h).
fn left_sums(r: u32, n: u32, mg: vec2u, mh: vec2u) -> array<vec2u, 2> {
  if (r < n) {
    return array<vec2u, 2>(pg[r], ph[r]);
  }
  let i = 2u * n - 1u - r;
  if (i == 0u) {
    return array<vec2u, 2>(mg, mh);
  }
  return array<vec2u, 2>(add64(pg[i - 1u], mg), add64(ph[i - 1u], mh));
}

fn scan_bins(lid: u32) {
  for (var off = 1u; off < WG; off <<= 1u) {
    var ag = vec2u(0u, 0u);
    var ah = vec2u(0u, 0u);
    if (lid >= off) {
      ag = pg[lid - off];
      ah = ph[lid - off];
    }
    workgroupBarrier();
    pg[lid] = add64(pg[lid], ag);
    ph[lid] = add64(ph[lid], ah);
    workgroupBarrier();
  }
}

fn reduce_best(lid: u32) {
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      let b = lid + stride;
      if (wGain[b] > wGain[lid] || (wGain[b] == wGain[lid] && wRank[b] < wRank[lid])) {
        wGain[lid] = wGain[b];
        wRank[lid] = wRank[b];
      }
    }
    workgroupBarrier();
  }
}

fn write_record(rec: u32, f: u32, n: u32, mg: vec2u, mh: vec2u) {
  let o = rec * 16u;
  if (wRank[0] == NO_RANK) {
    out_none(o);
    return;
  }
  let r = wRank[0];
  let left = left_sums(r, n, mg, mh);
  let rg = sub64(nodeG, left[0]);
  let rh = sub64(nodeH, left[1]);
  featureBest[o] = bitcast<u32>(wGain[0]);
  featureBest[o + 1u] = f;
  featureBest[o + 2u] = bitcast<u32>(select(i32(2u * n - 1u - r) - 1, i32(r), r < n));
  featureBest[o + 3u] = select(1u, 0u, r < n);
  featureBest[o + 4u] = bitcast<u32>(to_f32(left[0]) / scales[2]);
  featureBest[o + 5u] = bitcast<u32>(to_f32(left[1]) / scales[3]);
  featureBest[o + 6u] = bitcast<u32>(to_f32(rg) / scales[2]);
  featureBest[o + 7u] = bitcast<u32>(to_f32(rh) / scales[3]);
  featureBest[o + 8u] = left[0].x; featureBest[o + 9u] = left[0].y;
  featureBest[o + 10u] = left[1].x; featureBest[o + 11u] = left[1].y;
  featureBest[o + 12u] = rg.x; featureBest[o + 13u] = rg.y; featureBest[o + 14u] = rh.x; featureBest[o + 15u] = rh.y;
}

fn out_none(o: u32) {
  featureBest[o] = 0xff800000u;
  featureBest[o + 1u] = NO_FEATURE;
  for (var k = 2u; k < 16u; k++) {
    featureBest[o + k] = 0u;
  }
}

@compute @workgroup_size(WG)
fn split_evaluate_scan(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat (node, feature) record over the folded x·y grid (uniform across the workgroup).
  let rec = wid.y * nwg.x + wid.x;
  if (rec >= params.nodes * params.features) {
    return;
  }
  let m = rec / params.features;
  let f = rec % params.features;
  nodeG = vec2u(nodeSums[m * 4u], nodeSums[m * 4u + 1u]);
  nodeH = vec2u(nodeSums[m * 4u + 2u], nodeSums[m * 4u + 3u]);
  parentScore = score(to_f32(nodeG) / scales[2], to_f32(nodeH) / scales[3]);
  let n = cutPtrs[f + 1u] - cutPtrs[f];
  let allowed = featureMask[select(f, m * params.features + f, params.maskPerNode != 0u)] != 0u;
  let base = nodeSlots[m] * cutPtrs[params.features] + cutPtrs[f];
  pg[lid] = vec2u(0u, 0u);
  ph[lid] = vec2u(0u, 0u);
  if (lid < n) {
    pg[lid] = vec2u(hist[(base + lid) * 4u], hist[(base + lid) * 4u + 1u]);
    ph[lid] = vec2u(hist[(base + lid) * 4u + 2u], hist[(base + lid) * 4u + 3u]);
  }
  workgroupBarrier();
  scan_bins(lid);
  // Missing = node total − Σ bins (exact); the bin sum sits at the last bin's prefix.
  let last = max(n, 1u) - 1u;
  let mg = sub64(nodeG, select(vec2u(0u, 0u), pg[last], n > 0u));
  let mh = sub64(nodeH, select(vec2u(0u, 0u), ph[last], n > 0u));
  let hasMissing = any(mg != vec2u(0u, 0u)) || any(mh != vec2u(0u, 0u));
  var gain = 0.0;
  var rank = NO_RANK;
  if (allowed && lid < n) {
    let fwd = candidate_gain(pg[lid], ph[lid]);
    if (fwd > gain) {
      gain = fwd;
      rank = lid;
    }
    if (hasMissing) {
      let back = left_sums(2u * n - 1u - lid, n, mg, mh);
      let bg = candidate_gain(back[0], back[1]);
      if (bg > gain) {
        gain = bg;
        rank = 2u * n - 1u - lid;
      }
    }
  }
  wGain[lid] = gain;
  wRank[lid] = rank;
  workgroupBarrier();
  reduce_best(lid);
  if (lid == 0u) {
    write_record(rec, f, n, mg, mh);
  }
}
