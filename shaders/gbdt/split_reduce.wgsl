// split_reduce: per node, the best of its F per-feature records from split_evaluate_scan: larger
// gain wins, equal gains keep the smaller feature (XGBoost SplitEntry::NeedReplace); no valid
// record → the "no split" record (gain −∞, feature 0xFFFFFFFF). M = nodes, F = features.
// Dispatch: linearDispatch(M, WG), one node per invocation scanning features in order.

override WG: u32 = 64u;

struct Params {
  nodes: u32,
  features: u32,
}

const NO_FEATURE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: Params;
// 16 words per (node, feature) record m·F + f (split_evaluate.ref.ts layout).
@group(0) @binding(1) var<storage, read> featureBest: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn split_reduce(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat node index over the folded x·y grid.
  let m = (wid.y * nwg.x + wid.x) * WG + lid;
  if (m >= params.nodes) {
    return;
  }
  var best = NO_FEATURE;
  for (var f = 0u; f < params.features; f++) {
    let r = (m * params.features + f) * 16u;
    if (featureBest[r + 1u] == NO_FEATURE) {
      continue;
    }
    if (best == NO_FEATURE || bitcast<f32>(featureBest[r]) > bitcast<f32>(featureBest[best])) {
      best = r;
    }
  }
  let o = m * 16u;
  for (var k = 0u; k < 16u; k++) {
    out[o + k] = select(featureBest[best + k], 0u, best == NO_FEATURE);
  }
  if (best == NO_FEATURE) {
    out[o] = 0xff800000u;
    out[o + 1u] = NO_FEATURE;
  }
}
