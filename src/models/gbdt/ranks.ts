/**
 * GBDT across R data-parallel ranks, in one module: each rank's contiguous shard of the rows and
 * the boosting loop over a collective (histograms allreduced, so every rank grows the same trees),
 * quantile cuts over ranks, a table run's per-rank dataset (each rank reads only the units holding
 * its rows), the in-memory rank job (tests, benches) and its coordinator, and the rank's backend.
 * Table runs with `--ranks` go through the one run on every rank (src/run/ranks.ts).
 * N = training rows, R = ranks, F = features.
 */
import type { StopVote } from '../../ranks/stop-vote.ts'
import type { Collective, CollectiveStats, RankContext, RankJob } from '../../ranks/types.ts'
import type { BackendFactory, BackendReduce } from './backend.ts'
import { categoricalOf, resolveNumClass, train } from './driver.ts'
import { baseScoreOfSums, inferNumClass, labelSums } from '../../eval/labels.ts'
import type { Booster, Cuts, GbdtParams } from './types.ts'
import { chunkParts, mergeParts, sketchPlaces } from './sketch.ts'
import { checkCategoryCodes, cutsFromSketches, hasMissing, type CategoricalFeatures } from './cuts.ts'
import type { ScanPlan } from '../../data/types.ts'
import { openSnapshot } from '../../table/index.ts'
import { noRowsError } from '../../data/plan.ts'
import {
  groupRows,
  isStringColumn,
  readTable,
  openDataset,
  type Dataset,
  type DatasetConfig,
  type TrainData,
} from '../../eval/dataset.ts'
import { buildDictionary, type FeatureSpec } from '../../eval/features.ts'
import { checkRowValues, pickRowValues, rowColumnsOf, type RowValues } from '../../eval/row-columns.ts'
import { isValidKey } from '../../data/row-key.ts'
import { readUnitRows, type UnitColumn } from '../../data/row-keys-read.ts'
import { createCpuBackend } from './cpu-backend.ts'
import { parseParams } from './params.ts'
import { isMulticlass } from './objective.ts'
import { toXGBoostJsonString } from './xgboost-json.ts'
import { hashString } from '../../util/hash.ts'
import type { HistogramKernel } from '../../kernels/gbdt/histogram_choice.ts'
import { runRanks, type RankGroupOptions, type RankRun } from '../../ranks/index.ts'
import { combineStats } from '../../ranks/stats.ts'

/*
 *
 * GBDT across ranks, as distributed XGBoost: each rank holds a contiguous slice of the
 * training rows (global rows [lo, lo + n) of N); cuts are sketched per rank and merged exactly
 * (distCuts below), base_score comes from global label sums, and the backend's reduce hooks make
 * the quantisation scales, root sums and every built node histogram global (exact integers), so
 * every rank evaluates the same splits and grows the tree R = 1 grows. Validation metrics come
 * from rank 0 (which holds the validation set) by broadcast. Worker-free: runs with localGroup.
 * N = rows, F = features, R = ranks.
 */

/** One rank's share of the training data. */
export interface Shard {
  /** This rank's rows (F columns, labels, weights) and, on rank 0 only, the validation set. */
  data: TrainData
  /** Global index of the shard's first row. */
  lo: number
  /** N: rows over all ranks. */
  total: number
}

/** Rank `rank`'s rows [lo, hi) of `total` over `world` ranks: contiguous, sizes differing by ≤ 1. */
export function shardRange(total: number, world: number, rank: number): [number, number] {
  return [Math.floor((rank * total) / world), Math.floor(((rank + 1) * total) / world)]
}

/** Rank `rank`'s shard of all the data (rows by global index; validation kept on rank 0). */
export function shardOf(data: TrainData, world: number, rank: number): Shard {
  const total = data.labels.length
  const [lo, hi] = data.groups ? groupShardRange(data.groups, world, rank) : shardRange(total, world, rank)
  const rows = <T extends Float32Array>(a: T): Float32Array => a.slice(lo, hi)
  return {
    lo,
    total,
    data: {
      ...data,
      columns: data.columns.map(rows),
      labels: rows(data.labels),
      weights: data.weights && rows(data.weights),
      // N × K base margins (K outputs per row): the rows' K values each.
      baseMargin: data.baseMargin?.slice((lo * data.baseMargin.length) / total, (hi * data.baseMargin.length) / total),
      groups: data.groups && groupsWithin(data.groups, lo, hi),
      valid: rank === 0 ? data.valid : undefined,
    },
  }
}

/**
 * Ranking: rank `rank`'s rows [lo, hi) with every query group whole — shardRange's boundaries
 * moved up to the next group start (group_ptr `groups`), so a group never spans two ranks.
 */
export function groupShardRange(groups: Uint32Array, world: number, rank: number): [number, number] {
  const total = groups[groups.length - 1]
  const at = (r: number): number => {
    const want = shardRange(total, world, r)[0]
    return r >= world ? total : groups.find(b => b >= want)!
  }
  return [at(rank), at(rank + 1)]
}

/** The group_ptr of rows [lo, hi) (both group boundaries of `groups`), from 0. */
function groupsWithin(groups: Uint32Array, lo: number, hi: number): Uint32Array {
  return groups.filter(b => b >= lo && b <= hi).map(b => b - lo)
}

/** Options of a rank's run. */
export interface ShardOptions {
  /** After each round (metrics shared by rank 0); 'stop' ends training there. */
  onRound?: (round: number, metrics: Record<string, number>) => void | 'stop'
  /**
   * The user's Stop on ranks: rank 0's vote travels with its metrics broadcast each round, so
   * every rank's `stop.signal` aborts after the same round (check it in onRound).
   */
  stop?: StopVote
}

/**
 * Trains this rank's part of the booster; every rank resolves to the same Booster (R = 1's for
 * the same data, seed and params). `backend` builds this rank's backend (GPU or CPU).
 */
export async function trainShard(
  shard: Shard,
  given: GbdtParams,
  coll: Collective,
  backend: BackendFactory,
  opts: ShardOptions = {},
): Promise<Booster> {
  const { data, lo, total } = shard
  if (data.labels.length === 0)
    throw new RangeError(
      `rank ${coll.rank} holds no training rows (${total} rows over ${coll.world} ranks): use fewer ranks`,
    )
  if (coll.rank === 0 && given.early_stopping_rounds !== undefined && !data.valid)
    throw new RangeError('early_stopping_rounds: needs a validation set')
  const p = await globalNumClass(given, data, coll)
  const cuts = await distCuts(data.columns, data.weights, lo, total, p.max_bin, coll, categoricalOf(data, p))
  const baseScore = p.base_score ?? (await globalBaseScore(p, data, coll))
  const reduce: BackendReduce = { max: v => coll.allreduceMax(v), sum: v => coll.allreduceSum(v) }
  const factory: BackendFactory = setup => backend({ ...setup, rowOffset: lo, reduce })
  const shareMetrics = async (own: Record<string, number>): Promise<Record<string, number>> => {
    const shared = await coll.broadcast({ metrics: own, stop: opts.stop?.vote ?? false }, 0)
    opts.stop?.agree(shared.stop)
    return shared.metrics
  }
  return train(data, p, factory, { cuts, baseScore, shareMetrics, onRound: opts.onRound })
}

/**
 * A multiclass run's num_class when the parameters give 0: max label + 1 over every rank's rows
 * (driver.ts resolveNumClass on all rows), so every rank grows the same K trees per round.
 */
export async function globalNumClass(p: GbdtParams, d: TrainData, coll: Collective): Promise<GbdtParams> {
  if (!isMulticlass(p.objective) || p.num_class > 0) return p
  const [K] = await coll.allreduceMax(Int32Array.of(inferNumClass(d.labels, d.valid?.labels ?? [])))
  return resolveNumClass({ ...p, num_class: Math.max(K, 0) }, d)
}

/**
 * estimateBaseScore (eval/labels.ts) from label sums over ranks (labelSums, added by the
 * collective in rank order, then baseScoreOfSums): equal to R = 1's sequential sum whenever the
 * sums are exact (integer labels and weights, e.g. 0/1 labels).
 */
async function globalBaseScore(p: GbdtParams, d: TrainData, coll: Collective): Promise<number> {
  const [SW, SWY] = await coll.allreduceSum(Float64Array.from(labelSums(d.labels, d.weights)))
  return baseScoreOfSums(p.objective, SW, SWY)
}

/*
 *
 * Quantile cuts over ranks, identical to buildCuts on all the rows for every R: each rank holds
 * the contiguous global rows [lo, lo + n) of N and summarises its part of each fixed sketch chunk
 * (sketch.ts chunkParts: global row ranges, sized from N and max_bin); the parts are gathered and
 * merged by sketch.ts mergeParts in rank order — the one merge buildCuts runs on all rows, for
 * any row weights (a chunk cut between ranks is summarised once from its rows). F = features.
 */

/**
 * buildCuts(all columns, maxBin, weights) computed by every rank from its own rows: `columns`
 * (F Float32Arrays of this rank's n rows), global rows [lo, lo + n) of `total`. Two collectives:
 * allreduceMax of the per-feature missing flags, allgather of the chunk parts. `categorical`:
 * as buildCuts' (every rank checks its own rows' codes; the merged maximum sizes the bins).
 */
export async function distCuts(
  columns: Float32Array[],
  weights: Float32Array | undefined,
  lo: number,
  total: number,
  maxBin: number,
  coll: Collective,
  categorical?: CategoricalFeatures,
): Promise<Cuts> {
  if (categorical) columns.forEach((c, f) => categorical.flags[f] && checkCategoryCodes(c, categorical.names[f]))
  const missing = await coll.allreduceMax(Int32Array.from(columns, c => (hasMissing(c) ? 1 : 0)))
  // Sketch places (rows of weight 0 have none): this rank's rows start after the lower ranks' places.
  const counts = weights ? await coll.allgather(sketchPlaces(weights)) : undefined
  const first = counts ? counts.slice(0, coll.rank).reduce((a, b) => a + b, 0) : lo
  const places = counts ? counts.reduce((a, b) => a + b, 0) : total
  const all = await coll.allgather(columns.map(c => chunkParts(c, weights, first, total, maxBin, places)))
  const summaries = columns.map((_, f) =>
    mergeParts(
      all.map(rank => rank[f]),
      total,
      maxBin,
      places,
    ),
  )
  return cutsFromSketches(
    summaries,
    columns.map((_, f) => missing[f] === 1),
    maxBin,
    categorical,
  )
}

/*
 *
 * One rank's share of a table: from the scan plan alone (the planner already applied
 * deletion vectors and the exact filter to every unit) each rank knows every row's identity and
 * whether the seeded split sends it to validation, hence every training row's global index in
 * table order — R = 1's row order. Rank r reads only the units holding its training rows
 * [lo, hi) = shardRange(N, R, r) and its validation rows (likewise of V); categorical
 * dictionaries are the union of the ranks' values (sorted, as R = 1 builds them from all rows);
 * the validation rows are gathered to rank 0 in rank order (= table order).
 * Ranking (--qid): R = 1 gathers the training rows by query group (dataset.ts groupRows: groups in
 * order of first appearance), and a group's rows need not be contiguous in the table. So every
 * rank reads the query id of every unit too (with the row keys), numbers the groups as groupRows
 * does, takes the whole groups of its rows [lo, hi) = groupShardRange, and reads the units holding
 * any of their rows; gathering its kept rows by group gives exactly R = 1's rows [lo, hi). The
 * validation rows are gathered to rank 0, then grouped there. Query ids travel as global codes
 * (order of first appearance over the table), so every rank names a group alike.
 * N = training rows, V = validation rows, U = units, F = features.
 */

/** Per unit (plan order) counts of training and validation rows before it: length U + 1 each. */
export interface RowCounts {
  trainBefore: Float64Array
  validBefore: Float64Array
  valid: (unit: number, i: number) => boolean
}

/**
 * Counts of the plan's rows by unit; `fraction` = validation share (undefined: every row trains),
 * `keys` = each unit's row keys (src/data/row-keys-read.ts; needed with a fraction).
 */
export function rowCounts(
  plan: ScanPlan,
  seed: number,
  fraction: number | undefined,
  keys?: readonly Uint32Array[],
): RowCounts {
  const U = plan.units.length,
    trainBefore = new Float64Array(U + 1),
    validBefore = new Float64Array(U + 1)
  const valid = (u: number, i: number): boolean => {
    if (fraction === undefined) return false
    if (!keys) throw new TypeError("rowCounts: a validation fraction needs the units' row keys")
    return isValidKey(seed, keys[u][i], fraction)
  }
  for (let u = 0; u < U; u++) {
    let v = 0
    for (let i = 0; i < plan.units[u].liveRows; i++) if (valid(u, i)) v++
    validBefore[u + 1] = validBefore[u] + v
    trainBefore[u + 1] = trainBefore[u] + plan.units[u].liveRows - v
  }
  return { trainBefore, validBefore, valid }
}

/** Units [a, b) holding global positions [lo, hi) of a row sequence with prefix counts `before` (empty: a = b). */
export function unitSpan(before: Float64Array, lo: number, hi: number): [number, number] {
  if (hi <= lo) return [0, 0]
  let a = 0
  while (before[a + 1] <= lo) a++
  let b = a
  while (b < before.length - 1 && before[b] < hi) b++
  return [a, b]
}

/** A rank's loaded shard, plus (rank 0) the Dataset finish() records in the manifest. */
export interface RankDataset {
  shard: Shard
  dataset: Dataset
}

/**
 * Loads rank `coll.rank`'s shard of cfg's table (validation: a seeded fraction or a table, read by
 * rank 0). Throws naming the table, filter or label as loadDataset does.
 */
export async function loadRankDataset(cfg: DatasetConfig, coll: Collective): Promise<RankDataset> {
  const { snapshot, features, skipped, rowKey } = await openDataset(cfg)
  let full: ScanPlan | undefined, counts: RowCounts | undefined, mine: RankRows | undefined
  // Every rank reads the key columns (and the query ids) of every unit: which units hold its rows depends on them.
  const restrict = async (plan: ScanPlan): Promise<ScanPlan> => {
    full = plan
    const qid = cfg.qid === undefined ? undefined : { name: cfg.qid, text: isStringColumn(snapshot, cfg.qid) }
    const pre = await readUnitRows(plan, { rowKey, column: qid }, { workers: cfg.workers, http: cfg.http })
    counts = rowCounts(plan, cfg.seed, cfg.validFraction, pre.keys)
    mine = rankRows(counts, coll, pre.column && queryCodes(cfg.qid!, plan, pre.column))
    const units = mine.units.map((u, id) => ({ ...plan.units[u], id }))
    return { ...plan, units, stats: { ...plan.stats, rows: units.reduce((s, u) => s + u.liveRows, 0) } }
  }
  const table = await readTable(snapshot, features, undefined, {
    label: cfg.label,
    ...rowColumnsOf(cfg),
    filter: cfg.filter,
    workers: cfg.workers,
    http: cfg.http,
    restrict,
    classLabels: cfg.classLabels,
    labelValues: cfg.labelValues,
  })
  const plan = { ...table.plan, units: full!.units, stats: full!.stats, ...(rowKey ? { rowKey } : {}) }
  if (plan.stats.rows === 0) throw noRowsError(cfg.filter, cfg.tableUrl, snapshot.version)
  const dictionaries = await globalDictionaries(table.dictionaries, coll)
  remapCodes(features, table.columns, table.dictionaries, dictionaries)
  const labelValues = await globalLabelValues(table, coll)
  const rows = splitRows(table, counts!, mine!, coll)
  const N = counts!.trainBefore[counts!.trainBefore.length - 1],
    V = counts!.validBefore[counts!.validBefore.length - 1]
  if (N === 0) throw new RangeError(`valid fraction ${cfg.validFraction} leaves no training rows`)
  const pick = (keep: Uint8Array, a: Float32Array): Float32Array => a.filter((_, i) => keep[i] === 1)
  const labels = requireLabels(cfg.label, table.labels!, table, rows.train)
  // Checked on every row read (units may hold other ranks' rows: the whole table is checked anyway).
  const rowValues = checkRowValues(cfg, table)
  // Query ids as the global codes (every rank names a group alike: the validation rows are grouped on rank 0).
  if (rows.codes) rowValues.qid = rows.codes
  const data: TrainData = {
    ...groupRows({
      columns: table.columns.map(c => pick(rows.train, c)),
      labels,
      ...pickRowValues(rowValues, a => pick(rows.train, a)),
    }),
    labelName: cfg.label,
    ...(labelValues ? { labelValues } : {}),
    featureNames: features.map(f => f.name),
    featureTypes: features.map(f => f.xgbType),
  }
  const valid = await validSet(
    { ...cfg, labelValues },
    features,
    dictionaries,
    {
      columns: table.columns.map(c => pick(rows.valid, c)),
      labels: pick(rows.valid, table.labels!),
      ...pickRowValues(rowValues, a => pick(rows.valid, a)),
    },
    coll,
  )
  if (valid && coll.rank === 0) data.valid = valid.data
  const shard: Shard = { data, lo: mine!.lo, total: N }
  const rowsValid = cfg.validTable ? (valid?.rows ?? 0) : V
  return {
    shard,
    dataset: { data, features, skipped, dictionaries, plan, validPlan: valid?.plan, rowsTrain: N, rowsValid },
  }
}

/**
 * Every row's query group as a code (per unit, in table order): the groups numbered in order of
 * first appearance over the whole table, so every rank codes them alike. Throws naming the
 * column, the file and the row of a query id row-columns.ts refuses (null; a number that is not
 * an integer below 2^24), or when there are 2^24 groups or more (codes travel as float32).
 */
function queryCodes(qid: string, plan: ScanPlan, read: UnitColumn): Float32Array[] {
  const index = new Map<string | number, number>()
  return read.values.map((v, u) => {
    const path = plan.files[plan.units[u].fileIndex].path
    const floats = Array.isArray(v) ? Float32Array.from(v, x => (x === null ? NaN : 0)) : v
    checkRowValues({ qid }, { rowValues: { qid: floats }, paths: new Array(v.length).fill(path), rows: read.rows[u] })
    const codes = new Float32Array(v.length)
    for (let i = 0; i < v.length; i++) {
      let g = index.get(v[i]!)
      if (g === undefined) index.set(v[i]!, (g = index.size))
      codes[i] = g
    }
    if (index.size > 2 ** 24) throw new RangeError(`query id column ${qid}: more than 2^24 query groups`)
    return codes
  })
}

/**
 * What rank `coll.rank` reads and keeps: the units (sorted plan indices), the first training row's
 * global index `lo` (R = 1's row order), and, for ranking, the rows' query codes and the codes
 * of its groups.
 */
interface RankRows {
  units: number[]
  lo: number
  /** Ranking: per unit, each row's query code (queryCodes). */
  codes?: Float32Array[]
  /** Ranking: the codes of this rank's training groups. */
  groups?: Set<number>
}

/**
 * The units rank `coll.rank` reads: those holding its training rows (contiguous shardRange of N;
 * ranking: the whole groups of groupShardRange, each group's rows wherever they are) and its
 * validation rows (shardRange of V, in table order).
 */
function rankRows(c: RowCounts, coll: Collective, codes?: Float32Array[]): RankRows {
  const N = c.trainBefore[c.trainBefore.length - 1],
    V = c.validBefore[c.validBefore.length - 1]
  const [vlo, vhi] = shardRange(V, coll.world, coll.rank),
    v = unitSpan(c.validBefore, vlo, vhi)
  const span = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, k) => a + k)
  if (!codes) {
    const [tlo, thi] = shardRange(N, coll.world, coll.rank),
      t = unitSpan(c.trainBefore, tlo, thi)
    const units =
      t[0] === t[1] ? span(...v) : v[0] === v[1] ? span(...t) : span(Math.min(t[0], v[0]), Math.max(t[1], v[1]))
    return { units, lo: tlo }
  }
  // The training groups in order of first appearance (groupRows' order) and their sizes: group_ptr.
  const order: number[] = [],
    size = new Map<number, number>()
  codes.forEach((unit, u) =>
    unit.forEach((g, i) => {
      if (c.valid(u, i)) return
      const n = size.get(g)
      if (n === undefined) order.push(g)
      size.set(g, (n ?? 0) + 1)
    }),
  )
  const ptr = new Uint32Array(order.length + 1)
  order.forEach((g, k) => (ptr[k + 1] = ptr[k] + size.get(g)!))
  const [lo, hi] = groupShardRange(ptr, coll.world, coll.rank)
  const groups = new Set(order.slice(ptr.indexOf(lo), ptr.indexOf(hi)))
  const units = new Set(span(...v))
  codes.forEach((unit, u) => unit.some((g, i) => groups.has(g) && !c.valid(u, i)) && units.add(u))
  return { units: [...units].sort((a, b) => a - b), lo, codes, groups }
}

/**
 * Which rows read (units `r.units`, in order) are this rank's training / validation rows (1 = yes)
 * and, for ranking, each row's query code.
 */
function splitRows(
  table: { labels?: Float32Array },
  c: RowCounts,
  r: RankRows,
  coll: Collective,
): { train: Uint8Array; valid: Uint8Array; codes?: Float32Array } {
  const n = table.labels!.length,
    train = new Uint8Array(n),
    valid = new Uint8Array(n),
    codes = r.codes ? new Float32Array(n) : undefined
  const N = c.trainBefore[c.trainBefore.length - 1],
    V = c.validBefore[c.validBefore.length - 1]
  const [tlo, thi] = shardRange(N, coll.world, coll.rank),
    [vlo, vhi] = shardRange(V, coll.world, coll.rank)
  let k = 0
  for (const u of r.units) {
    let gt = c.trainBefore[u],
      gv = c.validBefore[u]
    for (let i = 0; i < c.trainBefore[u + 1] - c.trainBefore[u] + (c.validBefore[u + 1] - c.validBefore[u]); i++, k++) {
      if (codes) codes[k] = r.codes![u][i]
      if (c.valid(u, i)) {
        if (gv >= vlo && gv < vhi) valid[k] = 1
        gv++
      } else {
        if (r.groups ? r.groups.has(r.codes![u][i]) : gt >= tlo && gt < thi) train[k] = 1
        gt++
      }
    }
  }
  if (k !== n) throw new Error(`rank ${coll.rank}: read ${n} rows from units ${r.units.join(', ')}, the plan says ${k}`)
  return { train, valid, ...(codes ? { codes } : {}) }
}

/** Each categorical feature's dictionary over every rank's rows: sorted distinct values, as buildDictionary on all rows. */
async function globalDictionaries(
  local: Record<string, string[]>,
  coll: Collective,
): Promise<Record<string, string[]>> {
  const all = await coll.allgather(local)
  return Object.fromEntries(Object.keys(local).map(name => [name, buildDictionary(all.flatMap(d => d[name]))]))
}

/**
 * A string label's classes over every rank's rows (sorted distinct values, as R = 1 codes them
 * from all rows), this rank's label codes rewritten (in place) to them; undefined for other labels.
 */
async function globalLabelValues(
  table: { labels?: Float32Array; labelValues?: string[] },
  coll: Collective,
): Promise<string[] | undefined> {
  const local = table.labelValues
  if (!local) return undefined
  const global = buildDictionary((await coll.allgather(local)).flat())
  const index = new Map(global.map((v, i) => [v, i]))
  const to = local.map(v => index.get(v)!)
  const y = table.labels!
  for (let i = 0; i < y.length; i++) if (!Number.isNaN(y[i])) y[i] = to[y[i]]
  return global
}

/** Rewrites local dictionary codes of categorical columns (in place) as codes of the global dictionaries. */
function remapCodes(
  features: FeatureSpec[],
  columns: Float32Array[],
  local: Record<string, string[]>,
  global: Record<string, string[]>,
): void {
  features.forEach((f, j) => {
    if (f.kind !== 'categorical') return
    const index = new Map(global[f.name].map((v, i) => [v, i]))
    const to = local[f.name].map(v => index.get(v)!)
    const c = columns[j]
    for (let i = 0; i < c.length; i++) if (!Number.isNaN(c[i])) c[i] = to[c[i]]
  })
}

/** Labels of the kept rows; a null label is refused naming its file and row. */
function requireLabels(
  label: string,
  y: Float32Array,
  t: { paths: string[]; rows: Uint32Array },
  keep: Uint8Array,
): Float32Array {
  for (let i = 0; i < y.length; i++) {
    if (keep[i] === 1 && Number.isNaN(y[i]))
      throw new RangeError(`label column ${label}: null at ${t.paths[i]} row ${t.rows[i]}`)
  }
  return y.filter((_, i) => keep[i] === 1)
}

/**
 * The validation set on rank 0: a validation table read there (with the global dictionaries), or
 * every rank's validation rows gathered in rank order. Other ranks get undefined.
 */
async function validSet(
  cfg: DatasetConfig,
  features: FeatureSpec[],
  dictionaries: Record<string, string[]>,
  mine: { columns: Float32Array[]; labels: Float32Array } & RowValues,
  coll: Collective,
): Promise<{ data: NonNullable<TrainData['valid']>; plan?: ScanPlan; rows: number } | undefined> {
  if (cfg.validTable) {
    if (coll.rank !== 0) return undefined
    const http = cfg.validTable.http ?? cfg.http
    const vs =
      cfg.validTable.snapshot ?? (await openSnapshot(cfg.validTable.url, { version: cfg.validTable.version, ...http }))
    const t = await readTable(vs, features, dictionaries, {
      label: cfg.label,
      ...rowColumnsOf(cfg),
      filter: cfg.filter,
      workers: cfg.workers,
      http,
      classLabels: cfg.classLabels,
      labelValues: cfg.labelValues,
    })
    if (t.plan.stats.rows === 0)
      throw new RangeError(
        `validation table ${cfg.validTable.url} has no rows${cfg.filter ? ` matching "${cfg.filter}"` : ''}`,
      )
    return {
      data: groupRows({
        columns: t.columns,
        labels: requireLabels(cfg.label, t.labels!, t, new Uint8Array(t.labels!.length).fill(1)),
        ...checkRowValues(cfg, t, 'validation'),
      }),
      plan: t.plan,
      rows: t.plan.stats.rows,
    }
  }
  if (cfg.validFraction === undefined) return undefined
  // Every rank receives every part (allgather is the primitive); only rank 0 keeps them.
  const parts = await coll.allgather(mine)
  if (coll.rank !== 0) return undefined
  const concat = (arrays: Float32Array[]): Float32Array => {
    const out = new Float32Array(arrays.reduce((s, a) => s + a.length, 0))
    arrays.reduce((at, a) => (out.set(a, at), at + a.length), 0)
    return out
  }
  // In table order (rank order), then gathered by query group as R = 1 does (ranking).
  const data = groupRows({
    columns: features.map((_, f) => concat(parts.map(p => p.columns[f]))),
    labels: concat(parts.map(p => p.labels)),
    ...(mine.weights ? { weights: concat(parts.map(p => p.weights!)) } : {}),
    ...(mine.baseMargin ? { baseMargin: concat(parts.map(p => p.baseMargin!)) } : {}),
    ...(mine.qid ? { qid: concat(parts.map(p => p.qid!)) } : {}),
  })
  return data.labels.length > 0 ? { data, rows: data.labels.length } : undefined
}

/*
 *
 * The GBDT in-memory rank job (registered as 'gbdt' in src/models/rank-jobs.ts; tests and benches):
 * inside one rank worker, keep this rank's contiguous rows of the given data, train with this
 * rank's own GPU device (or the CPU reference) through trainShard, and return the model's digest
 * — plus, on rank 0, the model. Table runs go through the one training run on every rank
 * (src/run/rank-job.ts). N = training rows, R = ranks.
 */

/** What each rank is given: the in-memory data (every rank receives all rows and keeps its share). */
export interface GbdtRankConfig {
  data: TrainData
  /** Raw XGBoost parameters. */
  params?: Record<string, unknown>
  /** 'gpu' (default): this rank's own device; 'cpu': the reference backend. */
  backend?: 'gpu' | 'cpu'
  /** GPU histogram kernel; default: measured on rank 0 (histogram_choice.ts) and broadcast. */
  histogramKernel?: HistogramKernel
}

/** What each rank returns. */
export interface GbdtRankResult {
  /** hashString of the XGBoost JSON model: the coordinator checks every rank built the same one. */
  digest: number
  /** Rank 0: the XGBoost JSON model. */
  model?: string
  adapter: string
}

/** The job. */
export const gbdtRankJob: RankJob<GbdtRankConfig, GbdtRankResult> = { run: memoryRank }

async function memoryRank(ctx: RankContext, c: GbdtRankConfig): Promise<GbdtRankResult> {
  if (!c.data) throw new RangeError('gbdt rank job: give the data (table runs use the train job)')
  const p = parseParams(c.params ?? {})
  const { factory, adapter } = await rankBackend(ctx, c.backend, c.histogramKernel)
  const onRound = (round: number, metrics: Record<string, number>): 'stop' | undefined => {
    if (ctx.rank === 0) ctx.progress({ kind: 'round', round, rounds: p.num_round, metrics, elapsedMs: 0 })
    return ctx.stop.signal.aborted ? 'stop' : undefined
  }
  const booster = await trainShard(shardOf(c.data, ctx.world, ctx.rank), p, ctx.coll, factory, {
    onRound,
    stop: ctx.stop,
  })
  const model = toXGBoostJsonString(booster)
  return { digest: hashString(model), model: ctx.rank === 0 ? model : undefined, adapter }
}

/**
 * A rank's backend. The histogram kernel is measured by rank 0 only and broadcast: one
 * measurement instead of R competing for the same cores, and every rank runs the same kernel.
 */
export async function rankBackend(
  ctx: RankContext,
  kind: 'gpu' | 'cpu' | undefined,
  kernel?: HistogramKernel,
): Promise<{ factory: BackendFactory; adapter: string }> {
  if (kind === 'cpu') return { factory: createCpuBackend, adapter: 'cpu (reference backend)' }
  const device = await ctx.device()
  const [{ createGpuBackend }, { PipelineCache }, { chooseHistogramKernel }] = await Promise.all([
    import('./gpu-backend.ts'),
    import('../../gpu/pipeline-cache.ts'),
    import('../../kernels/gbdt/histogram_choice.ts'),
  ])
  const cache = new PipelineCache(device)
  const histogramKernel =
    kernel ??
    ((await ctx.coll.broadcast(ctx.rank === 0 ? await chooseHistogramKernel(cache) : null, 0)) as HistogramKernel)
  return { factory: createGpuBackend(device, cache, { histogramKernel }), adapter: ctx.adapterLabel() }
}

/*
 *
 * GBDT on in-memory data across ranks (tests, benches): starts R rank workers (src/ranks), runs
 * the 'gbdt' rank job on each and checks every rank built the same model. Table runs with
 * `--ranks` go through the one run (src/run/ranks.ts). R = ranks.
 */

/**
 * Trains on in-memory `data` over `world` rank workers (tests, benches): rank 0's XGBoost JSON
 * model, the collective totals and the run.
 */
export async function trainOnRanks(
  data: TrainData,
  params: Record<string, unknown>,
  world: number,
  opts: RankGroupOptions & Pick<GbdtRankConfig, 'backend' | 'histogramKernel'> = {},
): Promise<{ model: string; collectives: CollectiveStats[]; run: RankRun<GbdtRankResult> }> {
  const { backend, histogramKernel, ...groupOpts } = opts
  const run = await runRanks<GbdtRankResult, GbdtRankConfig>(
    world,
    'gbdt',
    { data, params, backend, histogramKernel },
    groupOpts,
  )
  checkAgreement(run)
  return { model: run.results[0].model!, collectives: combineStats(run.stats), run }
}

/** Throws when a rank's model digest differs from rank 0's (the ranks went out of step). */
export function checkAgreement(run: RankRun<GbdtRankResult>): void {
  const d0 = run.results[0].digest
  run.results.forEach((r, rank) => {
    if (r.digest !== d0)
      throw new Error(
        `ranks: rank ${rank}'s model differs from rank 0's (digest ${r.digest} vs ${d0}): the ranks went out of step`,
      )
  })
}
