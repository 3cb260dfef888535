/**
 * Seeded orders of the data path: the per-epoch unit order and the per-window row permutations of
 * the bounded-buffer shuffle. Pure functions of their integer inputs, identical in Node, the page
 * and workers (seeds from util/hash.ts `mixSeed`, orders from util/rng.ts `shuffleInPlace`), so
 * every worker of every rank derives the same order without talking to the others.
 */
import { mixSeed } from '../util/hash.ts'
import { Rng, shuffleInPlace } from '../util/rng.ts'
import type { ScanPlan } from './types.ts'

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
 * (seed, epoch) always gives the same order. Unit ids follow the plan's table order, which comes
 * from the files' footers, not their paths (plan.ts), so a share, signed storage and the folder
 * shuffle alike.
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
  size: number,
  seed: number,
  epoch: number,
  rank: number,
  window: number,
): Uint32Array {
  return permutation(size, mixSeed(seed, epoch, rank, window))
}
