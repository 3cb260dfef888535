/**
 * Reference for embedding_forward.wgsl: gathers one embedding row per (b, s) lookup.
 * B = batch rows, S = sparse features, D = embedding dim, R = total rows of all tables.
 */
import type { EmbeddingForwardShape } from './embedding-optim-types.ts'

/**
 * - weights: f32 [R × D], all feature tables stacked (feature s owns a contiguous row range)
 * - rows: u32 [B × S], global row index per lookup (tableOffset[s] + bucket)
 * - out: f32 [B × S × D], overwritten; lookup (b, s) lands at out[(b·S + s)·D ..]
 * A row ≥ R yields zeros: the kernel cannot throw, and zeros keep a bad id from reading another
 * table's row (callers validate ids on the CPU, see models/recsys/segments.ts).
 */
export function embeddingForward(
  weights: Float32Array,
  rows: Uint32Array,
  out: Float32Array,
  shape: EmbeddingForwardShape,
): void {
  const { positions, dim, totalRows } = shape
  for (let p = 0; p < positions; p++) {
    const row = rows[p]
    for (let d = 0; d < dim; d++) out[p * dim + d] = row < totalRows ? weights[row * dim + d] : 0
  }
}
