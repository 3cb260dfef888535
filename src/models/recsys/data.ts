/**
 * Training data of the recommender from a scan plan: one statistics pass over the training rows
 * (features.ts), the validation rows (a seeded per-row fraction, as GBDT's) featurized once, and
 * per-epoch training streams from the loader with a seeded shuffle and a resumable cursor.
 */
import { concatBags, sliceBags } from './bags.ts'
import { createLoader } from '../../data/loader.ts'
import { noRowsError, planScan } from '../../data/plan.ts'
import { rowKeyFields } from '../../data/row-key.ts'
import type { Batch, Cursor, LoaderStats, ScanPlan } from '../../data/types.ts'
import type { Snapshot } from '../../table/types.ts'
import { httpFor, type TrainConfig } from '../../run/config.ts'
import type { HttpOptions } from '../../table/types.ts'
import { addGroupColumn, classifyColumns, featurize, FeatureStats, validMask, type ColumnKinds } from './features.ts'
import type { FeatureLayout, ModelBatch, RecsysParams } from './types.ts'
import { stepsPerEpoch } from './params.ts'

/** What to read. */
export interface RecsysDataConfig {
  /** Plan with plan.schema (planScan), its columns including label and features. */
  plan: ScanPlan
  label: string
  /** Feature columns (default: every usable column but the label). */
  features?: string[]
  /** Share of rows held out for validation, in (0, 1); undefined = none. */
  validFraction?: number
  /** Loader workers (0 = read on this thread). */
  workers?: number
  /** Multi-rank runs: train on this rank's equal share of every epoch (loader assignment, tail dropped). */
  shard?: { rank: number; worldSize: number }
  http?: HttpOptions
}

/** A rank's epoch as model batches, with the loader's cursor after the last delivered batch. */
export interface EpochStream {
  batches(): AsyncIterable<ModelBatch>
  cursor(): Cursor
  close(): Promise<void>
  /** Time spent featurizing this stream's batches so far, ms (optional: 0). */
  featurizeMs?(): number
}

/** Where training batches come from (the loop knows nothing of tables). */
export interface TrainSource {
  layout: FeatureLayout
  /** Training steps per epoch (batches of the loader stream). */
  stepsPerEpoch: number
  /** Epoch `epoch` from its start, or from `cursor` (made by a stream of the same epoch). */
  open(epoch: number, cursor?: Cursor): EpochStream
  /**
   * What the loader read so far: the statistics and validation passes, then each training epoch
   * opened (absent: the batches come from memory, a sweep's trials).
   */
  reads?(): LoaderRead[]
}

/**
 * What the loader read in one pass over the table: the feature statistics, the validation rows, or
 * one training epoch (summed over the epoch's streams: a resumed or checkpointed epoch opens more
 * than one) — units, bytes fetched from the table, and units the page-wide epoch cache
 * (src/data/unit-cache.ts) served instead. The summary's and manifest's `loader_reads`.
 */
export interface LoaderRead {
  pass: 'statistics' | 'validation' | 'epoch'
  /** The training epoch (pass 'epoch'). */
  epoch?: number
  units: number
  bytes_fetched: number
  cache_hits: number
  cache_misses: number
  /** Decoded bytes the cache served (memory or spill store). */
  bytes_from_cache: number
  /** Files asked (one 1-byte request each) whether they changed before their first hit; never a share's. */
  revalidations: number
}

/** The source plus the validation rows (n = 0 without a validation fraction). */
export interface RecsysData {
  source: TrainSource
  valid: ModelBatch
  kinds: ColumnKinds
}

/** Plans the features from the training rows and builds the source. Throws naming a bad column. */
export async function openRecsysData(cfg: RecsysDataConfig, p: RecsysParams): Promise<RecsysData> {
  const fields = cfg.plan.schema?.fields
  if (!fields) throw new TypeError('recsys data: the plan has no schema (plan it with planScan)')
  const kinds = classifyColumns(fields, cfg.label, cfg.features)
  addGroupColumn(kinds, fields, p.gauc_group)
  for (const c of [cfg.label, ...Object.keys(kinds.spec)]) {
    if (!cfg.plan.columns.includes(c))
      throw new RangeError(`column '${c}' is not among the plan's columns (${cfg.plan.columns.join(', ')})`)
  }
  for (const c of p.log1p)
    if (!kinds.dense.includes(c))
      throw new RangeError(`log1p: '${c}' is not a dense feature column (dense: ${kinds.dense.join(', ')})`)
  // The first pass reads the key columns and keeps each row's side; later passes and the epochs
  // look it up by row identity instead of decoding the key columns again.
  const fraction = cfg.validFraction
  const split = fraction === undefined ? undefined : new SplitMasks(cfg.plan)
  const mask = (b: Batch): Uint8Array | undefined => split?.of(b)
  const keyed = { ...cfg, plan: withSplitKey(cfg.plan, kinds, fraction) }
  const stats = new FeatureStats(kinds, new Set(p.log1p))
  const passes: LoaderRead[] = []
  const passRead = (pass: LoaderRead['pass']) => (s: LoaderStats) => passes.push(addRead(undefined, pass, s))
  await scan(
    keyed,
    kinds,
    p,
    b => {
      const m = fraction === undefined ? undefined : validMask(b, p.seed, fraction)
      if (m) split!.record(b, m)
      stats.observe(b, invert(m))
    },
    passRead('statistics'),
  )
  const layout = stats.finish(p)
  const valid: ModelBatch[] = []
  if (fraction !== undefined)
    await scan(cfg, kinds, p, b => valid.push(featurize(layout, b, mask(b), p.gauc_group)), passRead('validation'))
  const epochs = new Map<number, LoaderRead>()
  const source: TrainSource = {
    layout,
    stepsPerEpoch: stepsPerEpoch(cfg.plan.stats.rows, p.batch_size, cfg.shard?.worldSize),
    open: (epoch, cursor) =>
      openEpoch(cfg, kinds, layout, p, epoch, mask, cursor, s =>
        epochs.set(epoch, addRead(epochs.get(epoch), 'epoch', s, epoch)),
      ),
    reads: () => [...passes, ...[...epochs.values()].sort((a, b) => a.epoch! - b.epoch!)],
  }
  return { source, valid: concatBatches(valid, layout), kinds }
}

/**
 * The validation side of every row (1 = held out), by unit and file row: recorded from the row
 * keys of one pass, then looked up by the loader's row ids.
 */
class SplitMasks {
  private readonly byUnit: Uint8Array[]

  constructor(private readonly plan: ScanPlan) {
    this.byUnit = plan.units.map(u => new Uint8Array(u.rowEnd - u.rowStart))
  }

  record(b: Batch, mask: Uint8Array): void {
    const { unit, row } = idsOf(b)
    for (let i = 0; i < b.size; i++) this.byUnit[unit[i]][row[i] - this.plan.units[unit[i]].rowStart] = mask[i]
  }

  of(b: Batch): Uint8Array {
    const { unit, row } = idsOf(b)
    const out = new Uint8Array(b.size)
    for (let i = 0; i < b.size; i++) out[i] = this.byUnit[unit[i]][row[i] - this.plan.units[unit[i]].rowStart]
    return out
  }
}

function idsOf(b: Batch): NonNullable<Batch['ids']> {
  if (!b.ids) throw new TypeError('recsys data: the split needs row ids (createLoader { ids: true })')
  return b.ids
}

/** Table-order pass over every row (with row ids; row keys come with the plan's rowKey). */
async function scan(
  cfg: RecsysDataConfig,
  kinds: ColumnKinds,
  p: RecsysParams,
  visit: (b: Batch) => void,
  read: (stats: LoaderStats) => void,
): Promise<void> {
  const loader = createLoader(cfg.plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: p.batch_size,
    spec: kinds.spec,
    ids: true,
    workers: cfg.workers,
    http: cfg.http,
  })
  try {
    for await (const b of loader.batches()) visit(b)
    read(loader.stats())
  } finally {
    await loader.close()
  }
}

function openEpoch(
  cfg: RecsysDataConfig,
  kinds: ColumnKinds,
  layout: FeatureLayout,
  p: RecsysParams,
  epoch: number,
  mask: (b: Batch) => Uint8Array | undefined,
  cursor: Cursor | undefined,
  closed: (stats: LoaderStats) => void,
): EpochStream {
  const loader = createLoader(cfg.plan, {
    assign: { seed: p.seed, epoch, worldSize: cfg.shard?.worldSize ?? 1, rank: cfg.shard?.rank ?? 0 },
    cursor,
    batchSize: p.batch_size,
    spec: kinds.spec,
    ids: cfg.validFraction !== undefined,
    workers: cfg.workers,
    http: cfg.http,
  })
  let featurizeMs = 0
  let counted = false
  async function* batches(): AsyncGenerator<ModelBatch> {
    for await (const b of loader.batches()) {
      const t = performance.now()
      const m = featurize(layout, b, invert(mask(b)))
      featurizeMs += performance.now() - t
      yield m
    }
  }
  return {
    batches,
    cursor: () => loader.cursor(),
    close: () => {
      if (!counted) closed(loader.stats())
      counted = true
      return loader.close()
    },
    featurizeMs: () => featurizeMs,
  }
}

/** `to` (a fresh read of `pass` when undefined) plus a closed loader's counts. */
function addRead(to: LoaderRead | undefined, pass: LoaderRead['pass'], s: LoaderStats, epoch?: number): LoaderRead {
  const r = to ?? {
    pass,
    ...(epoch === undefined ? {} : { epoch }),
    units: 0,
    bytes_fetched: 0,
    cache_hits: 0,
    cache_misses: 0,
    bytes_from_cache: 0,
    revalidations: 0,
  }
  r.units += s.unitsRead
  r.bytes_fetched += s.bytesFetched
  r.cache_hits += s.cacheHits
  r.cache_misses += s.cacheMisses
  r.bytes_from_cache += s.bytesFromCache
  r.revalidations += s.revalidations
  return r
}

function invert(mask: Uint8Array | undefined): Uint8Array | undefined {
  return mask?.map(v => 1 - v)
}

/** One batch holding all rows of `parts` (with groups when every part has them). */
export function concatBatches(parts: ModelBatch[], layout: FeatureLayout): ModelBatch {
  const n = parts.reduce((s, b) => s + b.n, 0)
  const S = layout.sparse.length,
    Cd = layout.denseInputs
  const out: ModelBatch = {
    n,
    rows: new Uint32Array(n * S),
    dense: new Float32Array(n * Cd),
    labels: new Float32Array(n),
  }
  let at = 0
  for (const b of parts) {
    out.rows.set(b.rows, at * S)
    out.dense.set(b.dense, at * Cd)
    out.labels.set(b.labels, at)
    at += b.n
  }
  Object.assign(out, concatBags(parts))
  if (parts.length && parts.every(b => b.groups)) {
    out.groups = new Float64Array(n)
    at = 0
    for (const b of parts) {
      out.groups.set(b.groups!, at)
      at += b.n
    }
  }
  return out
}

/** Rows [start, end) of `batch`. */
export function sliceBatch(
  batch: ModelBatch,
  start: number,
  end: number,
  layout: { sparse: number; dense: number; bags?: number },
): ModelBatch {
  return {
    n: end - start,
    rows: batch.rows.slice(start * layout.sparse, end * layout.sparse),
    dense: batch.dense.slice(start * layout.dense, end * layout.dense),
    labels: batch.labels.slice(start, end),
    ...sliceBags(batch, start, end, layout.bags ?? 0),
  }
}

/**
 * Plans every column (or label + features + the gauc `group` column) of `snapshot` (the table at
 * `url`) with the run's filter; refuses a plan with no rows. With a validation fraction and
 * --split-key the plan carries those key columns (rowKey; the default key is withSplitKey's).
 */
export async function planRecsysTable(
  snapshot: Snapshot,
  url: string,
  config: TrainConfig,
  group?: string,
): Promise<ScanPlan> {
  const named = config.features && [config.label, ...config.features, ...(group === undefined ? [] : [group])]
  const columns = named && [...new Set(named)]
  const plan = await planScan(snapshot, {
    columns,
    label: config.label,
    filter: config.filter,
    ...httpFor(config, url),
  })
  if (plan.stats.rows === 0) throw noRowsError(config.filter, url, snapshot.version)
  const keyed = config.validFraction !== undefined && !config.validTable && config.splitKey?.length
  return keyed ? { ...plan, rowKey: rowKeyFields(snapshot.schema, [], config.splitKey) } : plan
}

/**
 * The plan with the key columns of the seeded split when there is one: those it has (--split-key,
 * set by planRecsysTable, which sees every column of the table), else the label and the feature
 * columns (row-key.ts rowKeyFields).
 */
export function withSplitKey(plan: ScanPlan, kinds: ColumnKinds, fraction: number | undefined): ScanPlan {
  if (fraction === undefined || plan.rowKey) return plan
  const used = [kinds.label, ...kinds.sparse, ...kinds.dense, ...kinds.lists, ...kinds.bags]
  return { ...plan, rowKey: rowKeyFields({ type: 'struct', fields: plan.schema?.fields ?? [] }, used) }
}
