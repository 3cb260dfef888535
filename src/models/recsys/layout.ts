/**
 * Parameter layout of the embedding + MLP model (llm.c conventions).
 * Embeddings: one f32 [R × D] table stack. MLP: layer l (0 … L−1 hidden, L = output) has weight
 * `w{l}` [OC × C] row-major and bias `b{l}` [OC]; C of layer 0 = C0 = S·D + Cd, OC of layer L = 1.
 * Dense tensors are listed w0, b0, w1, b1, …, wL, bL: the order of checkpoints and optimizer state.
 */
import type { DenseTensor, ModelShape } from './types.ts'

/** C0: MLP input width, the S embeddings of D followed by the Cd dense inputs. */
export function inputWidth(shape: ModelShape): number {
  return shape.sparse * shape.dim + shape.dense
}

/** [C, OC] of every layer, hidden layers then the 1-wide output layer. */
export function layerDims(shape: ModelShape): [number, number][] {
  const widths = [inputWidth(shape), ...shape.layers, 1]
  return widths.slice(1).map((oc, l) => [widths[l], oc])
}

/** The dense tensors in layout order (w{l} then b{l} for each layer). */
export function denseTensors(shape: ModelShape): DenseTensor[] {
  return layerDims(shape).flatMap(([c, oc], l) => [
    { name: `w${l}`, length: oc * c, rows: oc, cols: c },
    { name: `b${l}`, length: oc, rows: oc, cols: 1 },
  ])
}

/** Parameter counts: embedding floats (R·D) and dense floats (Σ tensors). */
export function parameterCount(shape: ModelShape): { embedding: number; dense: number } {
  return { embedding: shape.totalRows * shape.dim, dense: denseTensors(shape).reduce((s, t) => s + t.length, 0) }
}

/** Throws RangeError naming the bad field of a model shape. */
export function checkShape(shape: ModelShape): void {
  const count = (name: string, v: number, min: number): void => {
    if (!Number.isInteger(v) || v < min)
      throw new RangeError(`model shape: ${name} must be an integer ≥ ${min}, got ${v}`)
  }
  count('sparse', shape.sparse, 0)
  count('dim', shape.dim, 1)
  count('totalRows', shape.totalRows, shape.sparse > 0 ? 1 : 0)
  count('dense', shape.dense, 0)
  if (inputWidth(shape) === 0) throw new RangeError('model shape: no inputs (no sparse and no dense features)')
  shape.layers.forEach((h, l) => count(`layers[${l}]`, h, 1))
}

/** The model shape of a feature layout under `params` (embedding_dim, layers). */
export function modelShapeOf(
  layout: { sparse: unknown[]; totalRows: number; denseInputs: number },
  p: { embedding_dim: number; layers: number[] },
): ModelShape {
  const shape = {
    sparse: layout.sparse.length,
    dim: p.embedding_dim,
    totalRows: layout.totalRows,
    dense: layout.denseInputs,
    layers: [...p.layers],
  }
  checkShape(shape)
  return shape
}
