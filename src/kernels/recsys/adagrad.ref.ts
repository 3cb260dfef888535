/**
 * Reference for adagrad.wgsl: Adagrad on the embedding rows a batch touched (PyTorch
 * `torch.optim.Adagrad`, no lr_decay): accum ← accum + g²; w ← w − lr · g / (√accum + eps).
 * Untouched rows keep weights and accumulator bit for bit. U = touched rows, D = embedding dim,
 * R = total rows.
 */
import type { AdagradHyper, RowUpdateShape } from './embedding-optim-types.ts'

/** A fresh accumulator f32 [R × D] filled with `initialValue` (PyTorch `initial_accumulator_value`, default 0). */
export function adagradAccumulator(totalRows: number, dim: number, initialValue = 0): Float32Array<ArrayBuffer> {
  if (!(initialValue >= 0) || !Number.isFinite(initialValue)) {
    throw new RangeError(`adagrad: initial accumulator value must be finite and ≥ 0, got ${initialValue}`)
  }
  return new Float32Array(totalRows * dim).fill(initialValue)
}

/**
 * - weights, accum: f32 [R × D], updated in place on the rows listed in `uniq` only
 * - dRows: f32 [U × D], gradient of row uniq[u] (embedding_backward's output)
 * - uniq: u32 [U], distinct row ids; ids ≥ R are skipped (the kernel cannot throw)
 */
export function adagrad(
  weights: Float32Array,
  accum: Float32Array,
  dRows: Float32Array,
  uniq: Uint32Array,
  shape: RowUpdateShape,
  h: AdagradHyper,
): void {
  const f = Math.fround
  const lr = f(h.lr),
    eps = f(h.eps)
  const { dim } = shape
  for (let u = 0; u < shape.uniq; u++) {
    const row = uniq[u]
    if (row >= shape.totalRows) continue
    for (let d = 0; d < dim; d++) {
      const i = row * dim + d,
        g = dRows[u * dim + d]
      accum[i] = f(accum[i] + f(g * g))
      weights[i] = f(weights[i] - f(lr * f(g / f(f(Math.sqrt(accum[i])) + eps))))
    }
  }
}
