/**
 * Combining the ranks' gradients of one step. Dense gradients: one allreduce(sum)
 * of the concatenated MLP gradients. Embedding gradients: sparse — every rank allgathers the
 * others' touched rows and row gradients and merges them per row in rank order, so only rows
 * some rank touched are updated and no rank ships an [R × D] table. Ranks send gradients of
 * Σ loss; dividing by the global rows N afterwards gives the gradient of the global batch mean
 * even when ranks hold different row counts (validation holdout, last batch).
 * P = dense parameters, U = distinct rows, D = embedding dim.
 */
import type { Collective } from '../../ranks/types.ts'
import type { CombinedGradients, RankGradients } from './dist-types.ts'

/** What a rank ships in the allgather: everything but the dense gradients. */
type SparsePart = Pick<RankGradients, 'n' | 'lossSum' | 'rows' | 'dRows'>

/**
 * The global-batch gradients from this rank's `g`; every rank must call it in the same step.
 * Resolves to the same values on every rank. With world 1 no collective traffic is needed but
 * the same arithmetic runs (so R = 1 through this path equals a plain step up to the division).
 */
export async function combineGradients(coll: Collective, g: RankGradients, dim: number): Promise<CombinedGradients> {
  const part: SparsePart = { n: g.n, lossSum: g.lossSum, rows: g.rows, dRows: g.dRows }
  const parts = coll.world === 1 ? [part] : await coll.allgather(part)
  const dense = coll.world === 1 ? g.dense.slice() : await coll.allreduceSum(g.dense)
  const n = parts.reduce((s, p) => s + p.n, 0)
  const merged = mergeRowGradients(parts, dim)
  if (n > 0) {
    divideInPlace(dense, n)
    divideInPlace(merged.dRows, n)
  }
  const loss = n > 0 ? parts.reduce((s, p) => s + p.lossSum, 0) / n : NaN
  return { n, loss, dense, rows: merged.rows, dRows: merged.dRows }
}

/**
 * Union of the parts' touched rows (ascending) and, per row, the sum of the parts' gradients
 * in part (= rank) order, rounded to f32 after each addition (as a rank-order float sum).
 * Throws RangeError when a part's dRows length is not U × D.
 */
export function mergeRowGradients(parts: readonly Pick<RankGradients, 'rows' | 'dRows'>[], dim: number): { rows: Uint32Array<ArrayBuffer>; dRows: Float32Array<ArrayBuffer> } {
  parts.forEach((p, r) => {
    if (p.dRows.length !== p.rows.length * dim) throw new RangeError(`rank ${r}: dRows has ${p.dRows.length} values, expected ${p.rows.length} rows × dim ${dim}`)
  })
  const rows = unionSorted(parts.map(p => p.rows))
  const dRows = new Float32Array(rows.length * dim)
  for (const p of parts) {
    let k = 0 // both lists ascending: walk them together instead of searching
    for (let u = 0; u < p.rows.length; u++) {
      while (rows[k] !== p.rows[u]) k++
      for (let d = 0; d < dim; d++) dRows[k * dim + d] += p.dRows[u * dim + d]
    }
  }
  return { rows, dRows }
}

/** Distinct values of ascending u32 lists, ascending. */
function unionSorted(lists: readonly Uint32Array[]): Uint32Array<ArrayBuffer> {
  const all = new Uint32Array(lists.reduce((s, l) => s + l.length, 0))
  let at = 0
  for (const l of lists) { all.set(l, at); at += l.length }
  all.sort()
  let u = 0
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[u++] = all[i]
  return all.slice(0, u)
}

function divideInPlace(a: Float32Array, n: number): void {
  for (let i = 0; i < a.length; i++) a[i] = a[i] / n
}
