// fixed64: exact signed 64-bit integers as (lo, hi) u32 pairs, two's complement, for the
// fixed-point gradient sums (XGBoost GradientQuantiser / AtomicAdd64As32). References: add64 in
// histogram_build.ref.ts, sub64 in histogram_subtract.ref.ts (src/kernels/gbdt/).

// (lo, hi) of a + b: the carry out of the low word goes into the high word.
fn i64_add(a: vec2u, b: vec2u) -> vec2u {
  let lo = a.x + b.x;
  return vec2u(lo, a.y + b.y + i64_carry(a.x, b.x));
}

// (lo, hi) of a − b: the borrow of the low word comes out of the high word.
fn i64_sub(a: vec2u, b: vec2u) -> vec2u {
  return vec2u(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

// 1 when old + lo overflows the low word (an atomicAdd's old value and its addend), else 0.
fn i64_carry(old: u32, lo: u32) -> u32 {
  return select(0u, 1u, old + lo < old);
}

// What the high word gets when the i32 v was added to a low word that held `old`: v's sign
// extension plus the carry, in one add (0 for v ≥ 0 without carry, or v < 0 with carry).
fn i64_hi_of_add(v: i32, old: u32) -> u32 {
  return select(0u, 0xFFFFFFFFu, v < 0) + i64_carry(old, bitcast<u32>(v));
}
