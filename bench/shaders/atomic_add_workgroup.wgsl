// atomic_add_workgroup: counters[keys[i] % K] += 1 for i < n, privatised: each workgroup counts
// its WG·ITEMS keys in var<workgroup> bins, then adds each non-zero bin to storage once.
// N = keys, K = counters (an override: sizes the workgroup array, K·4 bytes ≤ workgroup memory).
// Dispatch: linearDispatch(N, WG · ITEMS).

override WG: u32 = 256u;
override K: u32 = 256u;
override ITEMS: u32 = 16u;

struct Params {
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> counters: array<atomic<u32>>;

// Zero-initialised by WGSL at workgroup start, so no clearing loop.
var<workgroup> bins: array<atomic<u32>, K>;

@compute @workgroup_size(WG)
fn atomic_add_workgroup(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // First key of this workgroup's WG·ITEMS slice (flat index over the folded x·y grid).
  let base = (wid.y * nwg.x + wid.x) * WG * ITEMS;
  for (var j = 0u; j < ITEMS; j++) {
    // Stride WG: neighbouring invocations read neighbouring keys.
    let i = base + j * WG + lid;
    if (i < params.n) {
      atomicAdd(&bins[keys[i] % K], 1u);
    }
  }
  workgroupBarrier();
  for (var b = lid; b < K; b += WG) {
    let v = atomicLoad(&bins[b]);
    if (v != 0u) {
      atomicAdd(&counters[b], v);
    }
  }
}
