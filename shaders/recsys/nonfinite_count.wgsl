// nonfinite_count: how many of inp[0 … n) are NaN or ±Infinity, and where the first one is.
// N = elements. inp is an f32 buffer bound as u32 words: the test is on the bit pattern
// (exponent bits all ones), because a compiler may assume floats are finite and fold
// isNan-style checks (x != x) away. Counts accumulate into out[2·slot] (an integer atomic, so
// the result does not depend on the order workgroups run in); out[2·slot + 1] keeps
// max(n − i) over the non-finite indices i, i.e. first index = n − out[2·slot + 1] when the
// count is > 0. out must be zeroed before the first call of a scan; several tensors can share
// one out buffer through `slot`. Dispatch: G = min(ceil(N / WG), MAX_GROUPS) workgroups in x; each
// invocation strides over the elements by G·WG, so a multi-megabyte table costs few workgroups
// (per-workgroup overhead dominates on software adapters) and adjacent lanes read adjacent words.

override WG: u32 = 256u;

struct Params {
  n: u32,
  slot: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<atomic<u32>>;

var<workgroup> wgCount: atomic<u32>;
var<workgroup> wgFirst: atomic<u32>;

const EXPONENT: u32 = 0x7f800000u;

@compute @workgroup_size(WG)
fn nonfinite_count(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  if (lid == 0u) {
    atomicStore(&wgCount, 0u);
    atomicStore(&wgFirst, 0u);
  }
  workgroupBarrier();
  let stride = nwg.x * nwg.y * WG;
  var count = 0u;
  var first = 0u;
  for (var i = invocation_index(wid, nwg, WG, lid); i < params.n; i += stride) {
    if ((inp[i] & EXPONENT) == EXPONENT) {
      count += 1u;
      first = max(first, params.n - i);
    }
  }
  if (count > 0u) {
    atomicAdd(&wgCount, count);
    atomicMax(&wgFirst, first);
  }
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&wgCount);
    if (c > 0u) {
      atomicAdd(&out[2u * params.slot], c);
      atomicMax(&out[2u * params.slot + 1u], atomicLoad(&wgFirst));
    }
  }
}
