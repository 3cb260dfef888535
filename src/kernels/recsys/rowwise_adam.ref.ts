/**
 * Reference for rowwise_adam.wgsl: lazy Adam(W) for embedding tables. Only the U rows a batch
 * touched move; each keeps its own step counter, so bias correction uses the number of times
 * that row was updated (as TF's LazyAdam / torchrec's row-wise Adam), not the global step.
 * Untouched rows keep weights, m, v and step bit for bit. D = embedding dim, R = total rows.
 */
import { adamElement } from './adam.ref.ts'
import { adamUniforms } from './layout.ts'
import type { RowUpdateShape, RowwiseAdamHyper } from './embedding-optim-types.ts'

/**
 * - weights, m, v: f32 [R × D], updated in place on the rows in `uniq` only
 * - rowStep: u32 [R], times each row was updated; incremented before its update (first = 1)
 * - dRows: f32 [U × D], gradient of row uniq[u]
 * - uniq: u32 [U], distinct row ids (a repeat would race on the GPU); ids ≥ R are skipped
 */
export function rowwiseAdam(
  weights: Float32Array,
  m: Float32Array,
  v: Float32Array,
  rowStep: Uint32Array,
  dRows: Float32Array,
  uniq: Uint32Array,
  shape: RowUpdateShape,
  h: RowwiseAdamHyper,
): void {
  const u = adamUniforms({ ...h, t: 1 })
  const { dim } = shape
  for (let k = 0; k < shape.uniq; k++) {
    const row = uniq[k]
    if (row >= shape.totalRows) continue
    const t = (rowStep[row] + 1) >>> 0
    rowStep[row] = t
    for (let d = 0; d < dim; d++) adamElement(weights, dRows[k * dim + d], m, v, row * dim + d, u, t)
  }
}
