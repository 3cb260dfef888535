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
  return region(s, 0, k)
}

/** Entries [at, at + k) of a summary's arrays, as views. */
function region(s: Summary, at: number, k: number): Summary {
  return {
    values: s.values.subarray(at, at + k),
    rmin: s.rmin.subarray(at, at + k),
    rmax: s.rmax.subarray(at, at + k),
    wmin: s.wmin.subarray(at, at + k),
  }
}

/** `s` copied into the storage `to` (room for it): a view of `to`'s first |s| entries. */
function copyInto(s: Summary, to: Summary): Summary {
  const k = s.values.length
  to.values.set(s.values)
  to.rmin.set(s.rmin)
  to.rmax.set(s.rmax)
  to.wmin.set(s.wmin)
  return slice(to, k)
}

/** `store` when it holds `k` entries, else a new storage of at least k (scratch grows). */
function room(store: Summary, k: number): Summary {
  return store.values.length >= k ? store : makeSummary(Math.max(k, 2 * store.values.length))
}

/**
 * Exact summary of `values` (NaN = missing, skipped) with optional non-negative `weights`
 * (same length; default 1): rmin = weight strictly below, rmax = rmin + weight of the value.
 * Unweighted values are sorted as typed arrays (float32 by radix sort, sortFloat32: the bulk of
 * the sketch's time); weighted ones sort their row indices.
 */
export function summarise(values: ArrayLike<number>, weights?: ArrayLike<number>): Summary {
  return weights ? weightedSummary(values, weights) : exactPruned(values, Infinity)
}

function weightedSummary(values: ArrayLike<number>, weights: ArrayLike<number>): Summary {
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

/**
 * prune(summarise(values, weights), maxSize) — what a sketch chunk keeps — in `into` (room for
 * maxSize entries) when given. Unweighted, without the exact summary in between (exactPruned).
 */
function prunedSummary(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  maxSize: number,
  into?: Summary,
): Summary {
  return weights ? prune(weightedSummary(values, weights), maxSize, into) : exactPruned(values, maxSize, into)
}

/**
 * Scratch of the unweighted chunk summaries (sortFloat32's keys and counts, the runs' starts),
 * grown as needed and reused by every chunk of this thread: a chunk's summary is built from it
 * before the next chunk starts, and only the summary (arrays of its own) is kept.
 */
const scratch: Record<'keys' | 'tmp' | 'starts' | 'picks', Uint32Array> = {
  keys: new Uint32Array(0),
  tmp: new Uint32Array(0),
  starts: new Uint32Array(0),
  picks: new Uint32Array(0),
}
const radixCounts = new Uint32Array(3 * 2048)

function grown(a: Uint32Array, n: number): Uint32Array {
  return a.length >= n ? a : new Uint32Array(Math.max(n, 2 * a.length))
}

/**
 * prune(exact summary of the non-missing `values`, maxSize) of unit weights, computed from the
 * sorted values and the start of each run of equal ones: entry k of the exact summary has
 * rmin = starts[k], rmax = starts[k + 1], wmin = their difference, all integers, so prune's
 * sums of them are exact and its picks are made here on the starts — the same entries, without
 * the exact summary's four arrays. maxSize = Infinity: the exact summary.
 */
function exactPruned(values: ArrayLike<number>, maxSize: number, into?: Summary): Summary {
  const sorted = sortedValues(values)
  const n = sorted.length
  const starts = (scratch.starts = grown(scratch.starts, n + 1))
  let size = 0
  for (let j = 0; j < n; j++) if (j === 0 || sorted[j] !== sorted[j - 1]) starts[size++] = j
  starts[size] = n
  if (size <= maxSize) return runSummary(sorted, starts, size, undefined, into)
  // prune's loop with rmin[i] = starts[i], rmax[i] = starts[i + 1], wmin[i] = their difference.
  const picks = (scratch.picks = grown(scratch.picks, maxSize))
  const begin = starts[1],
    range = starts[size - 1] - starts[1],
    m = maxSize - 1,
    fr = Math.fround
  let k = 0,
    i = 1,
    last = 0
  picks[k++] = 0
  for (let t = 1; t < m; t++) {
    const dx2 = 2 * fr(fr(fr(t * range) / m) + begin)
    while (i < size - 1 && dx2 >= starts[i + 2] + starts[i + 1]) i++
    if (i === size - 1) break
    // rmin[i] + wmin[i] + rmax[i + 1] − wmin[i + 1] = 2 · starts[i + 1]
    const pick = dx2 < 2 * starts[i + 1] ? i : i + 1
    if (pick !== last) {
      picks[k++] = pick
      last = pick
    }
  }
  if (last !== size - 1) picks[k++] = size - 1
  return runSummary(sorted, starts, k, picks, into)
}

/**
 * The summary of k runs of equal sorted values — run picks[j] (run j without picks) — each entry
 * its value, rmin/rmax at the run's bounds and wmin its length.
 */
function runSummary(
  sorted: ArrayLike<number>,
  starts: Uint32Array,
  k: number,
  picks: Uint32Array | undefined,
  into?: Summary,
): Summary {
  const out = into ? slice(into, k) : makeSummary(k)
  for (let j = 0; j < k; j++) {
    const e = picks ? picks[j] : j,
      lo = starts[e],
      hi = starts[e + 1]
    out.values[j] = sorted[lo]
    out.rmin[j] = lo
    out.rmax[j] = hi
    out.wmin[j] = hi - lo
  }
  return out
}

/**
 * The non-missing values, sorted ascending (float32 columns by radix sort, see sortFloat32: a
 * view of this thread's scratch, valid until the next call).
 */
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
 * and the two compare equal after), about twice as fast as the native sort of a copy here. The
 * result is a view of the scratch keys.
 */
function sortFloat32(values: Float32Array): Float32Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length)
  let keys = (scratch.keys = grown(scratch.keys, values.length))
  let tmp = (scratch.tmp = grown(scratch.tmp, values.length))
  const counts = radixCounts.fill(0)
  let n = 0
  for (let i = 0; i < bits.length; i++) {
    const x = bits[i]
    if ((x & 0x7fffffff) > 0x7f800000) continue
    const k = x ^ ((x >> 31) | 0x80000000)
    keys[n++] = k
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

/** Summary of sorted values with their weights: one entry per distinct value. */
function runs(sorted: ArrayLike<number>, weights: ArrayLike<number>): Summary {
  const n = sorted.length
  let distinct = 0
  for (let j = 0; j < n; j++) if (j === 0 || sorted[j] !== sorted[j - 1]) distinct++
  const out = makeSummary(distinct)
  let k = 0,
    below = 0
  for (let j = 0; j < n; ) {
    const v = sorted[j]
    let w = 0
    while (j < n && sorted[j] === v) w += weights[j++]
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

/**
 * Merges two summaries of disjoint data (XGBoost `SetCombine`); size = |a| + |b| at most. `into`:
 * storage for the result (room for |a| + |b|, sharing no array with a or b), else new arrays.
 */
export function combine(a: Summary, b: Summary, into?: Summary): Summary {
  const na = a.values.length,
    nb = b.values.length
  if (na === 0) return b
  if (nb === 0) return a
  const out = into ?? makeSummary(na + nb)
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
  // The rest of one side, its ranks raised by all of the other's weight: in a function of its
  // own, so a tail this loop has not met yet is no deoptimisation of it (kept optimised).
  k = tail(a, i, out, k, bPrevRmin, bx[nb - 1])
  k = tail(b, j, out, k, aPrevRmin, ax[na - 1])
  return slice(out, k)
}

/** Entries [from, |s|) of `s` appended to `out` at k, rmin raised by `below`, rmax by `above`; the new k. */
function tail(s: Summary, from: number, out: Summary, k: number, below: number, above: number): number {
  const { values, rmin, rmax, wmin } = s
  const n = values.length
  for (let i = from; i < n; i++, k++) {
    out.values[k] = values[i]
    out.rmin[k] = rmin[i] + below
    out.rmax[k] = rmax[i] + above
    out.wmin[k] = wmin[i]
  }
  return k
}

/**
 * Keeps at most `maxSize` (≥ 2) entries spread evenly in rank, always the first and last
 * (XGBoost `SetPrune`): for each target rank d = k·range/(n) + begin pick the entry whose rank
 * interval midpoint is nearest. `into`: storage for the result (room for maxSize, sharing no
 * array with s), else new arrays; `s` itself when it already fits.
 */
export function prune(s: Summary, maxSize: number, into?: Summary): Summary {
  const size = s.values.length
  if (size <= maxSize) return s
  const out = into ?? makeSummary(maxSize)
  const { values, rmin, rmax, wmin } = s
  const { values: ov, rmin: or, rmax: ox, wmin: ow } = out
  const begin = rmax[0],
    range = rmin[size - 1] - rmax[0],
    n = maxSize - 1
  ov[0] = values[0]
  or[0] = rmin[0]
  ox[0] = rmax[0]
  ow[0] = wmin[0]
  let k = 1,
    i = 1,
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
      ov[k] = values[pick]
      or[k] = rmin[pick]
      ox[k] = rmax[pick]
      ow[k] = wmin[pick]
      k++
      last = pick
    }
  }
  if (last !== size - 1) {
    ov[k] = values[size - 1]
    or[k] = rmin[size - 1]
    ox[k] = rmax[size - 1]
    ow[k] = wmin[size - 1]
    k++
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
 * bins: every chunk (sketchChunks over all rows) summarised into this thread's scratch and folded
 * at once (LevelFold) — what mergeParts makes of chunkParts of all rows, without keeping them.
 */
export function sketchColumn(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  maxBin: number,
): Summary {
  const places = sketchPlaces(weights, 0, values.length)
  const { limit, chunkRows } = sketchPlan(values.length, maxBin)
  const fold = new LevelFold(limit, Math.max(1, Math.ceil(places / chunkRows)))
  sketchChunks(values, weights, 0, places, chunkRows, (_, i, j) => {
    fold.add(prunedSummary(sub(values, i, j), weights && sub(weights, i, j), limit, fold.chunkStore()))
  })
  return fold.result()
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
 * Visits the sketch chunks (places [k·C, (k+1)·C)) that rows of `values` touch, the first row at
 * place `lo` of `places`: visit(chunk, i, j, whole) with the rows [i, j) of `values` in it, `whole`
 * when they are all of its rows. Rows of weight 0 have no place and belong to no chunk.
 */
function sketchChunks(
  values: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  lo: number,
  places: number,
  C: number,
  visit: (chunk: number, i: number, j: number, whole: boolean) => void,
): void {
  const n = values.length
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
    visit(chunk, i, j, place === chunk * C && p === Math.min(places, chunkEnd))
    place = p
    i = j
  }
}

/**
 * Parts of one feature column holding contiguous rows of `total`, the first of them at place `lo`
 * of the `places` places (sketchPlaces of all rows; rows of weight 0 have none): one per sketch
 * chunk (places [k·C, (k+1)·C), C = sketchPlan's chunkRows) touched, its summary already pruned
 * to the plan's limit when these rows are the whole chunk (mergeParts prunes every chunk so, and
 * pruning the whole exact summary here gives the same entries), else the rows themselves. The
 * whole chunks' summaries are views of one storage (one buffer per array to send or transfer).
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
  const out: ChunkPart[] = []
  // Room for every chunk these rows can touch, `limit` entries each.
  const store = makeSummary((Math.ceil(values.length / C) + 1) * limit)
  let used = 0
  sketchChunks(values, weights, lo, places, C, (chunk, i, j, whole) => {
    if (whole) {
      const summary = prunedSummary(sub(values, i, j), weights && sub(weights, i, j), limit, region(store, used, limit))
      used += summary.values.length
      out.push({ chunk, summary })
    } else {
      const w = weights && copy(weights, i, j)
      out.push({ chunk, values: copy(values, i, j), ...(w ? { weights: w } : {}) })
    }
  })
  return out
}

/**
 * One feature's summary of all `total` rows (`places` of them with a place: sketchPlaces) from the
 * parts of disjoint row ranges (outer index: ranks or loader units, in row order). A chunk cut
 * into parts is summarised from their rows joined in row order — what one part holding the whole
 * chunk summarises — so the result depends on the rows and `maxBin` only, never on who held
 * which, for any weights. Each chunk's summary is pruned to the plan's limit and the chunks are
 * folded in chunk order (LevelFold).
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
  const fold = new LevelFold(limit, count)
  for (let k = 0; k < count; k++) fold.add(whole[k] ?? joinedSummary(rows[k], limit, fold.chunkStore()))
  return fold.result()
}

/**
 * Scratch of LevelFold: storage per level, two for merges (2 · limit entries) and one each for
 * a pruned temp and a chunk summary. Reused by every fold of this thread (one at a time: folds
 * are synchronous), so a sketch allocates no summary per chunk; a fold's result is its own copy.
 */
const foldStore = {
  levels: [] as Summary[],
  merged: [makeSummary(0), makeSummary(0)],
  pruned: makeSummary(0),
  chunk: makeSummary(0),
}

/**
 * XGBoost 1.7's `WQuantileSketch` over `count` chunk summaries added in chunk order: each but the
 * last is pruned to `limit` and pushed up the levels (`PushTemp`); the last, pruned, is combined
 * with every level (`GetSummary`). The same entries as with new arrays for every step.
 */
class LevelFold {
  private readonly levels: Summary[] = []
  private added = 0
  private last: Summary = emptySummary()

  constructor(
    private readonly limit: number,
    private readonly count: number,
  ) {}

  /** Storage for the next chunk's summary (room for `limit` entries; the fold's scratch). */
  chunkStore(): Summary {
    return (foldStore.chunk = room(foldStore.chunk, this.limit))
  }

  add(chunk: Summary): void {
    const s = prune(chunk, this.limit, (foldStore.pruned = room(foldStore.pruned, this.limit)))
    // The last chunk stays where it is (the chunk or pruned scratch): result() writes neither.
    if (++this.added < this.count) this.push(s)
    else this.last = s
  }

  /** XGBoost `PushTemp`: carries a chunk summary up the levels while the merge exceeds `limit`. */
  private push(temp: Summary): void {
    const limit = this.limit
    if (temp.values.length === 0) return
    let side = 0
    for (let l = 0; ; l++) {
      const store = (foldStore.levels[l] = room(foldStore.levels[l] ?? makeSummary(0), limit))
      const level = this.levels[l]
      if (level === undefined || level.values.length === 0) {
        this.levels[l] = copyInto(prune(temp, limit, foldStore.pruned), store)
        return
      }
      // temp is a chunk's summary, the pruned scratch or the other merge storage: never this one.
      const into = (foldStore.merged[side] = room(foldStore.merged[side], 2 * limit))
      const merged = combine(prune(temp, limit, foldStore.pruned), level, into)
      if (merged.values.length <= limit) {
        this.levels[l] = copyInto(merged, store)
        return
      }
      this.levels[l] = emptySummary()
      temp = merged
      side ^= 1
    }
  }

  /**
   * XGBoost `GetSummary`: the last chunk's summary combined with every level (merged in one
   * merge storage, pruned into the other), returned as a copy of its own.
   */
  result(): Summary {
    const limit = this.limit
    const [merged, pruned] = foldStore.merged.map((m, side) => (foldStore.merged[side] = room(m, 2 * limit)))
    let out = this.last
    for (const level of this.levels) {
      if (level.values.length === 0) continue
      if (out.values.length === 0) {
        out = level
        continue
      }
      const m = combine(out, level, merged)
      out = m.values.length > limit ? prune(m, limit, pruned) : copyInto(m, pruned)
    }
    return copyInto(out, makeSummary(out.values.length))
  }
}

/**
 * The summary of parts' rows joined in their order, pruned to `limit` (an empty summary for
 * none), in `into` (room for limit entries).
 */
function joinedSummary(parts: ChunkRows[], limit: number, into: Summary): Summary {
  if (parts.length === 0) return emptySummary()
  if (parts.length === 1) return prunedSummary(parts[0].values, parts[0].weights, limit, into)
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
  return prunedSummary(values, weights, limit, into)
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
