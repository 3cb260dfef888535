// row_partition: moves each row whose node was split this level to the left or right child:
// bin ≤ splitBin → left (a categorical split: bin in its set → right, any other bin → left),
// missing (byte < missOff) → defaultLeft ? left : right.
// N = rows, F = features, K = split-table nodes. Dispatch: linearDispatch(N · C, WG), one
// position each: C = classes > 1 (multiclass) holds C positions per row, (row i, class c) at
// i·C + c, each in its own class tree's node, moved by row i's bins.

override WG: u32 = 256u;

struct Params {
  rows: u32,
  rowWords: u32,
  nodes: u32,
  classes: u32,
}

const NO_NODE: u32 = 0xffffffffu;
// layout.ts SPLIT_TABLE_WORDS, CAT_WORDS.
const TABLE_WORDS: u32 = 14u;
const CAT_WORDS: u32 = 8u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bins: array<u32>;
@group(0) @binding(2) var<storage, read> missOff: array<u32>;
// Per node id: feature, splitBin (i32 bits), defaultLeft, leftChild, rightChild (NO_NODE = not
// split), categorical, CAT_WORDS words of the bitset of bins going right.
@group(0) @binding(3) var<storage, read> splits: array<u32>;
@group(0) @binding(4) var<storage, read_write> positions: array<u32>;

// Bin of (row i, feature f) from the feature-major u8-in-u32 matrix; −1 = missing.
fn bin_at(i: u32, f: u32) -> i32 {
  let byte = (bins[f * params.rowWords + (i >> 2u)] >> ((i & 3u) * 8u)) & 0xffu;
  return i32(byte) - i32(missOff[f]);
}

@compute @workgroup_size(WG)
fn row_partition(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat entry index over the folded x·y grid; its row.
  let e = invocation_index(wid, nwg, WG, lid);
  let C = max(params.classes, 1u);
  if (e >= params.rows * C) {
    return;
  }
  let i = e / C;
  let node = positions[e];
  if (node == NO_NODE || node >= params.nodes) {
    return;
  }
  let s = node * TABLE_WORDS;
  if (splits[s + 3u] == NO_NODE) {
    return;
  }
  let bin = bin_at(i, splits[s]);
  var goLeft = bin <= bitcast<i32>(splits[s + 1u]);
  if (splits[s + 5u] != 0u && bin >= 0) {
    let b = u32(bin);
    goLeft = b >= 32u * CAT_WORDS || ((splits[s + 6u + (b >> 5u)] >> (b & 31u)) & 1u) == 0u;
  }
  if (bin < 0) {
    goLeft = splits[s + 2u] != 0u;
  }
  positions[e] = select(splits[s + 4u], splits[s + 3u], goLeft);
}
