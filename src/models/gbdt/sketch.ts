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
  const places = sketchPlaces(weights, 0, values.length)
  return mergeParts([chunkParts(values, weights, 0, values.length, maxBin, places)], values.length, maxBin, places)
}

/**
 * Some rows of sketch chunk `chunk` of one feature: the whole chunk's summary, pruned to the
 * plan's limit, or — when these rows are only part of the chunk — the rows themselves (their
 * values and weights in row order), so the chunk is summarised once from all of its rows in row
 * order wherever its parts were cut (exact for any weights, not only integer ones).
 */
export type ChunkPart = { chunk: number; summary: Summary } | ({ chunk: number } & ChunkRows)

/** Rows of a part of a chunk (values NaN = missing), in row order; float32 columns stay float32. */
interface ChunkRows {
  values: Float32Array | Float64Array
  weights?: Float32Array | Float64Array
}

/**
 * Places in the sketch's row order of the rows [lo, hi) of `weights`: a row of weight 0 takes
 * none (XGBoost's sketch skips it), every other row one; without weights, hi − lo.
 */
export function sketchPlaces(weights: ArrayLike<number> | undefined, lo = 0, hi = weights?.length ?? 0): number {
  if (!weights) return hi - lo
  let n = 0
  for (let i = lo; i < hi; i++) if (weights[i] > 0) n++
  return n
}

/**
 * Parts of one feature column holding contiguous rows of `total`, the first of them at place `lo`
 * of the `places` places (sketchPlaces of all rows; rows of weight 0 have none): one per sketch
 * chunk (places [k·C, (k+1)·C), C = sketchPlan's chunkRows) touched, its summary already pruned
 * to the plan's limit when these rows are the whole chunk (mergeParts prunes every chunk so, and
 * pruning the whole exact summary here gives the same entries), else the rows themselves.
 */
export function chunkParts(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  lo: number,
  total: number,
  maxBin: number,
  places = total,
): ChunkPart[] {
  const { limit, chunkRows: C } = sketchPlan(total, maxBin)
  const n = values.length,
    out: ChunkPart[] = []
  let i = 0,
    place = lo
  while (i < n) {
    if (weights && !(weights[i] > 0)) {
      i++ // no place: part of no chunk
      continue
    }
    const chunk = Math.floor(place / C),
      chunkEnd = (chunk + 1) * C
    let j = i,
      p = place
    if (!weights) {
      j = Math.min(n, i + chunkEnd - place)
      p = place + j - i
    } else
      while (j < n && p < chunkEnd) {
        if (weights[j] > 0) p++
        j++
      }
    const whole = place === chunk * C && p === Math.min(places, chunkEnd)
    if (whole) out.push({ chunk, summary: prune(summarise(sub(values, i, j), weights && sub(weights, i, j)), limit) })
    else {
      const w = weights && copy(weights, i, j)
      out.push({ chunk, values: copy(values, i, j), ...(w ? { weights: w } : {}) })
    }
    place = p
    i = j
  }
  return out
}

/**
 * One feature's summary of all `total` rows (`places` of them with a place: sketchPlaces) from the
 * parts of disjoint row ranges (outer index: ranks or loader units, in row order). A chunk cut
 * into parts is summarised from their rows joined in row order — what one part holding the whole
 * chunk summarises — so the result depends on the rows and `maxBin` only, never on who held
 * which, for any weights. Each chunk's summary is pruned to the plan's limit and the chunks are
 * folded in chunk order through XGBoost's `WQuantileSketch` levels (`PushTemp`, then
 * `GetSummary` with the last chunk).
 */
export function mergeParts(perPart: ChunkPart[][], total: number, maxBin: number, places = total): Summary {
  const { limit, chunkRows } = sketchPlan(total, maxBin)
  const count = Math.max(1, Math.ceil(places / chunkRows))
  const whole: (Summary | undefined)[] = new Array(count)
  const rows: ChunkRows[][] = Array.from({ length: count }, () => [])
  for (const parts of perPart)
    for (const p of parts) {
      if ('summary' in p) whole[p.chunk] = p.summary
      else rows[p.chunk].push(p)
    }
  const chunks = Array.from({ length: count }, (_, k) => whole[k] ?? joinedSummary(rows[k]))
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
/** The exact summary of parts' rows joined in their order (an empty summary for none). */
function joinedSummary(parts: ChunkRows[]): Summary {
  if (parts.length === 0) return emptySummary()
  if (parts.length === 1) return summarise(parts[0].values, parts[0].weights)
  const n = parts.reduce((s, p) => s + p.values.length, 0)
  const f32 = parts.every(p => p.values instanceof Float32Array)
  const values = f32 ? new Float32Array(n) : new Float64Array(n),
    weights = parts[0].weights ? new Float64Array(n) : undefined
  let at = 0
  for (const p of parts) {
    values.set(p.values, at)
    if (weights) weights.set(p.weights!, at)
    at += p.values.length
  }
  return summarise(values, weights)
}

/** Rows [start, end) of `a`, a copy of their own (a part may cross to a worker): float32 stays float32. */
function copy(a: ArrayLike<number>, start: number, end: number): Float32Array | Float64Array {
  return a instanceof Float32Array ? a.slice(start, end) : Float64Array.from(Array.prototype.slice.call(a, start, end))
}

function sub(a: ArrayLike<number>, start: number, end: number): ArrayLike<number> {
  return ArrayBuffer.isView(a)
    ? (a as unknown as Float32Array).subarray(start, end)
    : Array.prototype.slice.call(a, start, end)
}
