/**
 * Reference for reduce_sum.wgsl: a deterministic f32 sum of N values. Each pass cuts its input
 * into blocks of WG (zero-padded), sums each block with a fixed pairwise tree (stride WG/2, WG/4,
 * …, 1) and writes one partial per block; passes repeat over the partials until one value is
 * left. Float32Array stores round every add, so the result equals the GPU's bit for bit.
 */

/** Lengths of each pass's output for n inputs and workgroup size wg: e.g. (4096, 256) → [16, 1]; (0, wg) → [1]. */
export function reduceSumLevels(n: number, wg: number): number[] {
  if (!Number.isInteger(wg) || wg < 2 || (wg & (wg - 1)) !== 0) throw new RangeError(`reduce_sum: WG must be a power of two ≥ 2, got ${wg}`)
  const levels: number[] = []
  let len = n
  do {
    len = Math.max(1, Math.ceil(len / wg))
    levels.push(len)
  } while (len > 1)
  return levels
}

/** One pass: `out[g]` (Float32Array, max(1, ceil(n/wg))) = tree sum of `inp[g·wg … g·wg + wg)`. */
export function reduceSumPass(inp: Float32Array, out: Float32Array, n: number, wg: number): void {
  const groups = Math.max(1, Math.ceil(n / wg))
  const s = new Float32Array(wg)
  for (let g = 0; g < groups; g++) {
    for (let l = 0; l < wg; l++) s[l] = g * wg + l < n ? inp[g * wg + l] : 0
    for (let stride = wg >> 1; stride > 0; stride >>= 1) {
      for (let l = 0; l < stride; l++) s[l] = s[l] + s[l + stride]
    }
    out[g] = s[0]
  }
}

/** The sum of `inp[0 … n)` (Float32Array) as the GPU computes it with workgroup size `wg`. */
export function reduceSum(inp: Float32Array, n: number, wg: number): number {
  let cur = inp, len = n
  for (const next of reduceSumLevels(n, wg)) {
    const out = new Float32Array(next)
    reduceSumPass(cur, out, len, wg)
    cur = out
    len = next
  }
  return cur[0]
}
