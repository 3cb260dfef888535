// predict: margins of an ensemble on raw features, XGBoost semantics: value < split condition
// goes left, NaN takes the default direction; out = base + t0 + t1 + … (f32, tree order).
// N = rows, F = features, T = trees; nodes packed by packTrees (src/kernels/gbdt/layout.ts), 7 words each:
// left, right (i32, −1 = leaf, tree-local), feature | defaultLeft << 31, splitBin, value (f32),
// catStart, catWords. catWords > 0: categorical node, code c = i32(v) goes right when
// 0 ≤ c < 32·catWords and bit c of catBits[catStart..] is set; every other code goes left.
// Dispatch: linearDispatch(N, WG), one row each, looping over the trees.

override WG: u32 = 256u;

struct Params {
  rows: u32,
  features: u32,
  trees: u32,
  maxDepth: u32,
  baseMargin: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> features: array<f32>;
@group(0) @binding(2) var<storage, read> nodes: array<u32>;
@group(0) @binding(3) var<storage, read> treeOffsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read> catBits: array<u32>;

// NaN test on the bits: compilers may fold `v != v` away under fast-math assumptions.
fn is_nan(v: f32) -> bool {
  let b = bitcast<u32>(v);
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u;
}

// Leaf value of the tree rooted at `root` for row i.
fn walk(i: u32, root: u32) -> f32 {
  var k = root;
  for (var step = 0u; step < params.maxDepth; step++) {
    let o = k * 7u;
    let left = bitcast<i32>(nodes[o]);
    if (left < 0) {
      break;
    }
    let fw = nodes[o + 2u];
    let v = features[i * params.features + (fw & 0x7fffffffu)];
    var goLeft = v < bitcast<f32>(nodes[o + 4u]);
    let catWords = nodes[o + 6u];
    if (catWords > 0u) {
      // Truncation toward zero as the reference's Math.trunc; v in (−1, 0) truncates to 0 too.
      let c = select(-1, i32(v), v > -1.0 && v < 2147483520.0);
      var right = false;
      if (c >= 0 && u32(c) < catWords * 32u) {
        right = ((catBits[nodes[o + 5u] + (u32(c) >> 5u)] >> (u32(c) & 31u)) & 1u) == 1u;
      }
      goLeft = !right;
    }
    if (is_nan(v)) {
      goLeft = (fw >> 31u) == 1u;
    }
    k = root + select(nodes[o + 1u], nodes[o], goLeft);
  }
  return bitcast<f32>(nodes[k * 7u + 4u]);
}

@compute @workgroup_size(WG)
fn predict(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat row index over the folded x·y grid.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.rows) {
    return;
  }
  var m = params.baseMargin;
  for (var t = 0u; t < params.trees; t++) {
    m = m + walk(i, treeOffsets[t]);
  }
  out[i] = m;
}
