/**
 * One rank's share of a table: from the scan plan alone (the planner already applied
 * deletion vectors and the exact filter to every unit) each rank knows every row's identity and
 * whether the seeded split sends it to validation, hence every training row's global index in
 * table order — R = 1's row order. Rank r reads only the units holding its training rows
 * [lo, hi) = shardRange(N, R, r) and its validation rows (likewise of V); categorical
 * dictionaries are the union of the ranks' values (sorted, as R = 1 builds them from all rows);
 * the validation rows are gathered to rank 0 in rank order (= table order).
 * N = training rows, V = validation rows, U = units, F = features.
 */
import type { Collective } from '../../ranks/types.ts'
import type { ScanPlan } from '../../data/types.ts'
import { openSnapshot } from '../../table/index.ts'
import { noRowsError } from '../../data/plan.ts'
import type { Dataset } from './dataset.ts'
import { readTable } from './dataset.ts'
import type { TrainData } from './driver.ts'
import type { Shard } from './dist-train.ts'
import { shardRange } from './dist-train.ts'
import { buildDictionary, isValidRow, selectFeatures, type FeatureSpec } from './features.ts'
import type { DatasetConfig } from './dataset.ts'

/** Per unit (plan order) counts of training and validation rows before it: length U + 1 each. */
export interface RowCounts { trainBefore: Float64Array; validBefore: Float64Array; valid: (unit: number, i: number) => boolean }

/** Counts of the plan's rows by unit; `fraction` = validation share (undefined: every row trains). */
export function rowCounts(plan: ScanPlan, seed: number, fraction: number | undefined): RowCounts {
  const U = plan.units.length, trainBefore = new Float64Array(U + 1), validBefore = new Float64Array(U + 1)
  const valid = (u: number, i: number): boolean => {
    if (fraction === undefined) return false
    const unit = plan.units[u]
    return isValidRow(seed, plan.files[unit.fileIndex].path, unit.live ? unit.live[i] : unit.rowStart + i, fraction)
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
export interface RankDataset { shard: Shard; dataset: Dataset }

/**
 * Loads rank `coll.rank`'s shard of cfg's table (validation: a seeded fraction or a table, read by
 * rank 0). Throws naming the table, filter or label as loadDataset does.
 */
export async function loadRankDataset(cfg: DatasetConfig, coll: Collective): Promise<RankDataset> {
  const snapshot = cfg.snapshot ?? await openSnapshot(cfg.tableUrl, { version: cfg.version, ...cfg.http })
  const { features, skipped } = selectFeatures(snapshot.schema, cfg.label, cfg.features)
  let full: ScanPlan | undefined, counts: RowCounts | undefined, span: [number, number] = [0, 0]
  const restrict = (plan: ScanPlan): ScanPlan => {
    full = plan
    counts = rowCounts(plan, cfg.seed, cfg.validFraction)
    span = rankUnits(counts, coll)
    const units = plan.units.slice(span[0], span[1]).map((u, id) => ({ ...u, id }))
    return { ...plan, units, stats: { ...plan.stats, rows: units.reduce((s, u) => s + u.liveRows, 0) } }
  }
  const table = await readTable(snapshot, features, undefined, { label: cfg.label, filter: cfg.filter, workers: cfg.workers, http: cfg.http, restrict })
  const plan = { ...table.plan, units: full!.units, stats: full!.stats }
  if (plan.stats.rows === 0) throw noRowsError(cfg.filter, cfg.tableUrl, snapshot.version)
  const dictionaries = await globalDictionaries(table.dictionaries, coll)
  remapCodes(features, table.columns, table.dictionaries, dictionaries)
  const rows = splitRows(table, counts!, span, coll)
  const N = counts!.trainBefore[counts!.trainBefore.length - 1], V = counts!.validBefore[counts!.validBefore.length - 1]
  if (N === 0) throw new RangeError(`valid fraction ${cfg.validFraction} leaves no training rows`)
  const pick = (keep: Uint8Array, a: Float32Array): Float32Array => a.filter((_, i) => keep[i] === 1)
  const labels = requireLabels(cfg.label, table.labels!, table, rows.train)
  const data: TrainData = {
    columns: table.columns.map(c => pick(rows.train, c)), labels, labelName: cfg.label,
    featureNames: features.map(f => f.name), featureTypes: features.map(f => f.xgbType),
  }
  const valid = await validSet(cfg, features, dictionaries, { columns: table.columns.map(c => pick(rows.valid, c)), labels: pick(rows.valid, table.labels!) }, coll)
  if (valid && coll.rank === 0) data.valid = valid.data
  const shard: Shard = { data, lo: shardRange(N, coll.world, coll.rank)[0], total: N }
  const rowsValid = cfg.validTable ? valid?.rows ?? 0 : V
  return { shard, dataset: { data, features, skipped, dictionaries, plan, validPlan: valid?.plan, rowsTrain: N, rowsValid } }
}

/** The units rank `coll.rank` reads: those holding its training rows and its validation rows. */
function rankUnits(c: RowCounts, coll: Collective): [number, number] {
  const N = c.trainBefore[c.trainBefore.length - 1], V = c.validBefore[c.validBefore.length - 1]
  const [tlo, thi] = shardRange(N, coll.world, coll.rank), [vlo, vhi] = shardRange(V, coll.world, coll.rank)
  const t = unitSpan(c.trainBefore, tlo, thi), v = unitSpan(c.validBefore, vlo, vhi)
  if (t[0] === t[1]) return v
  if (v[0] === v[1]) return t
  return [Math.min(t[0], v[0]), Math.max(t[1], v[1])]
}

/** Which rows read (units span[0] … span[1] − 1, in order) are this rank's training / validation rows (1 = yes). */
function splitRows(table: { labels?: Float32Array }, c: RowCounts, span: [number, number], coll: Collective): { train: Uint8Array; valid: Uint8Array } {
  const n = table.labels!.length, train = new Uint8Array(n), valid = new Uint8Array(n)
  const N = c.trainBefore[c.trainBefore.length - 1], V = c.validBefore[c.validBefore.length - 1]
  const [tlo, thi] = shardRange(N, coll.world, coll.rank), [vlo, vhi] = shardRange(V, coll.world, coll.rank)
  let k = 0, gt = c.trainBefore[span[0]], gv = c.validBefore[span[0]]
  for (let u = span[0]; u < span[1]; u++) {
    for (let i = 0; i < (c.trainBefore[u + 1] - c.trainBefore[u]) + (c.validBefore[u + 1] - c.validBefore[u]); i++, k++) {
      if (c.valid(u, i)) { if (gv >= vlo && gv < vhi) valid[k] = 1; gv++ } else { if (gt >= tlo && gt < thi) train[k] = 1; gt++ }
    }
  }
  if (k !== n) throw new Error(`rank ${coll.rank}: read ${n} rows from units ${span[0]}…${span[1] - 1}, the plan says ${k}`)
  return { train, valid }
}

/** Each categorical feature's dictionary over every rank's rows: sorted distinct values, as buildDictionary on all rows. */
async function globalDictionaries(local: Record<string, string[]>, coll: Collective): Promise<Record<string, string[]>> {
  const all = await coll.allgather(local)
  return Object.fromEntries(Object.keys(local).map(name => [name, buildDictionary(all.flatMap(d => d[name]))]))
}

/** Rewrites local dictionary codes of categorical columns (in place) as codes of the global dictionaries. */
function remapCodes(features: FeatureSpec[], columns: Float32Array[], local: Record<string, string[]>, global: Record<string, string[]>): void {
  features.forEach((f, j) => {
    if (f.kind !== 'categorical') return
    const index = new Map(global[f.name].map((v, i) => [v, i]))
    const to = local[f.name].map(v => index.get(v)!)
    const c = columns[j]
    for (let i = 0; i < c.length; i++) if (!Number.isNaN(c[i])) c[i] = to[c[i]]
  })
}

/** Labels of the kept rows; a null label is refused naming its file and row. */
function requireLabels(label: string, y: Float32Array, t: { paths: string[]; rows: Uint32Array }, keep: Uint8Array): Float32Array {
  for (let i = 0; i < y.length; i++) {
    if (keep[i] === 1 && Number.isNaN(y[i])) throw new RangeError(`label column ${label}: null at ${t.paths[i]} row ${t.rows[i]}`)
  }
  return y.filter((_, i) => keep[i] === 1)
}

/**
 * The validation set on rank 0: a validation table read there (with the global dictionaries), or
 * every rank's validation rows gathered in rank order. Other ranks get undefined.
 */
async function validSet(cfg: DatasetConfig, features: FeatureSpec[], dictionaries: Record<string, string[]>,
  mine: { columns: Float32Array[]; labels: Float32Array }, coll: Collective): Promise<{ data: NonNullable<TrainData['valid']>; plan?: ScanPlan; rows: number } | undefined> {
  if (cfg.validTable) {
    if (coll.rank !== 0) return undefined
    const http = cfg.validTable.http ?? cfg.http
    const vs = cfg.validTable.snapshot ?? await openSnapshot(cfg.validTable.url, { version: cfg.validTable.version, ...http })
    const t = await readTable(vs, features, dictionaries, { label: cfg.label, filter: cfg.filter, workers: cfg.workers, http })
    if (t.plan.stats.rows === 0) throw new RangeError(`validation table ${cfg.validTable.url} has no rows${cfg.filter ? ` matching "${cfg.filter}"` : ''}`)
    return { data: { columns: t.columns, labels: requireLabels(cfg.label, t.labels!, t, new Uint8Array(t.labels!.length).fill(1)) }, plan: t.plan, rows: t.plan.stats.rows }
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
  const data = { columns: features.map((_, f) => concat(parts.map(p => p.columns[f]))), labels: concat(parts.map(p => p.labels)) }
  return data.labels.length > 0 ? { data, rows: data.labels.length } : undefined
}
