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

// beta^n by square-and-multiply in f32 (as adam.ref.ts powU32F32): WGSL pow's error bound is
// loose and 1 − β2^t cancels for small t, so both sides round the same products instead.
fn pow_u32(beta: f32, n: u32) -> f32 {
  var result = 1.0;
  var base = beta;
  for (var e = n; e > 0u; e = e >> 1u) {
    if ((e & 1u) == 1u) {
      result = result * base;
    }
    base = base * base;
  }
  return result;
}

@compute @workgroup_size(WG)
fn adam(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat parameter index over the folded x·y grid.
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i >= params.n) {
    return;
  }
  let g = grads[i];
  // Decoupled weight decay first, as torch.optim.AdamW.
  let p = weights[i] * (1.0 - params.lr * params.weight_decay);
  let mi = params.beta1 * m[i] + (1.0 - params.beta1) * g;
  let vi = params.beta2 * v[i] + (1.0 - params.beta2) * (g * g);
  m[i] = mi;
  v[i] = vi;
  let stepSize = params.lr / (1.0 - pow_u32(params.beta1, params.t));
  let denom = sqrt(vi) / sqrt(1.0 - pow_u32(params.beta2, params.t)) + params.eps;
  weights[i] = p - stepSize * (mi / denom);
}
