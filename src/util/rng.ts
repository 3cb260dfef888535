/**
 * Seeded pseudo-random numbers: a small, fast generator (SplitMix32 seeding an xoshiro128**),
 * identical in Node, the page and workers, so a seed reproduces data, shuffles and inits — and the
 * one shuffle drawing from it (Fisher–Yates, full or partial).
 */

/** A seeded generator of uniform numbers. */
export class Rng {
  private s0: number
  private s1: number
  private s2: number
  private s3: number

  /** `seed`: any integer (only its low 32 bits are used). */
  constructor(seed: number) {
    let x = seed >>> 0
    const next = (): number => {
      // SplitMix32: spreads a small seed over the 128-bit state.
      x = (x + 0x9e3779b9) >>> 0
      let z = x
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
      return (z ^ (z >>> 16)) >>> 0
    }
    this.s0 = next()
    this.s1 = next()
    this.s2 = next()
    this.s3 = next()
  }

  /** Uniform unsigned 32-bit integer (xoshiro128**). */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0
    const t = this.s1 << 9
    this.s2 ^= this.s0
    this.s3 ^= this.s1
    this.s1 ^= this.s2
    this.s0 ^= this.s3
    this.s2 ^= t
    this.s3 = rotl(this.s3, 11)
    return result
  }

  /** Uniform float in [0, 1) with 32 bits of randomness. */
  next(): number {
    return this.nextU32() / 4294967296
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** Uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next()
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    let u = 0
    while (u === 0) u = this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next())
  }

  /** Float32Array of `n` uniforms in [lo, hi). */
  floats(n: number, lo = -1, hi = 1): Float32Array<ArrayBuffer> {
    const out = new Float32Array(n)
    for (let i = 0; i < n; i++) out[i] = this.uniform(lo, hi)
    return out
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0
}

/** A mutable list of numbers: a typed array or a number[]. */
export interface NumberList {
  length: number
  [i: number]: number
}

/** Fisher–Yates shuffle of `values` in place, drawing from `rng` (every permutation equally likely). */
export function shuffleInPlace(values: NumberList, rng: Rng): void {
  for (let i = values.length - 1; i > 0; i--) swap(values, i, rng.int(i + 1))
}

/**
 * Partial Fisher–Yates (Durstenfeld's forward form): afterwards `values[0, k)` is a uniformly
 * random k-subset in random order; only k draws, so choosing a few of many stays cheap. Its draws
 * differ from shuffleInPlace's (front to back), so the two are not interchangeable for a seed.
 */
export function sampleInPlace(values: NumberList, k: number, rng: Rng): void {
  for (let i = 0; i < k; i++) swap(values, i, i + rng.int(values.length - i))
}

function swap(values: NumberList, i: number, j: number): void {
  const t = values[i]
  values[i] = values[j]
  values[j] = t
}
