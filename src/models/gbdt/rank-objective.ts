/**
 * Learning to rank (LambdaMART): the gradients of rank:ndcg, rank:map and rank:pairwise over query
 * groups, as XGBoost 2.0 computes them (src/objective/lambdarank_obj.cc / .h, src/common/
 * ranking_utils.h / .cc) — not 1.7.4's LambdaRankObj (random pairs, num_pairsample): 2.0 is the
 * version with XGBoost's current parameters (lambdarank_pair_method, lambdarank_num_pair_per_sample,
 * ndcg_exp_gain) and its default, top-k truncated pairs. 2.0's unbiased LambdaMART
 * (lambdarank_unbiased) is not supported (params.ts refuses it).
 *
 * Gradients depend on the order of a group's scores, so they are computed here on the host each
 * round from the training margins (the CPU hand-off: BackendSetup.hostGradients; a GPU backend
 * reads its margins back and uploads these pairs). Rows of a group are contiguous: `groups` is
 * XGBoost's group_ptr (length G + 1, groups[0] = 0, groups[G] = N). Pair sampling (mean) draws from
 * a generator seeded by (seed, round, the group's first global row), so it does not depend on how
 * rows are spread over ranks (2.0 draws from std::minstd_rand(round) skipping g values: other
 * draws, the same distribution). Ties in score or label keep row order (2.0's stable ArgSort).
 * Where 2.0 differs in arithmetic: its pairs accumulate in f32 and its sigmoid is f32; here both
 * are f64, each pair's λ and h rounded to f32 as 2.0's GradientPair is.
 * N = rows, G = groups, n = rows of one group.
 */
import type { GbdtParams } from './types.ts'
import type { BackendSetup } from './backend.ts'
import type { TrainData } from '../../eval/dataset.ts'
import { mixSeed } from '../../util/hash.ts'
import { Rng } from '../../util/rng.ts'

/** The parameters the ranking gradients read (XGBoost names). */
export type RankParams = Pick<
  GbdtParams,
  'objective' | 'lambdarank_pair_method' | 'lambdarank_num_pair_per_sample' | 'ndcg_exp_gain' | 'seed'
>

/** The ranking objectives. */
export const RANK_OBJECTIVES = ['rank:ndcg', 'rank:pairwise', 'rank:map'] as const

/** True for rank:* (per-group gradients on the host, a query-group column needed). */
export function isRanking(objective: string): boolean {
  return (RANK_OBJECTIVES as readonly string[]).includes(objective)
}

/** Largest relevance degree with the exponential gain 2^rel − 1 (XGBoost's MaxRel). */
export const MAX_REL = 31

/** 2.0's Eps64: the hessian floor of a pair. */
const EPS64 = 1e-16

/** The ranking parameters a model file's objective config carries (XGBoost names). */
export type SavedRankConfig = Partial<
  Pick<GbdtParams, 'lambdarank_pair_method' | 'lambdarank_num_pair_per_sample' | 'ndcg_exp_gain'>
>

/**
 * A ranking model file's pair method, pairs per sample and NDCG gain, from its `objective`
 * object: XGBoost 2.0's `lambdarank_param` (ours carries it too) or, without one, 1.7.4's
 * `lambda_rank_param`, whose num_pairsample random pairs per document are 2.0's `mean` method
 * with that many pairs (1.7.4's NDCG gain is exponential). Empty for other objectives. Throws
 * RangeError naming the field of a value XGBoost would refuse.
 */
export function rankConfigFromJson(objective: string, json: Record<string, unknown>): SavedRankConfig {
  if (!isRanking(objective)) return {}
  const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined)
  const count = (v: unknown, name: string): number => {
    const x = Number(v)
    if (!(Number.isInteger(x) && x >= 1))
      throw new RangeError(`XGBoost model: objective ${objective}: ${name} = ${String(v)} is not an integer ≥ 1`)
    return x
  }
  const v2 = obj(json.lambdarank_param)
  if (v2) {
    const out: SavedRankConfig = {}
    const method = v2.lambdarank_pair_method
    if (method !== undefined) {
      if (method !== 'topk' && method !== 'mean')
        throw new RangeError(
          `XGBoost model: objective ${objective}: lambdarank_pair_method = ${String(method)} is not topk or mean`,
        )
      out.lambdarank_pair_method = method
    }
    if (v2.lambdarank_num_pair_per_sample !== undefined)
      out.lambdarank_num_pair_per_sample = count(v2.lambdarank_num_pair_per_sample, 'lambdarank_num_pair_per_sample')
    const gain = v2.ndcg_exp_gain
    if (gain !== undefined) out.ndcg_exp_gain = gain === true || gain === '1' || gain === 1 || gain === 'true'
    return out
  }
  const v17 = obj(json.lambda_rank_param)
  if (!v17 || v17.num_pairsample === undefined) return {}
  return { lambdarank_pair_method: 'mean', lambdarank_num_pair_per_sample: count(v17.num_pairsample, 'num_pairsample') }
}

/** XGBoost 2.0 LambdaRankParam::NumPair: k of topk (default 32) or pairs per document with mean (default 1). */
export function numPair(p: Pick<RankParams, 'lambdarank_pair_method' | 'lambdarank_num_pair_per_sample'>): number {
  return p.lambdarank_num_pair_per_sample ?? (p.lambdarank_pair_method === 'topk' ? 32 : 1)
}

/**
 * XGBoost 2.0's default eval metric of a ranking objective (RankEvalMetric): ndcg (rank:ndcg and
 * rank:pairwise) or map (rank:map), `@k` with the topk method (k = numPair).
 */
export function rankDefaultMetric(
  p: Pick<RankParams, 'objective' | 'lambdarank_pair_method' | 'lambdarank_num_pair_per_sample'>,
): string {
  const name = p.objective === 'rank:map' ? 'map' : 'ndcg'
  return p.lambdarank_pair_method === 'topk' ? `${name}@${numPair(p)}` : name
}

/** DCG gain of relevance `y`: 2^y − 1 (exp) or y. */
export function dcgGain(y: number, exp: boolean): number {
  return exp ? 2 ** y - 1 : y
}

/** DCG discount of rank position `i` (0 = top): 1 / log2(i + 2). */
export function dcgDiscount(i: number): number {
  return 1 / Math.log2(i + 2)
}

/**
 * |ΔNDCG| of swapping the documents at rank positions `rankHigh` and `rankLow` (labels yHigh,
 * yLow), times 1 / IDCG (2.0's DeltaNDCG; the sign is dropped by the caller).
 */
export function deltaNdcg(
  yHigh: number,
  yLow: number,
  rankHigh: number,
  rankLow: number,
  invIdcg: number,
  exp: boolean,
): number {
  return ndcgSwap(dcgGain(yHigh, exp), dcgGain(yLow, exp), dcgDiscount(rankHigh), dcgDiscount(rankLow), invIdcg)
}

/** The DCG change of swapping two documents of gains gh, gl at discounts dh, dl, times 1 / IDCG. */
function ndcgSwap(gh: number, gl: number, dh: number, dl: number, invIdcg: number): number {
  return (gh * dh + gl * dl - (gl * dh + gh * dl)) * invIdcg
}

/**
 * ΔAP of swapping rank positions rankHigh < rankLow (2.0's DeltaMAP): `nRel[k]` = relevant
 * documents in positions 0…k, `acc[k]` = Σ_{i ≤ k} label_i / (i + 1), in the model's rank order.
 */
export function deltaMap(
  yHigh: number,
  yLow: number,
  rankHigh: number,
  rankLow: number,
  nRel: ArrayLike<number>,
  acc: ArrayLike<number>,
): number {
  const rh = rankHigh + 1,
    rl = rankLow + 1
  const total = nRel[nRel.length - 1]
  const m = nRel[rankLow],
    n = nRel[rankHigh]
  const b = acc[rankLow - 1] - acc[rankHigh]
  if (yHigh < yLow) return (m / rl - (n + 1) / rh - b) / total
  return (n / rh - m / rl + b) / total
}

/** Indices lo…hi−1 of `v` ordered by value, largest first, ties in index order (a stable sort). */
function argsortDesc(v: ArrayLike<number>, lo: number, hi: number): Uint32Array {
  const idx = Array.from({ length: hi - lo }, (_, i) => lo + i)
  idx.sort((a, b) => v[b] - v[a] || a - b)
  return Uint32Array.from(idx)
}

/** 1 / IDCG of one group's labels over its top `topk` positions (0 when the IDCG is 0). */
export function invIdcg(labels: ArrayLike<number>, lo: number, hi: number, topk: number, exp: boolean): number {
  const order = argsortDesc(labels, lo, hi)
  let idcg = 0
  for (let i = 0; i < Math.min(order.length, topk); i++) idcg += dcgDiscount(i) * dcgGain(labels[order[i]], exp)
  return idcg === 0 ? 0 : 1 / idcg
}

/**
 * Refuses `groups` that are not a group_ptr over `n` rows (starts at 0, strictly increasing,
 * ends at n), naming `what`.
 */
export function checkGroups(groups: Uint32Array, n: number, what = 'query groups'): void {
  if (groups.length < 2 || groups[0] !== 0 || groups[groups.length - 1] !== n)
    throw new RangeError(`${what}: group_ptr must run from 0 to ${n} rows, got ${groups[0]}…${groups.at(-1)}`)
  for (let g = 1; g < groups.length; g++)
    if (groups[g] <= groups[g - 1]) throw new RangeError(`${what}: group ${g - 1} is empty or out of order`)
}

/** Refuses labels a ranking objective cannot use (XGBoost 2.0's CheckNDCGLabels / CheckPreLabels), naming the column. */
export function checkRankLabels(p: RankParams, labels: ArrayLike<number>, labelName = 'label'): void {
  for (let i = 0; i < labels.length; i++) {
    const y = labels[i]
    const bad =
      p.objective === 'rank:map'
        ? !(Math.abs(y) < 1e-6 || Math.abs(y - 1) < 1e-6) && 'labels 0 or 1 (relevant or not)'
        : p.objective === 'rank:ndcg' && p.ndcg_exp_gain
          ? !(Number.isInteger(y) && y >= 0 && y <= MAX_REL) &&
            `integer relevance degrees 0…${MAX_REL} with ndcg_exp_gain (set ndcg_exp_gain=false for other gains)`
          : !(y >= 0 && Number.isFinite(y)) && 'relevance degrees ≥ 0'
    if (bad) throw new RangeError(`label column ${labelName}: ${p.objective} needs ${bad}, got ${y} at row ${i}`)
  }
}

/**
 * The round's gradient pairs of every row (out: 2N f32, g and h interleaved as the gradient
 * kernel writes them): per group, LambdaMART over the pairs of 2.0's MakePairs at the current
 * `margins`. `rowOffset`: global index of row 0 (ranks), keying each group's pair sampling.
 */
export function rankGradients(
  p: RankParams,
  margins: Float32Array,
  labels: Float32Array,
  groups: Uint32Array,
  round: number,
  out: Float32Array,
  rowOffset = 0,
): Float32Array {
  const exp = p.ndcg_exp_gain,
    k = numPair(p),
    topk = p.lambdarank_pair_method === 'topk'
  for (let gi = 0; gi + 1 < groups.length; gi++) {
    const lo = groups[gi],
      hi = groups[gi + 1],
      n = hi - lo
    const rank = argsortDesc(margins, lo, hi)
    // Labels and scores in rank order; g, h accumulate per rank position.
    const y = new Float64Array(n),
      s = new Float64Array(n),
      g = new Float64Array(n),
      h = new Float64Array(n)
    for (let r = 0; r < n; r++) {
      y[r] = labels[rank[r]]
      s[r] = margins[rank[r]]
    }
    const delta = deltaOf(p, y, labels, lo, hi, topk ? k : Infinity, exp)
    const apart = s[0] !== s[n - 1]
    let sumLambda = 0
    const pair = (i: number, j: number): void => {
      const yi = y[i],
        yj = y[j]
      if (yi === yj) return
      // high: the more relevant document's rank position.
      const high = yi > yj ? i : j,
        low = yi > yj ? j : i
      const d = Math.fround(s[high] - s[low])
      let dm = Math.abs(delta(high, low))
      if (apart) dm /= Math.abs(d) + 0.01
      const sig = 1 / (1 + Math.exp(-d))
      const lambda = Math.fround((sig - 1) * dm),
        hess = Math.fround(Math.max(sig * (1 - sig), EPS64) * dm * 2)
      g[high] += lambda
      h[high] += hess
      g[low] -= lambda
      h[low] += hess
      sumLambda += -2 * lambda
    }
    makePairs(p, n, labels, rank, round, rowOffset + lo, k, topk, pair)
    const norm = sumLambda > 0 ? Math.log2(1 + sumLambda) / sumLambda : 1
    for (let r = 0; r < n; r++) {
      out[2 * rank[r]] = g[r] * norm
      out[2 * rank[r] + 1] = h[r] * norm
    }
  }
  return out
}

/**
 * The objective's |Δmetric| of a pair at rank positions (high = the more relevant, low) of one
 * group whose labels in rank order are `y` (group rows [lo, hi) of `labels`).
 */
function deltaOf(
  p: RankParams,
  y: Float64Array,
  labels: Float32Array,
  lo: number,
  hi: number,
  topk: number,
  exp: boolean,
): (high: number, low: number) => number {
  const n = y.length
  if (p.objective === 'rank:pairwise') return () => 1
  if (p.objective === 'rank:ndcg') {
    // deltaNdcg with each position's gain and discount computed once.
    const inv = invIdcg(labels, lo, hi, topk, exp)
    const gain = y.map(v => dcgGain(v, exp)),
      disc = y.map((_, r) => dcgDiscount(r))
    return (high, low) => ndcgSwap(gain[high], gain[low], disc[high], disc[low], inv)
  }
  // rank:map: 2.0's MAPStat over the model's order.
  const nRel = new Float64Array(n),
    acc = new Float64Array(n)
  for (let r = 0; r < n; r++) {
    nRel[r] = (r > 0 ? nRel[r - 1] : 0) + y[r]
    acc[r] = (r > 0 ? acc[r - 1] : 0) + y[r] / (r + 1)
  }
  return (high, low) =>
    high > low ? deltaMap(y[low], y[high], low, high, nRel, acc) : deltaMap(y[high], y[low], high, low, nRel, acc)
}

/**
 * 2.0's MakePairs over one group of n documents in model rank order: topk — every pair (i, j),
 * i < min(n, k), j > i; mean — for each document, k times, one partner drawn uniformly among the
 * documents of another relevance (seeded by seed, round and `groupKey`).
 */
function makePairs(
  p: RankParams,
  n: number,
  labels: Float32Array,
  rank: Uint32Array,
  round: number,
  groupKey: number,
  k: number,
  topk: boolean,
  pair: (i: number, j: number) => void,
): void {
  if (topk) {
    for (let i = 0; i < Math.min(n, k); i++) for (let j = i + 1; j < n; j++) pair(i, j)
    return
  }
  const rng = new Rng(mixSeed(p.seed, round, groupKey))
  // Rank positions ordered by label, most relevant first: buckets of equal labels.
  const byLabel = Array.from({ length: n }, (_, i) => i).sort((a, b) => labels[rank[b]] - labels[rank[a]] || a - b)
  for (let i = 0; i < n; ) {
    let j = i + 1
    while (j < n && labels[rank[byLabel[i]]] === labels[rank[byLabel[j]]]) j++
    const lefts = i,
      rights = n - j
    if (lefts + rights > 0)
      for (let s = 0; s < k; s++)
        for (let at = i; at < j; at++) {
          let r = rng.int(lefts + rights)
          if (r >= lefts) r += j - i
          pair(byLabel[at], byLabel[r])
        }
    i = j
  }
}

/**
 * Refuses training data a ranking objective cannot use: no query groups (training, and validation
 * when there is a validation set), groups that are not a group_ptr over the rows, row weights
 * (XGBoost weighs whole query groups; not supported here), labels checkRankLabels refuses.
 */
export function checkRankData(d: TrainData, p: RankParams): void {
  const need = `${p.objective} needs query groups (--qid COL: the column naming each row's query)`
  if (!d.groups) throw new RangeError(need)
  checkGroups(d.groups, d.labels.length)
  if (d.weights || d.valid?.weights)
    throw new RangeError(
      `weight: ${p.objective} weighs query groups, not rows (XGBoost: one weight per group); row weights are not supported for ranking`,
    )
  checkRankLabels(p, d.labels, d.labelName)
  if (d.valid) {
    if (!d.valid.groups) throw new RangeError(`validation rows: ${need}`)
    checkGroups(d.valid.groups, d.valid.labels.length, 'validation query groups')
    checkRankLabels(p, d.valid.labels, d.labelName)
  }
}

/** BackendSetup.hostGradients of a ranking run over `labels` in query groups `groups` (one output buffer reused). */
export function hostRankGradients(
  p: RankParams,
  labels: Float32Array,
  groups: Uint32Array,
): NonNullable<BackendSetup['hostGradients']> {
  const out = new Float32Array(2 * labels.length)
  return (round, margins, rowOffset) => rankGradients(p, margins, labels, groups, round, out, rowOffset)
}
