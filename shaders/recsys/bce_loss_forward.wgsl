// bce_loss_forward: loss[N] = w·(max(z,0) − z·y + log1p(exp(−|z|))), probs[N] = σ(z) for z = logits, y = labels (0/1), w = weights or 1. N = rows.
// One invocation per row. Dispatch: linearDispatch(N, WG).

override WG: u32 = 256u;

struct Params {
  n: u32,
  // 1: weights[] holds per-row weights; 0: every weight is 1 (weights is a dummy buffer).
  hasWeights: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<f32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> loss: array<f32>;
@group(0) @binding(5) var<storage, read_write> probs: array<f32>;

// log1p for x ≥ 0 (WGSL has none). Below 1/64 a Taylor series (truncation < x⁵/5): WGSL only
// promises log() to 2^-21 absolute near 1, which would swamp tiny losses. Above, log(u)·x/(u − 1)
// with u = 1 + x cancels u's rounding error (Goldberg, Theorem 4). Mirrored by log1p32 in the ref.
fn log1p(x: f32) -> f32 {
  if (x < 0.015625) {
    return x * (1.0 - x * (0.5 - x * (0.33333334 - x * 0.25)));
  }
  let u = 1.0 + x;
  return log(u) * (x / (u - 1.0));
}

// σ(z) from e = exp(−|z|): never overflows, and keeps precision for very negative z.
fn sigmoidFromExp(z: f32, e: f32) -> f32 {
  let d = 1.0 + e;
  return select(e / d, 1.0 / d, z >= 0.0);
}

@compute @workgroup_size(WG)
fn bce_loss_forward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.n) {
    return;
  }
  let z = logits[i];
  let w = select(1.0, weights[i], params.hasWeights != 0u);
  let e = exp(-abs(z));
  let l = (max(z, 0.0) - z * labels[i]) + log1p(e);
  loss[i] = l * w;
  probs[i] = sigmoidFromExp(z, e);
}
