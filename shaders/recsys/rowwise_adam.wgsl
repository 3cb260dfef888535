// rowwise_adam: lazy Adam(W) on the rows a batch touched, one invocation per touched row (the
// row's step counter is read and bumped once, so its D components share one invocation).
// U = touched rows, D = embedding dim, R = total rows; weights, m, v f32 [R × D], rowStep u32 [R],
// dRows f32 [U × D], uniq u32 [U] (distinct). Dispatch: linearDispatch(U, WG).

override WG: u32 = 64u;

struct Params {
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weight_decay: f32,
  uniq: u32,
  dim: u32,
  totalRows: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> m: array<f32>;
@group(0) @binding(3) var<storage, read_write> v: array<f32>;
@group(0) @binding(4) var<storage, read_write> rowStep: array<u32>;
@group(0) @binding(5) var<storage, read> dRows: array<f32>;
@group(0) @binding(6) var<storage, read> uniq: array<u32>;

@compute @workgroup_size(WG)
fn rowwise_adam(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat touched-row index over the folded x·y grid.
  let k = invocation_index(wid, nwg, WG, lid);
  if (k >= params.uniq) {
    return;
  }
  let row = uniq[k];
  if (row >= params.totalRows) {
    return;
  }
  let t = rowStep[row] + 1u;
  rowStep[row] = t;
  let bias = adam_bias(params.lr, params.beta1, params.beta2, t);
  let decay = 1.0 - params.lr * params.weight_decay;
  for (var d = 0u; d < params.dim; d++) {
    // Row `row`'s component d in the [R × D] tables; the batch's gradient row k in dRows.
    let j = row * params.dim + d;
    let r = adam_element(weights[j], dRows[k * params.dim + d], m[j], v[j], params.beta1, params.beta2, params.eps, decay, bias);
    weights[j] = r.x;
    m[j] = r.y;
    v[j] = r.z;
  }
}
