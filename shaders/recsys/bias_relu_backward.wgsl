// bias_relu_backward: dinp[B×C] = dout · (out > 0) (= dout when params.relu = 0), dbias[C] = Σ_b dinp[b, c]. B = batch rows, C = channels.
// One invocation per channel c walks rows b = 0..B−1 in order, so dbias is deterministic without
// atomics; neighbouring invocations touch neighbouring c (coalesced). Dispatch: linearDispatch(C, WG).

override WG: u32 = 64u;

struct Params {
  b: u32,
  c: u32,
  relu: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
// The forward output (after ReLU); unread when params.relu = 0.
@group(0) @binding(2) var<storage, read> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(4) var<storage, read_write> dbias: array<f32>;

@compute @workgroup_size(WG)
fn bias_relu_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let c = invocation_index(wid, nwg, WG, lid);
  if (c >= params.c) {
    return;
  }
  var acc = 0.0;
  for (var row = 0u; row < params.b; row++) {
    let i = row * params.c + c;
    var d = dout[i];
    if (params.relu != 0u && !(out[i] > 0.0)) {
      d = 0.0;
    }
    dinp[i] = d;
    acc += d;
  }
  dbias[c] = acc;
}
