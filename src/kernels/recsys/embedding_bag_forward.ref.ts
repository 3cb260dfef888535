/**
 * Reference for embedding_bag_forward.wgsl: pools each (row, bag) list of embedding rows into one
 * vector, their sum or their mean. B = batch rows, K = bag features, M = items of the batch,
 * D = embedding dim, R = total rows of all tables.
 */
import type { EmbeddingBagForwardShape } from './embedding-optim-types.ts'

/**
 * - weights: f32 [R × D], all tables stacked (bag k owns a contiguous row range)
 * - bagRows: u32 [M], global row of every item, row-major (row b, bag k, items in list order)
 * - bagOffsets: u32 [B·K + 1], the items of bag j = b·K + k are bagRows[bagOffsets[j] .. bagOffsets[j+1])
 * - pooling: u32 [K], 1 = mean, 0 = sum, per bag feature
 * - out: f32 [B × K × D], overwritten; bag j lands at out[j·D ..]. An empty bag gives zeros; the
 *   items are added left to right in f32, a mean divides the sum by the item count. A row ≥ R
 *   adds zeros (as embedding_forward: the kernel cannot throw; ids are validated on the CPU).
 */
export function embeddingBagForward(
  weights: Float32Array,
  bagRows: Uint32Array,
  bagOffsets: Uint32Array,
  pooling: Uint32Array,
  out: Float32Array,
  shape: EmbeddingBagForwardShape,
): void {
  const { b, k, dim, totalRows } = shape
  for (let j = 0; j < b * k; j++) {
    const start = bagOffsets[j],
      end = bagOffsets[j + 1]
    const mean = pooling[j % k] === 1 && end > start
    for (let d = 0; d < dim; d++) {
      let sum = 0
      for (let i = start; i < end; i++) {
        const row = bagRows[i]
        sum = Math.fround(sum + (row < totalRows ? weights[row * dim + d] : 0))
      }
      out[j * dim + d] = mean ? Math.fround(sum / (end - start)) : sum
    }
  }
}
