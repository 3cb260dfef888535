/**
 * Reference for reduce_sum.wgsl: a deterministic f32 sum of N values. Each pass cuts its input
 * into blocks of WG (zero-padded), sums each block with a fixed pairwise tree (stride WG/2, WG/4,
 * …, 1) and writes one partial per block; passes repeat over the partials until one value is
 * left. Float32Array stores round every add, so the result equals the GPU's bit for bit.
 */
import { reduceSumLevels } from './layout.ts'

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
  let cur = inp,
    len = n
  for (const next of reduceSumLevels(n, wg)) {
    const out = new Float32Array(next)
    reduceSumPass(cur, out, len, wg)
    cur = out
    len = next
  }
  return cur[0]
}
