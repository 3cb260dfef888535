// embedding_bag_forward: out[j, d] = pool over i in [bagOffsets[j], bagOffsets[j+1]) of
// weights[bagRows[i], d], j = b·K + k; pool = sum, or sum / count where pooling[k] = 1 (mean).
// Items are added in list order; an empty bag gives zeros; rows ≥ R add zeros (ids are validated
// on the CPU). B = batch, K = bag features, M = items, D = embedding dim, R = total rows.
// One invocation per element of out [B·K × D]. Dispatch: linearDispatch(B·K·D, WG).

override WG: u32 = 64u;

struct Params {
  b: u32,
  k: u32,
  dim: u32,
  totalRows: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read> bagRows: array<u32>;
@group(0) @binding(3) var<storage, read> bagOffsets: array<u32>;
@group(0) @binding(4) var<storage, read> pooling: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn embedding_bag_forward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat index into out [B·K × D]: bag j = i / D, component d = i % D.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.b * params.k * params.dim) {
    return;
  }
  let j = i / params.dim;
  let d = i % params.dim;
  let start = bagOffsets[j];
  let end = bagOffsets[j + 1u];
  var sum = 0.0;
  for (var t = start; t < end; t++) {
    let row = bagRows[t];
    let valid = row < params.totalRows;
    // A bad id reads row 0 (in bounds) and adds zero.
    sum = sum + select(0.0, weights[select(0u, row, valid) * params.dim + d], valid);
  }
  let mean = pooling[j % params.k] == 1u && end > start;
  out[i] = select(sum, sum / f32(end - start), mean);
}
