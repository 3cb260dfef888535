// gradient: gpair[i] = (g, h) of the objective at margins[i] (XGBoost binary:logistic /
// reg:logistic = objective 0, reg:squarederror = 1); rows with positions[i] = 0xFFFFFFFF (not
// sampled) get (0, 0). N = rows. Dispatch: linearDispatch(N, WG), one invocation per row.

override WG: u32 = 256u;

struct Params {
  n: u32,
  objective: u32,
  // 1: weights[] holds per-row weights; 0: every weight is 1 (weights is a dummy buffer).
  hasWeights: u32,
  // 1: positions[] marks unused rows; 0: every row is used (positions is a dummy buffer).
  hasPositions: u32,
  scalePosWeight: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> margins: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<f32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read_write> gpair: array<vec2<f32>>;

const ROW_UNUSED: u32 = 0xFFFFFFFFu;
const LOGISTIC_MIN_HESS: f32 = 1e-16;

fn rowGradient(m: f32, y: f32, w: f32) -> vec2<f32> {
  if (params.objective == 1u) {
    return vec2<f32>((m - y) * w, w);
  }
  let wp = select(w, w * params.scalePosWeight, y == 1.0);
  let p = 1.0 / (1.0 + exp(-m));
  let h = max(p * (1.0 - p), LOGISTIC_MIN_HESS);
  return vec2<f32>((p - y) * wp, h * wp);
}

@compute @workgroup_size(WG)
fn gradient(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat row index over the folded x·y grid.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.n) {
    return;
  }
  if (params.hasPositions != 0u && positions[i] == ROW_UNUSED) {
    gpair[i] = vec2<f32>(0.0, 0.0);
    return;
  }
  let w = select(1.0, weights[i], params.hasWeights != 0u);
  gpair[i] = rowGradient(margins[i], labels[i], w);
}
