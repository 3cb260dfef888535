// matmul_forward: out[B×OC] = inp[B×C] · weightᵀ (llm.c layout: weight [OC×C] row-major, no bias). B = batch rows, C = input channels, OC = output channels.
// One invocation per out element, C multiply-adds from global memory in order c = 0..C−1
// (version 1, kept for parity). Dispatch: ceil(OC / WX) × ceil(B / WY) workgroups.

override WX: u32 = 16u;
override WY: u32 = 16u;

struct Params {
  b: u32,
  c: u32,
  oc: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WX, WY)
fn matmul_forward(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.y;
  let o = gid.x;
  if (row >= params.b || o >= params.oc) {
    return;
  }
  var acc = 0.0;
  for (var k = 0u; k < params.c; k++) {
    // inp[row, k] · weight[o, k]
    acc += inp[row * params.c + k] * weight[o * params.c + k];
  }
  out[row * params.oc + o] = acc;
}
