// cross_backward: the elementwise half of a DCN-v2 cross layer's backward, out = x0 ⊙ (z + bias) + xl.
// With dout = ∂L/∂out [B×C]: dz = dout ⊙ x0 (what the matmul kernels turn into dW and into xl's
// gradient), dbias[c] = Σ_b dz[b, c], and x0's share dout ⊙ (z + bias) into dx0 — overwritten
// (params.accumulate = 0, the first layer walked back) or added (x0 feeds every layer); with
// params.residual = 1 (layer 0, whose xl is x0) the residual dout goes into dx0 too.
// xl's own residual gradient is dout itself: the caller keeps dout and adds dz·W to it.
// B = batch rows, C = C0 cross width. One invocation per channel c walks rows b = 0..B−1 in order,
// so dbias is deterministic without atomics; neighbouring invocations touch neighbouring c.
// Dispatch: linearDispatch(C, WG).

override WG: u32 = 64u;

struct Params {
  b: u32,
  c: u32,
  accumulate: u32,
  residual: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> x0: array<f32>;
@group(0) @binding(3) var<storage, read> z: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> dz: array<f32>;
@group(0) @binding(6) var<storage, read_write> dx0: array<f32>;
@group(0) @binding(7) var<storage, read_write> dbias: array<f32>;

@compute @workgroup_size(WG)
fn cross_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let c = invocation_index(wid, nwg, WG, lid);
  if (c >= params.c) {
    return;
  }
  let bc = bias[c];
  var acc = 0.0;
  for (var row = 0u; row < params.b; row++) {
    let i = row * params.c + c;
    let d = dout[i];
    let g = d * x0[i];
    dz[i] = g;
    acc += g;
    var v = d * (z[i] + bc);
    if (params.residual != 0u) {
      v = v + d;
    }
    if (params.accumulate != 0u) {
      v = dx0[i] + v;
    }
    dx0[i] = v;
  }
  dbias[c] = acc;
}
