/**
 * Reference for embedding_backward.wgsl: the deterministic scatter-add of embedding gradients.
 * Instead of atomics, the CPU groups lookup positions by row (models/recsys/segments.ts) and
 * each (u, d) sums its segment in that fixed order, so GPU and reference agree bit for bit.
 * B·S = lookup positions, U = unique rows, D = embedding dim.
 */
import type { EmbeddingBackwardShape } from './embedding-optim-types.ts'

/**
 * - dout: f32 [B·S × D], gradient of the gathered embeddings (embedding_forward's `out`)
 * - order: u32 [B·S], lookup positions grouped by row, ascending within a row
 * - segStart: u32 [U + 1], segment u is order[segStart[u] .. segStart[u+1])
 * - dRows: f32 [U × D], overwritten with Σ dout over the segment, added left to right in f32
 */
export function embeddingBackward(
  dout: Float32Array,
  order: Uint32Array,
  segStart: Uint32Array,
  dRows: Float32Array,
  shape: EmbeddingBackwardShape,
): void {
  const { uniq, dim } = shape
  for (let u = 0; u < uniq; u++) {
    for (let d = 0; d < dim; d++) {
      let sum = 0
      for (let k = segStart[u]; k < segStart[u + 1]; k++) sum = Math.fround(sum + dout[order[k] * dim + d])
      dRows[u * dim + d] = sum
    }
  }
}
