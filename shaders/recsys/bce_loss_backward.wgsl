// bce_loss_backward: dlogits[N] = (σ(z) − y)·w / denom, the gradient of Σ loss / denom (denom = the batch's row count B). N = rows.
// One invocation per row. Dispatch: linearDispatch(N, WG).

override WG: u32 = 256u;

struct Params {
  n: u32,
  // 1: weights[] holds per-row weights; 0: every weight is 1 (weights is a dummy buffer).
  hasWeights: u32,
  denom: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<f32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> dlogits: array<f32>;

// σ(z) without overflow (same steps as bce_loss_forward and sigmoid32 in the references).
fn sigmoid(z: f32) -> f32 {
  let e = exp(-abs(z));
  let d = 1.0 + e;
  return select(e / d, 1.0 / d, z >= 0.0);
}

@compute @workgroup_size(WG)
fn bce_loss_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.n) {
    return;
  }
  let w = select(1.0, weights[i], params.hasWeights != 0u);
  dlogits[i] = ((sigmoid(logits[i]) - labels[i]) * w) / params.denom;
}
