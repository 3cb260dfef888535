/**
 * Reference for histogram_subtract.wgsl (XGBoost SubtractionHist): for each triple
 * (parent, built, sibling) of slots, hist[sibling] = hist[parent] − hist[built] over all B bins,
 * exact 64-bit two's-complement subtraction of the [gLo, gHi, hLo, hHi] pairs.
 * B = total bins, T = triples; all slots index the one `hist` buffer (S·B·4 words), so a driver
 * that ping-pongs levels uses two slot ranges of one buffer.
 */

/** `hist[d..d+1] = hist[a..a+1] − hist[s..s+1]` as 64-bit pairs (lo, hi), with borrow. */
export function sub64(hist: Uint32Array, d: number, a: number, s: number): void {
  const aLo = hist[a],
    aHi = hist[a + 1],
    sLo = hist[s],
    sHi = hist[s + 1]
  const borrow = aLo < sLo ? 1 : 0
  hist[d] = (aLo - sLo) >>> 0
  hist[d + 1] = (aHi - sHi - borrow) >>> 0
}

/**
 * In place on `hist` (Uint32Array, S·b·4 words): for t < count, triples[3t..3t+2] = (parent, built, sibling)
 * slot indices; every bin of slot sibling becomes parent − built. `b` = bins per slot (B).
 * A sibling slot must not be a parent or built slot of another triple in the same call.
 */
export function histogramSubtract(triples: Uint32Array, hist: Uint32Array, count: number, b: number): void {
  for (let t = 0; t < count; t++) {
    const [parent, built, sibling] = [triples[3 * t], triples[3 * t + 1], triples[3 * t + 2]]
    for (let bin = 0; bin < b; bin++) {
      for (const w of [0, 2])
        sub64(hist, (sibling * b + bin) * 4 + w, (parent * b + bin) * 4 + w, (built * b + bin) * 4 + w)
    }
  }
}
