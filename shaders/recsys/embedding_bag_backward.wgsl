// embedding_bag_backward: dItems[base + i, d] = dout[b·W + offset + k·D + d] (÷ count for a mean)
// for every item i of bag j = b·K + k, found by binary search of bagOffsets: the largest j with
// bagOffsets[j] ≤ i. The items then join the sparse lookups' positions for embedding_backward.
// B = batch, K = bag features, M = items, D = embedding dim, W = stride (floats per dout row).
// One invocation per element of the items' gradients [M × D]. Dispatch: linearDispatch(M·D, WG).

override WG: u32 = 256u;

struct Params {
  b: u32,
  k: u32,
  dim: u32,
  items: u32,
  stride: u32,
  offset: u32,
  base: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> bagOffsets: array<u32>;
@group(0) @binding(3) var<storage, read> pooling: array<u32>;
@group(0) @binding(4) var<storage, read_write> dItems: array<f32>;

// The bag holding item `item`: largest j in [0, bags) with bagOffsets[j] ≤ item (empty bags
// repeat an offset; the largest index skips them).
fn bag_of(item: u32, bags: u32) -> u32 {
  var lo = 0u;
  var hi = bags;
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (bagOffsets[mid] <= item) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

@compute @workgroup_size(WG)
fn embedding_bag_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat index into the items' gradients [M × D]: item = i / D, component d = i % D.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.items * params.dim) {
    return;
  }
  let item = i / params.dim;
  let d = i % params.dim;
  let j = bag_of(item, params.b * params.k);
  let count = bagOffsets[j + 1u] - bagOffsets[j];
  // Row b = j / K of dout, bag k = j % K at column offset + k·D.
  let g = dout[(j / params.k) * params.stride + params.offset + (j % params.k) * params.dim + d];
  let mean = pooling[j % params.k] == 1u;
  dItems[(params.base + item) * params.dim + d] = select(g, g / f32(count), mean);
}
