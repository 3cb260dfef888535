// histogram_subtract (XGBoost SubtractionHist): for each triple t = (parent, built, sibling) of
// slots, hist[sibling, bin] = hist[parent, bin] − hist[built, bin] for every bin, as exact 64-bit
// two's-complement subtraction of the [gLo, gHi, hLo, hHi] pairs (borrow from lo into hi).
// B = total bins, T = triples. Dispatch: linearDispatch(T · B, WG), one invocation per (t, bin).

override WG: u32 = 256u;

struct Params {
  count: u32,
  b: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// 3 u32 per triple (parent, built, sibling); plain u32 so the stride is 12 bytes, not vec3's 16.
@group(0) @binding(1) var<storage, read> triples: array<u32>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;

fn pairAt(at: u32) -> vec2<u32> {
  return vec2<u32>(hist[at], hist[at + 1u]);
}

@compute @workgroup_size(WG)
fn histogram_subtract(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let idx = invocation_index(wid, nwg, WG, lid);
  if (idx >= params.count * params.b) {
    return;
  }
  let t = idx / params.b;
  let bin = idx % params.b;
  // Word offsets of this bin in the parent, built and sibling slots.
  let p = (triples[3u * t] * params.b + bin) * 4u;
  let c = (triples[3u * t + 1u] * params.b + bin) * 4u;
  let s = (triples[3u * t + 2u] * params.b + bin) * 4u;
  let g = i64_sub(pairAt(p), pairAt(c));
  let h = i64_sub(pairAt(p + 2u), pairAt(c + 2u));
  hist[s] = g.x;
  hist[s + 1u] = g.y;
  hist[s + 2u] = h.x;
  hist[s + 3u] = h.y;
}
