// atomic_add_storage: counters[keys[i] % k] += 1 for i < n, atomicAdd straight into storage
// (a histogram with k bins). N = keys, K = counters. Dispatch: linearDispatch(N, WG).

override WG: u32 = 256u;

struct Params {
  n: u32,
  k: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> counters: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn atomic_add_storage(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat key index over the folded x·y grid.
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i >= params.n) {
    return;
  }
  atomicAdd(&counters[keys[i] % params.k], 1u);
}
