// quantise: gradient pairs → fixed-point i32 pairs (XGBoost GradientQuantiser), in two passes of
// one module with no CPU round-trip. N = rows. Dispatch: quantise_max linearDispatch(ceil(N / RPI), WG);
// quantise linearDispatch(max(N, 1), WG).
//   quantise_max: scales[0], scales[1] = bits of max |g|, max |h| (atomicMax on the bit patterns
//     of non-negative f32, which order like the floats). scales must be zeroed before this pass.
//     Each invocation takes the max over its own RPI rows, then one atomicMax per word: no
//     workgroup barriers, which cost ~1 ms each on SwiftShader (the old tree reduction spent
//     130–300 ms per 100k rows on them); u32 max is exact, so the result does not depend on order.
//   quantise: gScale = 2^(30 − ceil(log2 max|g|)) (power of two: exact), same for h;
//     qgpair[i] = round(gpair[i] · scale) (round half to even); row 0 stores the scales' bits in
//     scales[2], scales[3]. Read scales as f32 × 4: [maxAbsG, maxAbsH, gScale, hScale].

override WG: u32 = 256u;
// Rows per invocation of quantise_max.
override RPI: u32 = 64u;

struct Params {
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Scalar arrays (g, h interleaved) rather than vec2: with N = 0 the scale pass still runs, and a
// 4-byte placeholder buffer is too small for a vec2 binding.
@group(0) @binding(1) var<storage, read> gpair: array<f32>;
@group(0) @binding(2) var<storage, read_write> qgpair: array<i32>;
@group(0) @binding(3) var<storage, read_write> scales: array<atomic<u32>, 4>;

const QUANT_BITS: i32 = 30;
// Smallest exponent used, so the scale 2^(30 − e) stays ≤ 2^127 (a finite f32).
const MIN_EXP: i32 = -97;

// 2^(30 − e), e = ceil(log2(maxAbs)), from the bits of the non-negative f32 maxAbs.
fn scaleFor(bits: u32) -> f32 {
  let biased = i32(bits >> 23u);
  var e = biased - 127 + select(0, 1, (bits & 0x7FFFFFu) != 0u);
  if (biased == 0) {
    e = MIN_EXP;
  }
  e = max(e, MIN_EXP);
  return bitcast<f32>(u32(127 + QUANT_BITS - e) << 23u);
}

@compute @workgroup_size(WG)
fn quantise_max(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i0 = invocation_index(wid, nwg, WG, lid) * RPI;
  let i1 = min(params.n, i0 + RPI);
  var v = vec2<u32>(0u, 0u);
  for (var i = i0; i < i1; i++) {
    v = max(v, bitcast<vec2<u32>>(abs(vec2<f32>(gpair[2u * i], gpair[2u * i + 1u]))));
  }
  // A zero maximum changes nothing: skip the atomic (also for invocations past the last row).
  if (v.x != 0u) {
    atomicMax(&scales[0], v.x);
  }
  if (v.y != 0u) {
    atomicMax(&scales[1], v.y);
  }
}

@compute @workgroup_size(WG)
fn quantise(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = invocation_index(wid, nwg, WG, lid);
  let s = vec2<f32>(scaleFor(atomicLoad(&scales[0])), scaleFor(atomicLoad(&scales[1])));
  // Before the row guard: with N = 0 one workgroup still runs to publish the scales.
  if (i == 0u) {
    atomicStore(&scales[2], bitcast<u32>(s.x));
    atomicStore(&scales[3], bitcast<u32>(s.y));
  }
  if (i >= params.n) {
    return;
  }
  qgpair[2u * i] = i32(round(gpair[2u * i] * s.x));
  qgpair[2u * i + 1u] = i32(round(gpair[2u * i + 1u] * s.y));
}
