// stream_rmw: a[i] = a[i] * s + b[i] for i < n — a streaming read-modify-write, 12 bytes/element.
// N = elements. Dispatch: ceil(N / WG) workgroups folded into x·y past 65535 (linearDispatch).

override WG: u32 = 256u;

struct Params {
  n: u32,
  s: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;

@compute @workgroup_size(WG)
fn stream_rmw(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat element index over the folded x·y grid.
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i >= params.n) {
    return;
  }
  a[i] = a[i] * params.s + b[i];
}
