/**
 * Parameter layout of the embedding (+ cross network) + MLP model (llm.c conventions).
 * Embeddings: one f32 [R × D] table stack. Cross layer k (0 … Kc−1, DCN-v2) has `c{k}.w` [C0 × C0]
 * (full rank) or `c{k}.v` [r × C0] and `c{k}.u` [C0 × r] (low rank, W = U V), then `c{k}.b` [C0].
 * MLP: layer l (0 … L−1 hidden, L = output) has weight `w{l}` [OC × C] row-major and bias `b{l}`
 * [OC]; C of layer 0 = C0 = S·D + Cd, OC of layer L = 1. Dense tensors are listed cross first, then
 * w0, b0, w1, b1, …, wL, bL: the order of checkpoints and optimizer state.
 */
import { DEFAULT_RECSYS_PARAMS } from './params.ts'
import type { BagPooling, CrossShape, DenseTensor, ModelShape, RecsysParams } from './types.ts'

/** C0: MLP input width, the S embeddings of D, the K pooled bags of D, then the Cd dense inputs. */
export function inputWidth(shape: ModelShape): number {
  return (shape.sparse + (shape.bags ?? 0)) * shape.dim + shape.dense
}

/** [C, OC] of every layer, hidden layers then the 1-wide output layer. */
export function layerDims(shape: ModelShape): [number, number][] {
  const widths = [inputWidth(shape), ...shape.layers, 1]
  return widths.slice(1).map((oc, l) => [widths[l], oc])
}

/** The cross network of `shape`: Kc = 0 when it has none (absent `cross`: an 'mlp' shape). */
export function crossOf(shape: ModelShape): CrossShape {
  return shape.cross ?? { layers: 0, rank: 0 }
}

/** The cross tensors in layout order: per layer c{k}.w (or c{k}.v, c{k}.u), then c{k}.b. */
export function crossTensors(shape: ModelShape): DenseTensor[] {
  const { layers, rank } = crossOf(shape)
  const c0 = inputWidth(shape)
  const tensor = (name: string, rows: number, cols: number): DenseTensor => ({ name, length: rows * cols, rows, cols })
  return Array.from({ length: layers }, (_, k) => [
    ...(rank === 0 ? [tensor(`c${k}.w`, c0, c0)] : [tensor(`c${k}.v`, rank, c0), tensor(`c${k}.u`, c0, rank)]),
    tensor(`c${k}.b`, c0, 1),
  ]).flat()
}

/** Index of w0 among denseTensors(): the cross tensors come first. */
export function mlpTensorOffset(shape: ModelShape): number {
  const { layers, rank } = crossOf(shape)
  return layers * (rank === 0 ? 2 : 3)
}

/** The dense tensors in layout order: the cross tensors, then w{l} and b{l} for each MLP layer. */
export function denseTensors(shape: ModelShape): DenseTensor[] {
  return [
    ...crossTensors(shape),
    ...layerDims(shape).flatMap(([c, oc], l) => [
      { name: `w${l}`, length: oc * c, rows: oc, cols: c },
      { name: `b${l}`, length: oc, rows: oc, cols: 1 },
    ]),
  ]
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
  if (shape.bags !== undefined) count('bags', shape.bags, 0)
  if (
    shape.pooling !== undefined &&
    !(
      Array.isArray(shape.pooling) &&
      shape.pooling.length === (shape.bags ?? 0) &&
      shape.pooling.every(x => x === 'sum' || x === 'mean')
    )
  )
    throw new RangeError(
      `model shape: pooling must list 'sum' or 'mean' for each of the ${shape.bags ?? 0} bags, got ${JSON.stringify(shape.pooling)}`,
    )
  count('totalRows', shape.totalRows, shape.sparse + (shape.bags ?? 0) > 0 ? 1 : 0)
  count('dense', shape.dense, 0)
  if (inputWidth(shape) === 0) throw new RangeError('model shape: no inputs (no sparse, bag or dense features)')
  shape.layers.forEach((h, l) => count(`layers[${l}]`, h, 1))
  if (shape.cross !== undefined) checkCross(shape.cross, inputWidth(shape))
}

function checkCross(cross: CrossShape, c0: number): void {
  if (!cross || typeof cross !== 'object')
    throw new RangeError(`model shape: cross must be { layers, rank }, got ${cross}`)
  const { layers, rank } = cross
  if (!Number.isInteger(layers) || layers < 0)
    throw new RangeError(`model shape: cross.layers (cross_layers) must be an integer ≥ 0, got ${layers}`)
  if (!Number.isInteger(rank) || rank < 0 || rank > c0)
    throw new RangeError(
      `model shape: cross_rank must be 0 (full rank) or an integer in [1, C0 = ${c0}] (the model's input width), got ${rank}`,
    )
}

/**
 * The model shape of a feature layout under `params` (embedding_dim, layers; architecture,
 * cross_layers, cross_rank: 'mlp' when absent).
 */
export function modelShapeOf(
  layout: { sparse: unknown[]; bags?: { pooling: BagPooling }[]; totalRows: number; denseInputs: number },
  p: { embedding_dim: number; layers: number[] } & Partial<
    Pick<RecsysParams, 'architecture' | 'cross_layers' | 'cross_rank'>
  >,
): ModelShape {
  const dcn = p.architecture === 'dcn'
  const shape = {
    sparse: layout.sparse.length,
    bags: layout.bags?.length ?? 0,
    pooling: (layout.bags ?? []).map(f => f.pooling),
    dim: p.embedding_dim,
    totalRows: layout.totalRows,
    dense: layout.denseInputs,
    layers: [...p.layers],
    cross: dcn
      ? {
          layers: p.cross_layers ?? DEFAULT_RECSYS_PARAMS.cross_layers,
          rank: p.cross_rank ?? DEFAULT_RECSYS_PARAMS.cross_rank,
        }
      : { layers: 0, rank: 0 },
  }
  checkShape(shape)
  return shape
}
