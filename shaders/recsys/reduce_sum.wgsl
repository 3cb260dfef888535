// reduce_sum (one pass): out[g] = Σ inp[g·WG … g·WG + WG) by a fixed pairwise tree; N = inputs, G = max(1, ceil(N / WG)) partials.
// Out-of-range lanes add 0, so N = 0 gives out[0] = 0. Run again over the partials until one is
// left (reduceSumCalls): fixed order everywhere, so the sum is deterministic and matches
// reduce_sum.ref.ts bit for bit. WG must be a power of two. Dispatch: linearDispatch(G·WG, WG).

override WG: u32 = 256u;

struct Params {
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn reduce_sum(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let g = workgroup_index(wid, nwg);
  let i = g * WG + lid;
  var x = 0.0;
  if (i < params.n) {
    x = inp[i];
  }
  partial[lid] = x;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      partial[lid] = partial[lid] + partial[lid + stride];
    }
    workgroupBarrier();
  }
  // Surplus workgroups of a folded grid (g ≥ G) must not write past out.
  if (lid == 0u && g * WG < max(params.n, 1u)) {
    out[g] = partial[0];
  }
}
