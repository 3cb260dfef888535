// embedding_forward: out[p, :] = weights[rows[p], :], one invocation per lookup p = b·S + s
// looping over D (2× faster on SwiftShader than one invocation per float: no div/mod per element).
// B = batch, S = sparse features, D = embedding dim, R = total rows. Dispatch: linearDispatch(B·S, WG).
// Rows ≥ R give zeros (the ids are validated on the CPU).

override WG: u32 = 64u;

struct Params {
  positions: u32,
  dim: u32,
  totalRows: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read> rows: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn embedding_forward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat lookup index over the folded x·y grid.
  let p = invocation_index(wid, nwg, WG, lid);
  if (p >= params.positions) {
    return;
  }
  let row = rows[p];
  let valid = row < params.totalRows;
  // Row `row` of the stacked tables; a bad id reads row 0 (in bounds) and writes zeros.
  let src = select(0u, row, valid) * params.dim;
  for (var d = 0u; d < params.dim; d++) {
    out[p * params.dim + d] = select(0.0, weights[src + d], valid);
  }
}
