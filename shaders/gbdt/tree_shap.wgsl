// tree_shap: exact path-dependent TreeSHAP (XGBoost predict(pred_contribs=True)) on raw features.
// Reference: src/kernels/gbdt/tree_shap.ref.ts (same program: the recursion of XGBoost's
// RegTree::TreeShap as an explicit stack of pending children and one path segment per depth).
// N = rows, F = features, T = trees. Inputs: features f32 [N × F] row-major (NaN = missing);
// nodes / catBits / treeOffsets from packTrees (7 words a node, see predict.wgsl), covers f32 [K]
// from packCovers (sum_hessian per packed node). out f32 [(F + 1) × N] FEATURE-MAJOR: φ of
// feature f for row i at f·N + i, the bias (base margin + Σ_t cover-weighted mean leaf) at F·N + i.
// treePhi f32 [F × N] (same layout, any contents on entry): one tree's φ, added to `out` after
// the tree as XGBoost sums each tree into a zeroed vector first — the small per-leaf terms meet
// values of their own size, so rounding stays that of XGBoost's order rather than growing with
// leaves × depth.
// Dispatch: linearDispatch(N, WG), one row each, looping over the trees: a row's φ accumulate in
// its own slots in tree order (deterministic, no scratch [N × T × (F + 1)] and no second pass),
// children are walked left first so every row of a tree takes the same control flow, and the
// feature-major output makes each φ update of a warp one coalesced read-modify-write.
// Trees deeper than MAX_DEPTH are refused by the caller (tree_shap.ts).

override WG: u32 = 64u;

// Longest root-to-leaf path held (params.ts caps max_depth at 16).
const MAX_DEPTH: u32 = 16u;
// Path elements: a segment of d + 1 per depth d ≤ MAX_DEPTH, (17 · 18) / 2.
const PATH: u32 = 153u;
// Pending children: at most one per depth plus the current node.
const STACK: u32 = 18u;

struct Params {
  rows: u32,
  features: u32,
  trees: u32,
  maxDepth: u32,
  nodes: u32,
  baseMargin: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> features: array<f32>;
@group(0) @binding(2) var<storage, read> nodes: array<u32>;
@group(0) @binding(3) var<storage, read> treeOffsets: array<u32>;
@group(0) @binding(4) var<storage, read> covers: array<f32>;
@group(0) @binding(5) var<storage, read> catBits: array<u32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<storage, read_write> treePhi: array<f32>;

// The unique paths (feature, zero fraction, one fraction, permutation weight), per invocation.
var<private> path_f: array<i32, PATH>;
var<private> path_z: array<f32, PATH>;
var<private> path_o: array<f32, PATH>;
var<private> path_w: array<f32, PATH>;

// The stack: node (tree-local), depth, unique depth, the parent's feature, the edge's zero and
// one fraction, and the path's cover share (reach).
var<private> s_node: array<u32, STACK>;
var<private> s_depth: array<u32, STACK>;
var<private> s_unique: array<u32, STACK>;
var<private> s_feature: array<i32, STACK>;
var<private> s_zero: array<f32, STACK>;
var<private> s_one: array<f32, STACK>;
var<private> s_reach: array<f32, STACK>;

// NaN test on the bits: compilers may fold `v != v` away under fast-math assumptions.
fn is_nan(v: f32) -> bool {
  let b = bitcast<u32>(v);
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u;
}

// XGBoost ExtendPath on the segment at s holding d elements: adds element d.
fn extend(s: u32, d: u32, zero: f32, one: f32, feature: i32) {
  path_f[s + d] = feature;
  path_z[s + d] = zero;
  path_o[s + d] = one;
  path_w[s + d] = select(0.0, 1.0, d == 0u);
  for (var k = i32(d) - 1; k >= 0; k--) {
    let u = u32(k);
    path_w[s + u + 1u] = path_w[s + u + 1u] + one * path_w[s + u] * f32(u + 1u) / f32(d + 1u);
    path_w[s + u] = zero * path_w[s + u] * f32(d - u) / f32(d + 1u);
  }
}

// XGBoost UnwindPath: removes element `at` of the segment at s (elements 0..d).
fn unwind(s: u32, d: u32, at: u32) {
  let one = path_o[s + at];
  let zero = path_z[s + at];
  var next = path_w[s + d];
  for (var k = i32(d) - 1; k >= 0; k--) {
    let u = u32(k);
    if (one != 0.0) {
      let w = path_w[s + u];
      path_w[s + u] = next * f32(d + 1u) / (f32(u + 1u) * one);
      next = w - path_w[s + u] * zero * f32(d - u) / f32(d + 1u);
    } else {
      path_w[s + u] = path_w[s + u] * f32(d + 1u) / (zero * f32(d - u));
    }
  }
  for (var k = at; k < d; k++) {
    path_f[s + k] = path_f[s + k + 1u];
    path_z[s + k] = path_z[s + k + 1u];
    path_o[s + k] = path_o[s + k + 1u];
  }
}

// XGBoost UnwoundPathSum: total weight of the segment at s with element `at` removed.
fn unwound_sum(s: u32, d: u32, at: u32) -> f32 {
  let one = path_o[s + at];
  let zero = path_z[s + at];
  var next = path_w[s + d];
  var total = 0.0;
  for (var k = i32(d) - 1; k >= 0; k--) {
    let u = u32(k);
    if (one != 0.0) {
      let t = next * f32(d + 1u) / (f32(u + 1u) * one);
      total = total + t;
      next = path_w[s + u] - t * zero * (f32(d - u) / f32(d + 1u));
    } else if (zero != 0.0) {
      total = total + path_w[s + u] / zero / (f32(d - u) / f32(d + 1u));
    }
  }
  return total;
}

// Whether value v goes left at the packed node at word offset o (predict.wgsl's decision).
fn goes_left(o: u32, v: f32) -> bool {
  if (is_nan(v)) {
    return (nodes[o + 2u] >> 31u) == 1u;
  }
  let catWords = nodes[o + 6u];
  if (catWords > 0u) {
    // Truncation toward zero as the reference's Math.trunc; v in (−1, 0) truncates to 0 too.
    let c = select(-1, i32(v), v > -1.0 && v < 2147483520.0);
    var right = false;
    if (c >= 0 && u32(c) < catWords * 32u) {
      right = ((catBits[nodes[o + 5u] + (u32(c) >> 5u)] >> (u32(c) & 31u)) & 1u) == 1u;
    }
    return !right;
  }
  return v < bitcast<f32>(nodes[o + 4u]);
}

@compute @workgroup_size(WG)
fn tree_shap(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat row index over the folded x·y grid.
  let i = invocation_index(wid, nwg, WG, lid);
  let n = params.rows;
  if (i >= n) {
    return;
  }
  let nf = params.features;
  for (var f = 0u; f <= nf; f++) {
    out[f * n + i] = 0.0;
  }
  for (var f = 0u; f < nf; f++) {
    treePhi[f * n + i] = 0.0;
  }
  var bias = 0.0;
  for (var t = 0u; t < params.trees; t++) {
    let root = treeOffsets[t];
    var treeBias = 0.0;
    s_node[0] = 0u;
    s_depth[0] = 0u;
    s_unique[0] = 0u;
    s_feature[0] = -1;
    s_zero[0] = 1.0;
    s_one[0] = 1.0;
    s_reach[0] = 1.0;
    var top = 1u;
    while (top > 0u) {
      top = top - 1u;
      let node = s_node[top];
      let depth = s_depth[top];
      let reach = s_reach[top];
      var unique = s_unique[top];
      let s = depth * (depth + 1u) / 2u;
      // The parent's segment (depth − 1) holds `unique` elements: copy them, then extend.
      if (depth > 0u) {
        let p = (depth - 1u) * depth / 2u;
        for (var k = 0u; k < unique; k++) {
          path_f[s + k] = path_f[p + k];
          path_z[s + k] = path_z[p + k];
          path_o[s + k] = path_o[p + k];
          path_w[s + k] = path_w[p + k];
        }
      }
      extend(s, unique, s_zero[top], s_one[top], s_feature[top]);
      let o = (root + node) * 7u;
      let left = bitcast<i32>(nodes[o]);
      if (left < 0) {
        let value = bitcast<f32>(nodes[o + 4u]);
        for (var k = 1u; k <= unique; k++) {
          let w = unwound_sum(s, unique, k);
          let at = u32(path_f[s + k]) * n + i;
          treePhi[at] = treePhi[at] + w * (path_o[s + k] - path_z[s + k]) * value;
        }
        treeBias = treeBias + value * reach;
        continue;
      }
      // Deeper than the caller promised (it refuses such trees): stop rather than overrun.
      if (depth >= params.maxDepth || depth >= MAX_DEPTH) {
        continue;
      }
      let right = bitcast<i32>(nodes[o + 1u]);
      let feature = nodes[o + 2u] & 0x7fffffffu;
      let hot = select(right, left, goes_left(o, features[i * nf + feature]));
      let cover = covers[root + node];
      let leftZero = covers[root + u32(left)] / cover;
      let rightZero = covers[root + u32(right)] / cover;
      // A feature already on the path: undo its earlier split so this node redoes it.
      var inZero = 1.0;
      var inOne = 1.0;
      for (var k = 0u; k <= unique; k++) {
        if (path_f[s + k] == i32(feature)) {
          inZero = path_z[s + k];
          inOne = path_o[s + k];
          unwind(s, unique, k);
          unique = unique - 1u;
          break;
        }
      }
      // Right first on the stack, so the left subtree is walked first.
      s_node[top] = u32(right);
      s_depth[top] = depth + 1u;
      s_unique[top] = unique + 1u;
      s_feature[top] = i32(feature);
      s_zero[top] = rightZero * inZero;
      s_one[top] = select(0.0, inOne, hot == right);
      s_reach[top] = reach * rightZero;
      top = top + 1u;
      s_node[top] = u32(left);
      s_depth[top] = depth + 1u;
      s_unique[top] = unique + 1u;
      s_feature[top] = i32(feature);
      s_zero[top] = leftZero * inZero;
      s_one[top] = select(0.0, inOne, hot == left);
      s_reach[top] = reach * leftZero;
      top = top + 1u;
    }
    bias = bias + treeBias;
    // Add the tree's φ of every feature it splits on, zeroing each once added (a feature split
    // on twice adds 0 the second time), so treePhi is zero again for the next tree.
    let end = select(params.nodes, treeOffsets[t + 1u], t + 1u < params.trees);
    for (var k = root; k < end; k++) {
      if (bitcast<i32>(nodes[k * 7u]) < 0) {
        continue;
      }
      let at = (nodes[k * 7u + 2u] & 0x7fffffffu) * n + i;
      out[at] = out[at] + treePhi[at];
      treePhi[at] = 0.0;
    }
  }
  out[nf * n + i] = bias + params.baseMargin;
}
