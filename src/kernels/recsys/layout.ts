/**
 * Buffer and uniform layouts the recommender's kernels, their references and the models share:
 * Adam's uniform values, reduce_sum's pass sizes and nonfinite_count's output words. These are
 * formats, not maths, so production code imports them here rather than from a `.ref.ts`.
 */
import type { AdamHyper } from './embedding-optim-types.ts'

/** The f32 values of the hyperparameters as the kernel sees them in its uniform buffer. */
export function adamUniforms(h: AdamHyper): Record<string, number> {
  return {
    lr: Math.fround(h.lr),
    beta1: Math.fround(h.beta1),
    beta2: Math.fround(h.beta2),
    eps: Math.fround(h.eps),
    weight_decay: Math.fround(h.weightDecay),
    t: h.t,
  }
}

/** Lengths of each pass's output for n inputs and workgroup size wg: e.g. (4096, 256) → [16, 1]; (0, wg) → [1]. */
export function reduceSumLevels(n: number, wg: number): number[] {
  if (!Number.isInteger(wg) || wg < 2 || (wg & (wg - 1)) !== 0)
    throw new RangeError(`reduce_sum: WG must be a power of two ≥ 2, got ${wg}`)
  const levels: number[] = []
  let len = n
  do {
    len = Math.max(1, Math.ceil(len / wg))
    levels.push(len)
  } while (len > 1)
  return levels
}

/** Count and first index (−1 when the count is 0) of the non-finite elements of x[0 … n). */
export interface NonFiniteCount {
  count: number
  first: number
}

/**
 * Decodes the kernel's out words for `slot`: [count, max(n − i)] → { count, first }. `n` is the
 * element count the slot's call scanned.
 */
export function decodeNonFinite(out: Uint32Array, slot: number, n: number): NonFiniteCount {
  const count = out[2 * slot]
  return { count, first: count > 0 ? n - out[2 * slot + 1] : -1 }
}
