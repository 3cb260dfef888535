// matmul_backward_dinp: dinp[B×C] = dout[B×OC] · weight[OC×C]. B = batch rows, C = input channels, OC = output channels.
// One invocation per dinp element, OC multiply-adds in order o = 0..OC−1 (version 1, kept for
// parity); overwrites dinp, or adds to it when params.accumulate = 1 (a cross layer's input
// gradient is its residual gradient plus this product). Dispatch: ceil(C / WX) × ceil(B / WY) workgroups.

override WX: u32 = 16u;
override WY: u32 = 16u;

struct Params {
  b: u32,
  c: u32,
  oc: u32,
  // 1: dinp += sum; 0: dinp = sum.
  accumulate: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> dinp: array<f32>;

@compute @workgroup_size(WX, WY)
fn matmul_backward_dinp(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.y;
  let k = gid.x;
  if (row >= params.b || k >= params.c) {
    return;
  }
  var acc = 0.0;
  for (var o = 0u; o < params.oc; o++) {
    // dout[row, o] · weight[o, k]
    acc += dout[row * params.oc + o] * weight[o * params.c + k];
  }
  let i = row * params.c + k;
  if (params.accumulate != 0u) {
    acc = dinp[i] + acc;
  }
  dinp[i] = acc;
}
