/**
 * Bag (multi-hot list) features in the model: their lookup positions and pooling codes, and the
 * batch operations that keep bagRows / bagOffsets in step
 * with the rows. Bag items are embedding lookups like the sparse ones: their positions follow the
 * sparse positions (p = B·S + i for item i; the reference's pooling and item gradients are in
 * model-ref.ts), so one segment grouping (segments.ts), one
 * embedding_backward and one row optimizer serve both.
 * B = batch rows, S = sparse features, K = bag features, M = bag items, D = embedding dim,
 * Cd = dense inputs, C0 = (S + K)·D + Cd, P = B·S + M lookup positions.
 */
import type { ModelBatch, ModelShape } from './types.ts'

/** K of a shape (0 without bags). */
export function bagCount(shape: Pick<ModelShape, 'bags'>): number {
  return shape.bags ?? 0
}

/** u32 [K]: 1 where bag k averages its items, 0 where it sums them (the kernels' `pooling`). */
export function poolingCodes(shape: Pick<ModelShape, 'bags' | 'pooling'>): Uint32Array<ArrayBuffer> {
  return Uint32Array.from({ length: bagCount(shape) }, (_, k) => ((shape.pooling?.[k] ?? 'mean') === 'mean' ? 1 : 0))
}

/** M: bag items of a batch (0 without bags). */
export function bagItems(batch: ModelBatch): number {
  return batch.bagRows?.length ?? 0
}

/**
 * u32 [P]: the global row of every lookup position, sparse lookups (b·S + s) then bag items
 * (B·S + i): what embeddingSegments groups. Throws RangeError when the batch's bag arrays do not
 * fit the shape (bagOffsets [B·K + 1], ascending, ending at M).
 */
export function lookupRows(shape: ModelShape, batch: ModelBatch): Uint32Array<ArrayBuffer> {
  const K = bagCount(shape)
  if (K === 0) return batch.rows
  checkBags(batch, K)
  const out = new Uint32Array(batch.rows.length + bagItems(batch))
  out.set(batch.rows)
  out.set(batch.bagRows!, batch.rows.length)
  return out
}

/** Throws RangeError naming what is wrong with the batch's bagRows / bagOffsets for K bags. */
export function checkBags(batch: ModelBatch, K: number): void {
  const { bagRows, bagOffsets } = batch
  if (!bagRows || !bagOffsets) throw new RangeError(`model batch: ${K} bag features but no bagRows / bagOffsets`)
  const j = batch.n * K
  if (bagOffsets.length !== j + 1)
    throw new RangeError(`model batch: bagOffsets has ${bagOffsets.length} values, expected B·K + 1 = ${j + 1}`)
  if (bagOffsets[0] !== 0 || bagOffsets[j] !== bagRows.length)
    throw new RangeError(`model batch: bagOffsets must run from 0 to bagRows.length ${bagRows.length}`)
  for (let i = 0; i < j; i++)
    if (bagOffsets[i + 1] < bagOffsets[i]) throw new RangeError(`model batch: bagOffsets[${i + 1}] < bagOffsets[${i}]`)
}

/** The bags of `parts` one after another (undefined when the parts have none). */
export function concatBags(parts: readonly ModelBatch[]): Pick<ModelBatch, 'bagRows' | 'bagOffsets'> {
  if (!parts.some(b => b.bagOffsets)) return {}
  const M = parts.reduce((s, b) => s + bagItems(b), 0)
  const J = parts.reduce((s, b) => s + (b.bagOffsets?.length ?? 1) - 1, 0)
  const bagRows = new Uint32Array(M),
    bagOffsets = new Uint32Array(J + 1)
  let m = 0,
    j = 0
  for (const b of parts) {
    const offsets = b.bagOffsets ?? new Uint32Array(1)
    bagRows.set(b.bagRows ?? [], m)
    for (let i = 1; i < offsets.length; i++) bagOffsets[j + i] = m + offsets[i]
    m += bagItems(b)
    j += offsets.length - 1
  }
  return { bagRows, bagOffsets }
}

/** The bags of rows `idx` of `b` (K bags per row), in that order; nothing when K = 0. */
export function gatherBags(
  b: ModelBatch,
  idx: ArrayLike<number>,
  K: number,
): Pick<ModelBatch, 'bagRows' | 'bagOffsets'> {
  if (K === 0 || !b.bagOffsets || !b.bagRows) return {}
  const src = b.bagOffsets
  const bagOffsets = new Uint32Array(idx.length * K + 1)
  for (let i = 0; i < idx.length; i++) {
    const r = idx[i]
    for (let k = 0; k < K; k++) bagOffsets[i * K + k + 1] = bagOffsets[i * K + k] + src[r * K + k + 1] - src[r * K + k]
  }
  const bagRows = new Uint32Array(bagOffsets[idx.length * K])
  for (let i = 0; i < idx.length; i++) {
    const r = idx[i]
    bagRows.set(b.bagRows.subarray(src[r * K], src[r * K + K]), bagOffsets[i * K])
  }
  return { bagRows, bagOffsets }
}

/** The bags of rows [start, end) of `b` (K bags per row); nothing when K = 0. */
export function sliceBags(
  b: ModelBatch,
  start: number,
  end: number,
  K: number,
): Pick<ModelBatch, 'bagRows' | 'bagOffsets'> {
  if (K === 0 || !b.bagOffsets || !b.bagRows) return {}
  const from = b.bagOffsets[start * K]
  const bagOffsets = b.bagOffsets.slice(start * K, end * K + 1).map(o => o - from)
  return { bagRows: b.bagRows.slice(from, b.bagOffsets[end * K]), bagOffsets }
}
