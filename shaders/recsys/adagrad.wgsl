// adagrad: accum += g², w −= lr·g / (√accum + eps) on the rows a batch touched, one invocation
// per (u, d). U = touched rows, D = embedding dim, R = total rows; weights, accum f32 [R × D],
// dRows f32 [U × D], uniq u32 [U] (distinct). Dispatch: linearDispatch(U·D, WG).

override WG: u32 = 256u;

struct Params {
  lr: f32,
  eps: f32,
  uniq: u32,
  dim: u32,
  totalRows: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> accum: array<f32>;
@group(0) @binding(3) var<storage, read> dRows: array<f32>;
@group(0) @binding(4) var<storage, read> uniq: array<u32>;

@compute @workgroup_size(WG)
fn adagrad(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat index over the folded x·y grid into dRows [U × D]: touched row u = i / D, component d.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.uniq * params.dim) {
    return;
  }
  let row = uniq[i / params.dim];
  if (row >= params.totalRows) {
    return;
  }
  let j = row * params.dim + i % params.dim;
  let g = dRows[i];
  let a = accum[j] + g * g;
  accum[j] = a;
  weights[j] = weights[j] - params.lr * (g / (sqrt(a) + params.eps));
}
