/**
 * The recommender's rows held in memory for a sweep: the table is decoded once (loader, table
 * order, row ids for the seeded validation split), and each trial trains from those rows through
 * a TrainSource with a seeded per-epoch permutation, so no trial re-reads the table. Featurized
 * rows are shared by trials with the same feature layout (buckets, log1p).
 * N = training rows, V = validation rows, S = sparse features, Cd = dense inputs.
 */
import { createLoader } from '../data/loader.ts'
import { planScan } from '../data/plan.ts'
import type { Batch, Cursor, ScanPlan } from '../data/types.ts'
import { openSnapshot } from '../table/index.ts'
import { concatBatches, type EpochStream, type TrainSource } from '../models/recsys/data.ts'
import { classifyColumns, featurize, FeatureStats, validMask, type ColumnKinds } from '../models/recsys/features.ts'
import type { FeatureLayout, ModelBatch, RecsysParams } from '../models/recsys/types.ts'
import { Rng } from '../util/rng.ts'
import { readFor, type ReadOptions, type StageListener } from './data-cache.ts'
import type { SweepConfig } from './types.ts'

/** Training data of one trial's parameters. */
export interface RecsysTrialData { source: TrainSource; valid: ModelBatch; layout: FeatureLayout; plan: ScanPlan }

/** The decoded table of a sweep. */
export interface RecsysTable {
  plan: ScanPlan
  /** Training rows (N) and validation rows (V) of a trial's parameters. */
  data(p: RecsysParams): RecsysTrialData
}

/** Decoded rows with their validation mask (1 = validation row). */
interface Part { batch: Batch; valid: Uint8Array }

/** Reads the table (and validation table) once. Throws naming the table, filter or column. */
export async function loadRecsysTable(c: SweepConfig, fraction: number | undefined, read: ReadOptions, onStage: StageListener): Promise<RecsysTable> {
  const plan = await planTable(c.table, c.version, c, read)
  const kinds = classifyColumns(plan.schema?.fields ?? [], c.label, c.features)
  onStage(`decoding ${plan.stats.rows} rows of ${c.table}`)
  const seed = c.seed ?? 0
  const say = (what: string) => (done: number, total: number) => onStage(`decoding ${what}: ${done} of ${total} rows`, total > 0 ? done / total : 1)
  const parts = await readParts(plan, kinds, read, b => fraction === undefined ? new Uint8Array(b.size) : validMask(plan, b, seed, fraction), say(c.table))
  if (c.validTable) {
    const validRead = readFor(read, c, c.validTable)
    const validPlan = await planTable(c.validTable, c.validVersion, c, validRead)
    parts.push(...await readParts(validPlan, kinds, validRead, b => new Uint8Array(b.size).fill(1), say(c.validTable)))
  }
  onStage(`decoded ${parts.reduce((s, p) => s + p.batch.size, 0)} rows`)
  const byLayout = new Map<string, { train: ModelBatch; valid: ModelBatch; layout: FeatureLayout }>()
  return {
    plan,
    data(p) {
      const key = JSON.stringify([p.buckets ?? null, [...p.log1p].sort(), p.embedding_dim])
      let hit = byLayout.get(key)
      if (!hit) byLayout.set(key, hit = featurizeParts(parts, kinds, p))
      return { source: memorySource(hit.train, hit.layout, p.batch_size, p.seed), valid: hit.valid, layout: hit.layout, plan }
    },
  }
}

async function planTable(url: string, version: number | undefined, c: SweepConfig, read: ReadOptions): Promise<ScanPlan> {
  const snapshot = await openSnapshot(url, { version, ...read.http })
  const columns = c.features ? [c.label, ...c.features.filter(f => f !== c.label)] : undefined
  const plan = await planScan(snapshot, { columns, label: c.label, filter: c.filter, ...read.http })
  if (plan.stats.rows === 0) throw new RangeError(c.filter ? `filter "${c.filter}" selects no rows of ${url} version ${snapshot.version}` : `${url} version ${snapshot.version} has no rows`)
  return plan
}

/** Decoded batches of `plan`; `progress(rows read, plan rows)` after each batch (0 first). */
async function readParts(plan: ScanPlan, kinds: ColumnKinds, read: ReadOptions, mask: (b: Batch) => Uint8Array,
  progress: (done: number, total: number) => void): Promise<Part[]> {
  const loader = createLoader(plan, { assign: { epoch: 0, worldSize: 1, rank: 0 }, batchSize: 65_536, spec: kinds.spec, ids: true, workers: read.workers, http: read.http })
  const parts: Part[] = []
  let rows = 0
  progress(0, plan.stats.rows)
  try {
    for await (const batch of loader.batches()) {
      parts.push({ batch, valid: mask(batch) })
      progress(rows += batch.size, plan.stats.rows)
    }
  } finally {
    await loader.close()
  }
  return parts
}

/** Statistics over the training rows → layout → featurized training and validation rows. */
function featurizeParts(parts: Part[], kinds: ColumnKinds, p: RecsysParams): { train: ModelBatch; valid: ModelBatch; layout: FeatureLayout } {
  const stats = new FeatureStats(kinds, new Set(p.log1p))
  for (const { batch, valid } of parts) stats.observe(batch, valid.map(v => 1 - v))
  const layout = stats.finish(p)
  const train = concatBatches(parts.map(x => featurize(layout, x.batch, x.valid.map(v => 1 - v))), layout)
  const valid = concatBatches(parts.map(x => featurize(layout, x.batch, x.valid)), layout)
  if (train.n === 0) throw new RangeError('sweep: no training rows left after the validation split')
  return { train, valid, layout }
}

/**
 * Epochs over in-memory rows: a seeded permutation per epoch (seed, epoch), batches of `batch`
 * rows gathered from it. The cursor is the rows delivered so far (plus the pinning fields the
 * loader's Cursor has), so a resumed epoch continues where it stopped.
 */
export function memorySource(rows: ModelBatch, layout: FeatureLayout, batch: number, seed: number): TrainSource {
  const S = layout.sparse.length, Cd = layout.denseInputs
  const stepsPerEpoch = Math.ceil(rows.n / batch)
  function open(epoch: number, cursor?: Cursor): EpochStream {
    const order = permutation(rows.n, seed, epoch)
    let at = cursor?.position ?? 0
    async function* batches(): AsyncGenerator<ModelBatch> {
      while (at < rows.n) {
        const idx = order.subarray(at, Math.min(rows.n, at + batch))
        at += idx.length
        yield gatherRows(rows, idx, S, Cd)
      }
    }
    const cur = (): Cursor => ({ tableUrl: 'memory:', version: 0, planDigest: '', seed, epoch, worldSize: 1, rank: 0, mode: 'pad', shuffleBuffer: 0, position: at })
    return { batches, cursor: cur, close: async () => {} }
  }
  return { layout, stepsPerEpoch, open }
}

/** Fisher–Yates permutation of 0 … n−1 seeded by (seed, epoch). */
function permutation(n: number, seed: number, epoch: number): Uint32Array {
  const rng = new Rng((seed * 0x9e3779b1 + epoch * 0x85ebca6b) >>> 0)
  const out = new Uint32Array(n)
  for (let i = 0; i < n; i++) out[i] = i
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1))
    const t = out[i]; out[i] = out[j]; out[j] = t
  }
  return out
}

/** Rows `idx` of `b` as one batch. */
function gatherRows(b: ModelBatch, idx: Uint32Array, S: number, Cd: number): ModelBatch {
  const n = idx.length
  const out: ModelBatch = { n, rows: new Uint32Array(n * S), dense: new Float32Array(n * Cd), labels: new Float32Array(n) }
  for (let i = 0; i < n; i++) {
    const r = idx[i]
    out.rows.set(b.rows.subarray(r * S, r * S + S), i * S)
    out.dense.set(b.dense.subarray(r * Cd, r * Cd + Cd), i * Cd)
    out.labels[i] = b.labels[r]
  }
  return out
}
