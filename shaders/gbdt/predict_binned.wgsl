// predict_binned: margins[i] += Σ_t leaf_t for rows given as bins (e.g. validation rows binned
// with the training cuts): bin ≤ splitBin goes left, missing takes the default direction.
// N = rows, F = features, T = trees; nodes packed by packTrees (predict.ref.ts).
// Dispatch: linearDispatch(N, WG), one row each, looping over the trees.

override WG: u32 = 256u;

struct Params {
  rows: u32,
  rowWords: u32,
  trees: u32,
  maxDepth: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bins: array<u32>;
@group(0) @binding(2) var<storage, read> missOff: array<u32>;
@group(0) @binding(3) var<storage, read> nodes: array<u32>;
@group(0) @binding(4) var<storage, read> treeOffsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> margins: array<f32>;

// Bin of (row i, feature f) from the feature-major u8-in-u32 matrix; −1 = missing.
fn bin_at(i: u32, f: u32) -> i32 {
  let byte = (bins[f * params.rowWords + (i >> 2u)] >> ((i & 3u) * 8u)) & 0xffu;
  return i32(byte) - i32(missOff[f]);
}

// Leaf value of the tree rooted at `root` for row i.
fn walk(i: u32, root: u32) -> f32 {
  var k = root;
  for (var step = 0u; step < params.maxDepth; step++) {
    let o = k * 5u;
    if (bitcast<i32>(nodes[o]) < 0) {
      break;
    }
    let fw = nodes[o + 2u];
    let bin = bin_at(i, fw & 0x7fffffffu);
    var goLeft = bin <= bitcast<i32>(nodes[o + 3u]);
    if (bin < 0) {
      goLeft = (fw >> 31u) == 1u;
    }
    k = root + select(nodes[o + 1u], nodes[o], goLeft);
  }
  return bitcast<f32>(nodes[k * 5u + 4u]);
}

@compute @workgroup_size(WG)
fn predict_binned(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat row index over the folded x·y grid.
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i >= params.rows) {
    return;
  }
  var m = margins[i];
  for (var t = 0u; t < params.trees; t++) {
    m = m + walk(i, treeOffsets[t]);
  }
  margins[i] = m;
}
