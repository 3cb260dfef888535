/**
 * Zipf-distributed ids: rank r (1-based) has probability ∝ 1 / r^s. Ranks map to ids through a
 * seeded permutation so that popular ids are spread over the id range, as in real logs (the
 * most clicked item is not item 0).
 */
import { shuffleInPlace, type Rng } from '../../src/util/rng.ts'

/** Draws ids in [0, n) with Zipf(s) popularity. */
export class ZipfSampler {
  private readonly cdf: Float64Array
  /** `ids[r]`: the id of popularity rank r (0-based). */
  readonly ids: Int32Array

  /** `n`: number of distinct ids; `s`: exponent (≈1 for web traffic); `rng` shuffles ranks → ids. */
  constructor(
    readonly n: number,
    readonly s: number,
    rng: Rng,
  ) {
    if (!(n >= 1)) throw new RangeError(`ZipfSampler: n must be ≥ 1, got ${n}`)
    this.cdf = new Float64Array(n)
    let total = 0
    for (let r = 0; r < n; r++) {
      total += 1 / (r + 1) ** s
      this.cdf[r] = total
    }
    for (let r = 0; r < n; r++) this.cdf[r] /= total
    this.ids = permutation(n, rng)
  }

  /** Popularity rank (0 = most popular) for a uniform `u` in [0, 1). */
  rankOf(u: number): number {
    let lo = 0
    let hi = this.n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.cdf[mid] > u) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  /** One id. */
  sample(rng: Rng): number {
    return this.ids[this.rankOf(rng.next())]
  }
}

/** A seeded Fisher–Yates permutation of 0..n-1. */
export function permutation(n: number, rng: Rng): Int32Array {
  const out = Int32Array.from({ length: n }, (_, i) => i)
  shuffleInPlace(out, rng)
  return out
}
