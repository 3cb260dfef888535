// embedding_backward: dRows[u, d] = Σ_k dout[order[k], d] for k in [segStart[u], segStart[u+1]),
// added in k order: a deterministic scatter-add without atomics (the CPU grouped positions by row).
// B·S = lookup positions, U = unique rows, D = embedding dim. Dispatch: linearDispatch(U·D, WG).

override WG: u32 = 256u;

struct Params {
  uniq: u32,
  dim: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read> segStart: array<u32>;
@group(0) @binding(4) var<storage, read_write> dRows: array<f32>;

@compute @workgroup_size(WG)
fn embedding_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat index over the folded x·y grid into dRows [U × D]: segment u = i / D, component d = i % D.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.uniq * params.dim) {
    return;
  }
  let u = i / params.dim;
  let d = i % params.dim;
  var sum = 0.0;
  for (var k = segStart[u]; k < segStart[u + 1u]; k++) {
    sum = sum + dout[order[k] * params.dim + d];
  }
  dRows[i] = sum;
}
