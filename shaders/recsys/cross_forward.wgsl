// cross_forward: the elementwise half of a DCN-v2 cross layer, out[B×C] = x0 ⊙ (z + bias[c]) + xl,
// where z = W·xl (or U·V·xl) came from the matmul kernels. B = batch rows, C = C0 cross width.
// x0 and xl may be the same buffer (layer 0). One invocation per element.
// Dispatch: linearDispatch(B·C, WG).

override WG: u32 = 256u;

struct Params {
  b: u32,
  c: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x0: array<f32>;
@group(0) @binding(2) var<storage, read> xl: array<f32>;
@group(0) @binding(3) var<storage, read> z: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn cross_forward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.b * params.c) {
    return;
  }
  out[i] = x0[i] * (z[i] + bias[i % params.c]) + xl[i];
}
