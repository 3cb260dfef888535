// gradient: gpair[i] = (g, h) of the objective at margins[i] (ids as src/kernels/gbdt/layout.ts:
// 0 logistic, 1 squared error, 2 squared log error, 3 pseudo-Huber, 4 poisson, 5 gamma, 6 tweedie,
// 7 absolute error, 8 hinge, 9 quantile; formulas at gradient.ref.ts rowGradient); rows with
// positions[i] = 0xFFFFFFFF (not sampled) get (0, 0). N = rows. Dispatch: linearDispatch(N, WG),
// one invocation per row.
// softmax_gradient (multi:softprob / multi:softmax, XGBoost 1.7.4 SoftmaxMultiClassObj): row i's
// K = classes margins margins[i·K .. i·K + K) give p = softmax (max from FLT_MIN as XGBoost's
// running max; the exp sum compensated in f32, XGBoost's is a double), and gpair[i·K + k] =
// ((p_k − [y = k])·w, max(2·p_k·(1 − p_k)·w, 1e-16)); (row, class) entries with positions =
// 0xFFFFFFFF (not in that class tree's sample) get (0, 0). Formulas at gradient.ref.ts
// softmaxGradient. Dispatch: linearDispatch(N, WG), one invocation per row.

override WG: u32 = 256u;

struct Params {
  n: u32,
  objective: u32,
  // 1: weights[] holds per-row weights; 0: every weight is 1 (weights is a dummy buffer).
  hasWeights: u32,
  // 1: positions[] marks unused rows; 0: every row is used (positions is a dummy buffer).
  hasPositions: u32,
  // Multiplies the weight of rows labelled 1 (logistic, squared error, squared log error).
  scalePosWeight: f32,
  // huber_slope, max_delta_step (poisson), tweedie_variance_power or quantile_alpha.
  objParam: f32,
  // softmax_gradient: K, margins / positions / gpair hold N × K entries.
  classes: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> margins: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<f32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read_write> gpair: array<vec2<f32>>;

const ROW_UNUSED: u32 = 0xFFFFFFFFu;
const LOGISTIC_MIN_HESS: f32 = 1e-16;
const SOFTMAX_MIN_HESS: f32 = 1e-16;
const FLT_MIN: f32 = 1.17549435e-38;
// FLT_MIN: binary:hinge's unweighted hessian past the margin (XGBoost hinge.cu).
const HINGE_MIN_HESS: f32 = 1.17549435e-38;

fn rowGradient(m: f32, y: f32, w: f32) -> vec2<f32> {
  let o = params.objective;
  let c = params.objParam;
  let wp = select(w, w * params.scalePosWeight, y == 1.0);
  switch o {
    case 1u: {
      return vec2<f32>((m - y) * wp, wp);
    }
    case 2u: {
      let mp = max(m, -1.0 + 1e-6);
      let lm = log(1.0 + mp);
      let ly = log(1.0 + y);
      let m1 = mp + 1.0;
      let h = max((-lm + ly + 1.0) / (m1 * m1), 1e-6);
      return vec2<f32>((lm - ly) / m1 * wp, h * wp);
    }
    case 3u: {
      let z = m - y;
      let d2 = c * c;
      let s = sqrt(1.0 + z * z / d2);
      return vec2<f32>(z / s * w, d2 / ((d2 + z * z) * s) * w);
    }
    case 4u: {
      return vec2<f32>((exp(m) - y) * w, exp(m + c) * w);
    }
    case 5u: {
      let r = y / exp(m);
      return vec2<f32>((1.0 - r) * w, r * w);
    }
    case 6u: {
      let a = exp((1.0 - c) * m);
      let b = exp((2.0 - c) * m);
      return vec2<f32>((-y * a + b) * w, (-y * (1.0 - c) * a + (2.0 - c) * b) * w);
    }
    case 7u: {
      return vec2<f32>(sign(m - y) * w, w);
    }
    case 8u: {
      let yy = y * 2.0 - 1.0;
      if (m * yy < 1.0) {
        return vec2<f32>(-yy * w, w);
      }
      return vec2<f32>(0.0, HINGE_MIN_HESS);
    }
    case 9u: {
      return vec2<f32>(select(-c * w, (1.0 - c) * w, m - y >= 0.0), w);
    }
    default: {
      let p = 1.0 / (1.0 + exp(-m));
      let h = max(p * (1.0 - p), LOGISTIC_MIN_HESS);
      return vec2<f32>((p - y) * wp, h * wp);
    }
  }
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

@compute @workgroup_size(WG)
fn softmax_gradient(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.n) {
    return;
  }
  let K = params.classes;
  let at = i * K;
  var wmax = FLT_MIN;
  for (var k = 0u; k < K; k++) {
    wmax = max(wmax, margins[at + k]);
  }
  // Neumaier-compensated sum: the f32 rounding of XGBoost's double sum for any practical K.
  var sum = 0.0;
  var comp = 0.0;
  for (var k = 0u; k < K; k++) {
    let x = exp(margins[at + k] - wmax);
    let t = sum + x;
    if (abs(sum) >= abs(x)) {
      comp += (sum - t) + x;
    } else {
      comp += (x - t) + sum;
    }
    sum = t;
  }
  let wsum = sum + comp;
  let w = select(1.0, weights[i], params.hasWeights != 0u);
  let y = labels[i];
  for (var k = 0u; k < K; k++) {
    if (params.hasPositions != 0u && positions[at + k] == ROW_UNUSED) {
      gpair[at + k] = vec2<f32>(0.0, 0.0);
      continue;
    }
    let p = exp(margins[at + k] - wmax) / wsum;
    let h = max(2.0 * p * (1.0 - p) * w, SOFTMAX_MIN_HESS);
    gpair[at + k] = vec2<f32>(select(p, p - 1.0, y == f32(k)) * w, h);
  }
}
