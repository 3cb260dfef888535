// matmul_backward_dweight: dweight[OC×C] = doutᵀ · inp with dout [B×OC], inp [B×C]. B = batch rows, C = input channels, OC = output channels.
// One invocation per dweight element, B multiply-adds in row order b = 0..B−1 (version 1, kept
// for parity); overwrites dweight, or adds to it when params.accumulate = 1.
// Dispatch: ceil(C / WX) × ceil(OC / WY) workgroups.

override WX: u32 = 16u;
override WY: u32 = 16u;

struct Params {
  b: u32,
  c: u32,
  oc: u32,
  // 1: dweight += sum (gradient accumulation); 0: dweight = sum.
  accumulate: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
@group(0) @binding(3) var<storage, read_write> dweight: array<f32>;

@compute @workgroup_size(WX, WY)
fn matmul_backward_dweight(@builtin(global_invocation_id) gid: vec3u) {
  let o = gid.y;
  let k = gid.x;
  if (o >= params.oc || k >= params.c) {
    return;
  }
  var acc = 0.0;
  for (var row = 0u; row < params.b; row++) {
    // dout[row, o] · inp[row, k]
    acc += dout[row * params.oc + o] * inp[row * params.c + k];
  }
  let i = o * params.c + k;
  if (params.accumulate != 0u) {
    acc = dweight[i] + acc;
  }
  dweight[i] = acc;
}
