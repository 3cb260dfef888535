// bias_relu_forward: out[B×C] = max(0, inp + bias[c]), or inp + bias[c] when params.relu = 0 (output layer). B = batch rows, C = channels.
// One invocation per element. Dispatch: linearDispatch(B·C, WG).

override WG: u32 = 256u;

struct Params {
  b: u32,
  c: u32,
  relu: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn bias_relu_forward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat element index b·C + c over the folded x·y grid.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.b * params.c) {
    return;
  }
  let x = inp[i] + bias[i % params.c];
  out[i] = select(x, max(0.0, x), params.relu != 0u);
}
