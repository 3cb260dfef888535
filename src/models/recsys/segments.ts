/**
 * The CPU half of the deterministic embedding backward: group a
 * batch's lookup positions by embedding row, so embedding_backward sums each row's gradients in
 * one fixed order without atomics, and the row optimizers touch only those rows.
 * B·S = lookup positions (p = b·S + s), U = distinct rows in the batch.
 */

/** Lookup positions grouped by row: the inputs of embedding_backward and the row optimizers. */
export interface EmbeddingSegments {
  /** u32 [U]: the distinct rows of the batch, ascending. */
  uniq: Uint32Array<ArrayBuffer>
  /** u32 [U + 1]: segment u (row uniq[u]) is order[segStart[u] .. segStart[u+1]). */
  segStart: Uint32Array<ArrayBuffer>
  /** u32 [B·S]: every position once, grouped by row in uniq order, ascending within a row. */
  order: Uint32Array<ArrayBuffer>
}

/**
 * Groups the positions of `rows` (u32 [B·S], global row ids) by row. With `totalRows` = R given,
 * a row ≥ R throws RangeError naming the position (the GPU would silently skip it).
 */
export function embeddingSegments(rows: Uint32Array, totalRows?: number): EmbeddingSegments {
  const n = rows.length
  if (totalRows !== undefined) checkRows(rows, totalRows)
  const order = sortedPositions(rows)
  let uniqCount = 0
  for (let k = 0; k < n; k++) if (k === 0 || rows[order[k]] !== rows[order[k - 1]]) uniqCount++
  const uniq = new Uint32Array(uniqCount)
  const segStart = new Uint32Array(uniqCount + 1)
  let u = -1
  for (let k = 0; k < n; k++) {
    if (k === 0 || rows[order[k]] !== rows[order[k - 1]]) {
      uniq[++u] = rows[order[k]]
      segStart[u] = k
    }
  }
  segStart[uniqCount] = n
  return { uniq, segStart, order }
}

/**
 * Positions sorted by (row, position). Packs both into one float64 key (row·n + p, exact below
 * 2^53) so the native numeric sort does the work instead of a comparator callback per pair.
 */
function sortedPositions(rows: Uint32Array): Uint32Array<ArrayBuffer> {
  const n = rows.length
  const order = new Uint32Array(n)
  if (n * 2 ** 32 > Number.MAX_SAFE_INTEGER) {
    order.forEach((_, p) => {
      order[p] = p
    })
    return order.sort((a, b) => rows[a] - rows[b] || a - b)
  }
  const keys = new Float64Array(n)
  for (let p = 0; p < n; p++) keys[p] = rows[p] * n + p
  keys.sort()
  for (let k = 0; k < n; k++) order[k] = keys[k] % n
  return order
}

function checkRows(rows: Uint32Array, totalRows: number): void {
  if (!Number.isInteger(totalRows) || totalRows < 0)
    throw new RangeError(`embeddingSegments: totalRows must be an integer ≥ 0, got ${totalRows}`)
  for (let p = 0; p < rows.length; p++) {
    if (rows[p] >= totalRows)
      throw new RangeError(`embeddingSegments: rows[${p}] = ${rows[p]} is not below totalRows ${totalRows}`)
  }
}
