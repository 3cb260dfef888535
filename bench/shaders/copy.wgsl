// copy: dst[i] = src[i] for i < n (u32 words) — a kernel-side copy, 8 bytes moved per element,
// compared against copyBufferToBuffer. N = elements. Dispatch: linearDispatch(N, WG).

override WG: u32 = 256u;

struct Params {
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(WG)
fn copy(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat element index over the folded x·y grid.
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i >= params.n) {
    return;
  }
  dst[i] = src[i];
}
