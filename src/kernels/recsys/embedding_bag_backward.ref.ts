/**
 * Reference for embedding_bag_backward.wgsl: the gradient of each bag item's embedding row, the
 * pooled gradient of its bag (÷ item count for a mean). The items then join the sparse lookups'
 * positions, so embedding_backward groups and sums them with one segment order and the row
 * optimizers update them as any looked-up row. B = batch rows, K = bag features, M = items,
 * D = embedding dim, W = floats per row of dout.
 */
import type { EmbeddingBagBackwardShape } from './embedding-optim-types.ts'

/**
 * - dout: f32 [B × W], the gradient of the pooled bags: bag (b, k) at dout[b·W + offset + k·D ..]
 *   (W = `stride`; the MLP input's gradient, bags after the S sparse embeddings)
 * - bagOffsets: u32 [B·K + 1], as embedding_bag_forward's
 * - pooling: u32 [K], 1 = mean, 0 = sum
 * - dItems: f32 [(base + M) × D]; item i's gradient is written at dItems[(base + i)·D ..], the
 *   rest is left as it is (positions below `base` hold the sparse lookups' gradients)
 */
export function embeddingBagBackward(
  dout: Float32Array,
  bagOffsets: Uint32Array,
  pooling: Uint32Array,
  dItems: Float32Array,
  shape: EmbeddingBagBackwardShape,
): void {
  const { b, k, dim, stride, offset, base } = shape
  for (let j = 0; j < b * k; j++) {
    const start = bagOffsets[j],
      end = bagOffsets[j + 1]
    const mean = pooling[j % k] === 1
    const from = Math.floor(j / k) * stride + offset + (j % k) * dim
    for (let i = start; i < end; i++) {
      for (let d = 0; d < dim; d++) {
        const g = dout[from + d]
        dItems[(base + i) * dim + d] = mean ? Math.fround(g / (end - start)) : g
      }
    }
  }
}
