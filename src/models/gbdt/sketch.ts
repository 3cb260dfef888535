/**
 * Weighted, mergeable quantile summary (XGBoost `WQSummary` in `common/quantile.h`): sorted
 * distinct values, each with rank bounds [rmin, rmax] and its own weight wmin. Built exactly from
 * a chunk of (value, weight) pairs, pruned to a fixed size, merged with other chunks' summaries
 * (`combine`, then `prune`) — so cuts can be sketched per worker or per rank and merged, and the
 * rank error stays within the summary's bound (≈ total weight / size per prune). A column's
 * sketch follows XGBoost 1.7's `WQuantileSketch` (sketchPlan, mergeParts), so the cuts match its
 * hist cuts. K = entries in a summary.
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

/** The first k entries, as views (no copy: summaries are never written after they are built). */
function slice(s: Summary, k: number): Summary {
  if (k === s.values.length) return s
  return {
    values: s.values.subarray(0, k),
    rmin: s.rmin.subarray(0, k),
    rmax: s.rmax.subarray(0, k),
    wmin: s.wmin.subarray(0, k),
  }
}

/**
 * Exact summary of `values` (NaN = missing, skipped) with optional non-negative `weights`
 * (same length; default 1): rmin = weight strictly below, rmax = rmin + weight of the value.
 * Unweighted values are copied and sorted as a typed array (native numeric sort, no comparator:
 * the bulk of the sketch's time); weighted ones sort their row indices.
 */
export function summarise(values: ArrayLike<number>, weights?: ArrayLike<number>): Summary {
  if (!weights) return runs(sortedValues(values))
  let kept = 0
  const idx = new Uint32Array(values.length)
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i]) && weights[i] > 0) idx[kept++] = i
  const order = idx.subarray(0, kept).sort((a, b) => values[a] - values[b])
  const v = new Float64Array(kept),
    w = new Float64Array(kept)
  for (let j = 0; j < kept; j++) {
    v[j] = values[order[j]]
    w[j] = weights[order[j]]
  }
  return runs(v, w)
}

/** The non-missing values, sorted ascending (float32 columns by radix sort, see sortFloat32). */
function sortedValues(values: ArrayLike<number>): Float32Array | Float64Array {
  if (values instanceof Float32Array) return sortFloat32(values)
  const buf = new Float64Array(values.length)
  let k = 0
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (!Number.isNaN(v)) buf[k++] = v
  }
  return buf.subarray(0, k).sort()
}

/**
 * The non-NaN values of a float32 array, sorted: an LSD radix sort (3 passes of 11 bits) of
 * order-preserving keys (bits ^ 0x80000000 for v ≥ +0, ~bits below; −0 sorts just before +0,
 * and the two compare equal after), about twice as fast as the native sort of a copy here.
 */
function sortFloat32(values: Float32Array): Float32Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length)
  let keys = new Uint32Array(values.length)
  let n = 0
  for (let i = 0; i < bits.length; i++) {
    const x = bits[i]
    if ((x & 0x7fffffff) > 0x7f800000) continue
    keys[n++] = x ^ ((x >> 31) | 0x80000000)
  }
  keys = keys.subarray(0, n)
  const counts = new Uint32Array(3 * 2048)
  for (let i = 0; i < n; i++) {
    const k = keys[i]
    counts[k & 2047]++
    counts[2048 + ((k >>> 11) & 2047)]++
    counts[4096 + (k >>> 22)]++
  }
  for (let d = 0; d < 3; d++) {
    let sum = 0
    for (let j = d * 2048; j < (d + 1) * 2048; j++) {
      const c = counts[j]
      counts[j] = sum
      sum += c
    }
  }
  let tmp = new Uint32Array(n)
  for (let d = 0; d < 3; d++) {
    const shift = 11 * d,
      at = 2048 * d
    for (let i = 0; i < n; i++) {
      const k = keys[i]
      tmp[counts[at + ((k >>> shift) & 2047)]++] = k
    }
    const t = keys
    keys = tmp
    tmp = t
  }
  // Keys back to float bits, in place: the same buffer viewed as float32.
  for (let i = 0; i < n; i++) {
    const k = keys[i]
    keys[i] = k & 0x80000000 ? k ^ 0x80000000 : ~k
  }
  return new Float32Array(keys.buffer, keys.byteOffset, n)
}

/** Summary of sorted values (optional weights alongside): one entry per distinct value. */
function runs(sorted: ArrayLike<number>, weights?: ArrayLike<number>): Summary {
  const n = sorted.length
  let distinct = 0
  for (let j = 0; j < n; j++) if (j === 0 || sorted[j] !== sorted[j - 1]) distinct++
  const out = makeSummary(distinct)
  let k = 0,
    below = 0
  for (let j = 0; j < n; ) {
    const v = sorted[j]
    let w = 0
    if (weights) while (j < n && sorted[j] === v) w += weights[j++]
    else while (j < n && sorted[j] === v) w++, j++
    out.values[k] = v
    out.rmin[k] = below
    out.rmax[k] = below + w
    out.wmin[k] = w
    below += w
    k++
  }
  return out
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
  const { values: av, rmin: ar, rmax: ax, wmin: aw } = a
  const { values: bv, rmin: br, rmax: bx, wmin: bw } = b
  const { values: ov, rmin: or, rmax: ox, wmin: ow } = out
  let i = 0,
    j = 0,
    k = 0,
    aPrevRmin = 0,
    bPrevRmin = 0
  while (i < na && j < nb) {
    const x = av[i],
      y = bv[j]
    if (x === y) {
      ov[k] = x
      or[k] = ar[i] + br[j]
      ox[k] = ax[i] + bx[j]
      ow[k] = aw[i] + bw[j]
      aPrevRmin = ar[i] + aw[i]
      bPrevRmin = br[j] + bw[j]
      i++
      j++
    } else if (x < y) {
      // Entries of b below this value bound its rank from below; b's next entry bounds it above.
      ov[k] = x
      or[k] = ar[i] + bPrevRmin
      ox[k] = ax[i] + bx[j] - bw[j]
      ow[k] = aw[i]
      aPrevRmin = ar[i] + aw[i]
      i++
    } else {
      ov[k] = y
      or[k] = br[j] + aPrevRmin
      ox[k] = bx[j] + ax[i] - aw[i]
      ow[k] = bw[j]
      bPrevRmin = br[j] + bw[j]
      j++
    }
    k++
  }
  for (; i < na; i++, k++) {
    ov[k] = av[i]
    or[k] = ar[i] + bPrevRmin
    ox[k] = ax[i] + bx[nb - 1]
    ow[k] = aw[i]
  }
  for (; j < nb; j++, k++) {
    ov[k] = bv[j]
    or[k] = br[j] + aPrevRmin
    ox[k] = bx[j] + ax[na - 1]
    ow[k] = bw[j]
  }
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
  const { values, rmin, rmax, wmin } = s
  const begin = rmax[0],
    range = rmin[size - 1] - rmax[0],
    n = maxSize - 1
  let k = 0,
    i = 1,
    last = -1
  const picks = new Uint32Array(maxSize)
  picks[k++] = 0
  last = 0
  // The target ranks in float32, as XGBoost's float summaries compute them: in float64 some land
  // on the other side of a midpoint and pick a neighbouring entry.
  const fr = Math.fround
  for (let t = 1; t < n; t++) {
    const dx2 = 2 * fr(fr(fr(t * range) / n) + begin)
    while (i < size - 1 && dx2 >= rmax[i + 1] + rmin[i + 1]) i++
    if (i === size - 1) break
    // Midpoint test between entry i's upper rank and entry i+1's lower rank.
    const pick = dx2 < rmin[i] + wmin[i] + rmax[i + 1] - wmin[i + 1] ? i : i + 1
    if (pick !== last) {
      picks[k++] = pick
      last = pick
    }
  }
  if (last !== size - 1) picks[k++] = size - 1
  for (let j = 0; j < k; j++) {
    const src = picks[j]
    out.values[j] = values[src]
    out.rmin[j] = rmin[src]
    out.rmax[j] = rmax[src]
    out.wmin[j] = wmin[src]
  }
  return slice(out, k)
}

/** Sketch entries kept per feature after the merge, per requested bin (XGBoost `kFactor`: 8). */
export const SKETCH_RATIO = 8

/**
 * Sizes of a column sketch over `total` rows for `maxBin` bins (XGBoost `LimitSizeLevel` with
 * eps = 1 / (SKETCH_RATIO · maxBin)): `limit` entries per summary level, and the rows of one
 * chunk (2 · limit, XGBoost's input buffer), so an exact chunk summary is pruned once to `limit`.
 * Derived from the row count, which every rank and every worker knows before sketching, and
 * not from the column's non-missing count as in XGBoost (so a sparse column's sketch is finer).
 */
export function sketchPlan(total: number, maxBin: number): { limit: number; chunkRows: number } {
  const maxn = Math.max(1, total),
    perLevel = SKETCH_RATIO * maxBin
  let nlevel = 1,
    limit = 0
  for (;;) {
    limit = Math.min(maxn, nlevel * perLevel + 1)
    if (2 ** nlevel * limit >= maxn) break
    nlevel++
  }
  return { limit, chunkRows: 2 * limit }
}

/**
 * Sketch of one feature column (`values`, NaN = missing; optional row `weights`) for `maxBin`
 * bins: chunkParts over all rows, merged as the rank and loader paths merge theirs.
 */
export function sketchColumn(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  maxBin: number,
): Summary {
  return mergeParts([chunkParts(values, weights, 0, values.length, maxBin)], values.length, maxBin)
}

/** An exact (or, for a whole chunk, pruned) summary of some rows of sketch chunk `chunk` of one feature. */
export interface ChunkPart {
  chunk: number
  summary: Summary
}

/**
 * Parts of one feature column holding the contiguous rows [lo, lo + values.length) of `total`:
 * one per sketch chunk (global rows [k·C, (k+1)·C), C = sketchPlan's chunkRows) touched, exact,
 * or already pruned to the plan's limit when these rows are the whole chunk (mergeParts prunes
 * every chunk so, and pruning the whole exact summary here gives the same entries).
 */
export function chunkParts(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  lo: number,
  total: number,
  maxBin: number,
): ChunkPart[] {
  const { limit, chunkRows: C } = sketchPlan(total, maxBin)
  const hi = lo + values.length,
    out: ChunkPart[] = []
  for (let start = lo; start < hi; ) {
    const chunk = Math.floor(start / C),
      end = Math.min(hi, (chunk + 1) * C)
    const s = summarise(sub(values, start - lo, end - lo), weights && sub(weights, start - lo, end - lo))
    const whole = start === chunk * C && end === Math.min(total, (chunk + 1) * C)
    out.push({ chunk, summary: whole ? prune(s, limit) : s })
    start = end
  }
  return out
}

/**
 * One feature's summary of all `total` rows from the parts of disjoint row ranges (outer index:
 * ranks or loader units, in row order; any fixed order gives the same result for integer
 * weights, since exact summaries of disjoint rows combine into the exact summary of their
 * union). Each chunk's summary is pruned to the plan's limit and the chunks are folded in chunk
 * order through XGBoost's `WQuantileSketch` levels (`PushTemp`, then `GetSummary` with the last
 * chunk), so the result depends on the rows and `maxBin` only — never on who summarised which.
 */
export function mergeParts(perPart: ChunkPart[][], total: number, maxBin: number): Summary {
  const { limit, chunkRows } = sketchPlan(total, maxBin)
  const chunks: Summary[] = Array.from({ length: Math.max(1, Math.ceil(total / chunkRows)) }, emptySummary)
  for (const parts of perPart) for (const p of parts) chunks[p.chunk] = combine(chunks[p.chunk], p.summary)
  const levels: Summary[] = []
  for (let k = 0; k + 1 < chunks.length; k++) pushLevel(levels, prune(chunks[k], limit), limit)
  let out = prune(chunks[chunks.length - 1], limit)
  for (const level of levels) {
    if (level.values.length === 0) continue
    out = out.values.length === 0 ? level : prune(combine(out, level), limit)
  }
  return out
}

/** XGBoost `PushTemp`: carries a chunk summary up the levels while the merge exceeds `limit`. */
function pushLevel(levels: Summary[], temp: Summary, limit: number): void {
  if (temp.values.length === 0) return
  for (let l = 0; ; l++) {
    const level = levels[l]
    if (level === undefined || level.values.length === 0) {
      levels[l] = prune(temp, limit)
      return
    }
    const merged = combine(prune(temp, limit), level)
    if (merged.values.length <= limit) {
      levels[l] = merged
      return
    }
    levels[l] = emptySummary()
    temp = merged
  }
}
function sub(a: ArrayLike<number>, start: number, end: number): ArrayLike<number> {
  return ArrayBuffer.isView(a)
    ? (a as unknown as Float32Array).subarray(start, end)
    : Array.prototype.slice.call(a, start, end)
}
