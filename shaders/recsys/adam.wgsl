// adam: one AdamW step (PyTorch order) over a dense tensor, one invocation per parameter.
// P = parameters; params, grads, m, v are f32 [P]; t = 1-based step. Dispatch: linearDispatch(P, WG).

override WG: u32 = 256u;

struct Params {
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weight_decay: f32,
  t: u32,
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weights: array<f32>;
@group(0) @binding(2) var<storage, read> grads: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;

@compute @workgroup_size(WG)
fn adam(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat parameter index over the folded x·y grid.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.n) {
    return;
  }
  let bias = adam_bias(params.lr, params.beta1, params.beta2, params.t);
  let decay = 1.0 - params.lr * params.weight_decay;
  let r = adam_element(weights[i], grads[i], m[i], v[i], params.beta1, params.beta2, params.eps, decay, bias);
  weights[i] = r.x;
  m[i] = r.y;
  v[i] = r.z;
}
