/**
 * Weighted, mergeable quantile summary (XGBoost `WQSummary` in `common/quantile.h`): sorted
 * distinct values, each with rank bounds [rmin, rmax] and its own weight wmin. Built exactly from
 * a chunk of (value, weight) pairs, pruned to a fixed size, merged with other chunks' summaries
 * (`combine`, then `prune`) — so cuts can be sketched per worker or per rank and merged, and the
 * rank error stays within the summary's bound (≈ total weight / size per prune).
 * K = entries in a summary.
 */

/** A summary: parallel arrays of length K, values strictly increasing. */
export interface Summary {
  values: Float64Array
  rmin: Float64Array
  rmax: Float64Array
  wmin: Float64Array
}

/** Empty summary. */
export function emptySummary(): Summary {
  return makeSummary(0)
}

function makeSummary(k: number): Summary {
  return {
    values: new Float64Array(k),
    rmin: new Float64Array(k),
    rmax: new Float64Array(k),
    wmin: new Float64Array(k),
  }
}

function slice(s: Summary, k: number): Summary {
  return { values: s.values.slice(0, k), rmin: s.rmin.slice(0, k), rmax: s.rmax.slice(0, k), wmin: s.wmin.slice(0, k) }
}

/**
 * Exact summary of `values` (NaN = missing, skipped) with optional non-negative `weights`
 * (same length; default 1): rmin = weight strictly below, rmax = rmin + weight of the value.
 */
export function summarise(values: ArrayLike<number>, weights?: ArrayLike<number>): Summary {
  const idx: number[] = []
  for (let i = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i]) && (!weights || weights[i] > 0)) idx.push(i)
  }
  idx.sort((a, b) => values[a] - values[b])
  const out = makeSummary(idx.length)
  let k = 0,
    below = 0
  for (let j = 0; j < idx.length; ) {
    const v = values[idx[j]]
    let w = 0
    while (j < idx.length && values[idx[j]] === v) w += weights ? weights[idx[j++]] : (j++, 1)
    out.values[k] = v
    out.rmin[k] = below
    out.rmax[k] = below + w
    out.wmin[k] = w
    below += w
    k++
  }
  return slice(out, k)
}

/** Total weight summarised (rmax of the last entry). */
export function totalWeight(s: Summary): number {
  return s.values.length === 0 ? 0 : s.rmax[s.values.length - 1]
}

/** Merges two summaries of disjoint data (XGBoost `SetCombine`); size = |a| + |b| at most. */
export function combine(a: Summary, b: Summary): Summary {
  const na = a.values.length,
    nb = b.values.length
  if (na === 0) return b
  if (nb === 0) return a
  const out = makeSummary(na + nb)
  let i = 0,
    j = 0,
    k = 0,
    aPrevRmin = 0,
    bPrevRmin = 0
  const put = (v: number, rmin: number, rmax: number, w: number): void => {
    out.values[k] = v
    out.rmin[k] = rmin
    out.rmax[k] = rmax
    out.wmin[k] = w
    k++
  }
  while (i < na && j < nb) {
    if (a.values[i] === b.values[j]) {
      put(a.values[i], a.rmin[i] + b.rmin[j], a.rmax[i] + b.rmax[j], a.wmin[i] + b.wmin[j])
      aPrevRmin = a.rmin[i] + a.wmin[i]
      bPrevRmin = b.rmin[j] + b.wmin[j]
      i++
      j++
    } else if (a.values[i] < b.values[j]) {
      // Entries of b below this value bound its rank from below; b's next entry bounds it above.
      put(a.values[i], a.rmin[i] + bPrevRmin, a.rmax[i] + b.rmax[j] - b.wmin[j], a.wmin[i])
      aPrevRmin = a.rmin[i] + a.wmin[i]
      i++
    } else {
      put(b.values[j], b.rmin[j] + aPrevRmin, b.rmax[j] + a.rmax[i] - a.wmin[i], b.wmin[j])
      bPrevRmin = b.rmin[j] + b.wmin[j]
      j++
    }
  }
  for (; i < na; i++) put(a.values[i], a.rmin[i] + bPrevRmin, a.rmax[i] + b.rmax[nb - 1], a.wmin[i])
  for (; j < nb; j++) put(b.values[j], b.rmin[j] + aPrevRmin, b.rmax[j] + a.rmax[na - 1], b.wmin[j])
  return slice(out, k)
}

/**
 * Keeps at most `maxSize` (≥ 2) entries spread evenly in rank, always the first and last
 * (XGBoost `SetPrune`): for each target rank d = k·range/(n) + begin pick the entry whose rank
 * interval midpoint is nearest.
 */
export function prune(s: Summary, maxSize: number): Summary {
  const size = s.values.length
  if (size <= maxSize) return s
  const out = makeSummary(maxSize)
  const begin = s.rmax[0],
    range = s.rmin[size - 1] - s.rmax[0],
    n = maxSize - 1
  let k = 1,
    i = 1,
    last = 0
  const copy = (src: number): void => {
    out.values[k] = s.values[src]
    out.rmin[k] = s.rmin[src]
    out.rmax[k] = s.rmax[src]
    out.wmin[k] = s.wmin[src]
    k++
    last = src
  }
  k = 0
  copy(0)
  for (let t = 1; t < n; t++) {
    const dx2 = 2 * ((t * range) / n + begin)
    while (i < size - 1 && dx2 >= s.rmax[i + 1] + s.rmin[i + 1]) i++
    if (i === size - 1) break
    // Midpoint test between entry i's upper rank and entry i+1's lower rank.
    const pick = dx2 < s.rmin[i] + s.wmin[i] + s.rmax[i + 1] - s.wmin[i + 1] ? i : i + 1
    if (pick !== last) copy(pick)
  }
  if (last !== size - 1) copy(size - 1)
  return slice(out, k)
}

/**
 * Sketch of one feature column built chunk by chunk: each chunk is summarised exactly, pruned to
 * `limit` entries and merged into the running summary, which is pruned again (memory stays
 * O(limit) per feature; a single chunk is returned exact).
 * `limit` = sketch size (XGBoost uses about 8 × max_bin entries per summary).
 */
export function sketchColumn(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  limit: number,
  chunkRows = 1 << 16,
): Summary {
  // One chunk: keep it exact; the caller's final prune then picks exact quantiles.
  if (values.length <= chunkRows) return summarise(values, weights)
  let acc = emptySummary()
  for (let start = 0; start < values.length; start += chunkRows) {
    const end = Math.min(values.length, start + chunkRows)
    const part = summarise(sub(values, start, end), weights && sub(weights, start, end))
    acc = prune(combine(acc, prune(part, limit)), limit)
  }
  return acc
}

function sub(a: ArrayLike<number>, start: number, end: number): ArrayLike<number> {
  return ArrayBuffer.isView(a)
    ? (a as unknown as Float32Array).subarray(start, end)
    : Array.prototype.slice.call(a, start, end)
}
