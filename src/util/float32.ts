/**
 * Float32 values as text: the shortest decimal that reads back as the same float32 — what XGBoost
 * writes for its floats, and what its parser expects (1.7's from_chars misreads a 17-digit
 * decimal of a float32, e.g. base_score "0.4000000059604645").
 */

/** Shortest decimal number that reads back as the same float32 as `x`. Throws on a non-finite value. */
export function shortestFloat32(x: number): number {
  const f = Math.fround(x)
  if (!Number.isFinite(f)) throw new RangeError(`non-finite value ${x} cannot be written as a float32 decimal`)
  for (let p = 1; p < 9; p++) {
    const s = Number(f.toPrecision(p))
    if (Math.fround(s) === f) return s
  }
  return Number(f.toPrecision(9))
}
