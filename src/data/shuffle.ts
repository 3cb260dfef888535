/**
 * Seeded orders of the data path: the per-epoch unit order and the per-window row permutations of
 * the bounded-buffer shuffle. Pure functions of their integer inputs, identical in Node, the page
 * and workers (they only use src/util/rng.ts), so every worker of every rank derives the same order
 * without talking to the others.
 */
import { Rng } from '../util/rng.ts'
import type { ScanPlan } from './types.ts'

const TWO_32 = 4294967296

/**
 * Hash any number of safe integers (negative allowed, up to 53 bits) into one 32-bit seed:
 * murmur3's word mixing over the low and high 32-bit halves of each, then its finaliser. Used so
 * (seed, epoch) and (seed, epoch, rank, window) each get an independent generator — adding 1 to an
 * Rng seed would give correlated streams for neighbouring epochs.
 */
export function mixSeed(...ints: number[]): number {
  let h = 0x9747b28c
  for (const v of ints) {
    if (!Number.isSafeInteger(v)) throw new RangeError(`mixSeed: expected safe integers, got ${v}`)
    h = mixWord(h, v >>> 0)
    h = mixWord(h, Math.floor(v / TWO_32) >>> 0)
  }
  return fmix32((h ^ (ints.length * 8)) >>> 0)
}

function mixWord(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, 0x1b873593)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) >>> 0
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** Fisher–Yates shuffle of `values` in place, drawing from `rng` (every permutation equally likely). */
export function shuffleInPlace(values: Uint32Array, rng: Rng): void {
  for (let i = values.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    const t = values[i]
    values[i] = values[j]
    values[j] = t
  }
}

/** Identity permutation 0 … n-1. */
export function identityOrder(n: number): Uint32Array {
  const out = new Uint32Array(n)
  for (let i = 0; i < n; i++) out[i] = i
  return out
}

/** A uniformly random permutation of 0 … n-1 from a 32-bit seed. */
export function permutation(n: number, seed32: number): Uint32Array {
  const out = identityOrder(n)
  shuffleInPlace(out, new Rng(seed32))
  return out
}

/**
 * The epoch's unit order: unit ids, length plan.units.length. Table order (ids ascending) without
 * a seed; otherwise a permutation seeded by (seed, epoch), so every epoch reshuffles and the same
 * (seed, epoch) always gives the same order.
 */
export function unitOrder(plan: ScanPlan, seed: number | undefined, epoch: number): Uint32Array {
  const n = plan.units.length
  return seed === undefined ? identityOrder(n) : permutation(n, mixSeed(seed, epoch))
}

/**
 * Permutation of one shuffle window of a rank's stream: `out[slot]` = offset, within the window,
 * of the pre-shuffle row delivered at that slot. `size` rows (the last window may be short). Seeded
 * by (seed, epoch, rank, window) so any window can be rebuilt alone — that is what makes resuming
 * at an arbitrary position exact.
 */
export function windowPermutation(
  size: number, seed: number, epoch: number, rank: number, window: number,
): Uint32Array {
  return permutation(size, mixSeed(seed, epoch, rank, window))
}
