/**
 * The recommender's rows held in memory for a sweep: the table is decoded once (loader, table
 * order, row ids for the seeded validation split), and each trial trains from those rows through
 * a TrainSource that replays the loader's own epoch streams, so no trial re-reads the table and a
 * trial trains exactly the model `snaptrain train` trains. Featurized rows are shared by trials
 * with the same feature layout (buckets, log1p, embedding_dim) and seed.
 * N = training rows, V = validation rows, S = sparse features, Cd = dense inputs.
 */
import { makeCursor } from '../../data/cursor.ts'
import { createLoader } from '../../data/loader.ts'
import { rankStream } from '../../data/stream.ts'
import type { Batch, Cursor, ScanPlan } from '../../data/types.ts'
import { concatBatches, planRecsysTable, withSplitKey, type EpochStream, type TrainSource } from './data.ts'
import { addGroupColumn, classifyColumns, featurize, FeatureStats, validMask, type ColumnKinds } from './features.ts'
import type { FeatureLayout, ModelBatch, RecsysParams } from './types.ts'
import { gatherBags } from './bags.ts'
import { httpFor, type TrainConfig } from '../../run/config.ts'
import type { RunInput } from '../../run/family.ts'
import { stepsPerEpoch } from './params.ts'

/** Hears a loading stage (message, fraction done). */
export type StageListener = (message: string, fraction?: number) => void

/** Training data of one trial's parameters. */
export interface RecsysTrialData {
  source: TrainSource
  valid: ModelBatch
  layout: FeatureLayout
  plan: ScanPlan
  validPlan?: ScanPlan
}

/** The decoded table of a sweep. */
export interface RecsysTable {
  plan: ScanPlan
  /** Training rows (N) and validation rows (V) of a trial's parameters. */
  data(p: RecsysParams): RecsysTrialData
}

/** Decoded rows of one table, in table order (its units one after another). */
interface Part {
  batch: Batch
}

/**
 * Reads the run's table (and validation table, each with its own HTTP options) once, from the
 * snapshots the run opened, with the `group` column (the sweep's fixed gauc_group) decoded for
 * grouped AUC. Throws naming the table, filter or column.
 */
export async function loadRecsysTable(
  input: Pick<RunInput, 'config' | 'snapshot' | 'validSnapshot'>,
  onStage: StageListener,
  group?: string,
): Promise<RecsysTable> {
  const c = input.config
  const fraction = c.validFraction
  const planned = await planRecsysTable(input.snapshot, c.table, c, group)
  const kinds = classifyColumns(planned.schema?.fields ?? [], c.label, c.features)
  addGroupColumn(kinds, planned.schema?.fields ?? [], group)
  // Row keys come with the batches, for the seeded split (validMask).
  const plan = withSplitKey(planned, kinds, fraction)
  onStage(`decoding ${plan.stats.rows} rows of ${c.table}`)
  const say = (what: string) => (done: number, total: number) =>
    onStage(`decoding ${what}: ${done} of ${total} rows`, total > 0 ? done / total : 1)
  const parts = await readParts(plan, kinds, c, c.table, say(c.table))
  const unitStart = unitOffsets(plan, parts)
  const validParts: Part[] = []
  let validPlan: ScanPlan | undefined
  if (c.validTable) {
    validPlan = await planRecsysTable(input.validSnapshot!, c.validTable, c, group)
    validParts.push(...(await readParts(validPlan, kinds, c, c.validTable, say(c.validTable))))
  }
  onStage(`decoded ${[...parts, ...validParts].reduce((s, p) => s + p.batch.size, 0)} rows`)
  const byLayout = new Map<string, Featurized>()
  return {
    plan,
    data(p) {
      if (p.gauc_group !== group)
        throw new RangeError(
          `sweep: gauc_group '${p.gauc_group}' differs from the fixed parameters' ${JSON.stringify(group ?? null)}: set it among the fixed parameters, not in the space`,
        )
      // The split is seeded by the trial's seed, as `snaptrain train` seeds it.
      const key = JSON.stringify([p.buckets ?? null, [...p.log1p].sort(), p.embedding_dim, p.seed])
      let hit = byLayout.get(key)
      if (!hit) byLayout.set(key, (hit = featurizeParts(parts, validParts, kinds, p, fraction)))
      return {
        source: memorySource(plan, hit.all, hit.train, unitStart, hit.layout, p.batch_size, p.seed),
        valid: hit.valid,
        layout: hit.layout,
        plan,
        validPlan,
      }
    },
  }
}

/** Decoded batches of `plan` in table order, with row ids; `progress(rows read, plan rows)` after each batch (0 first). */
async function readParts(
  plan: ScanPlan,
  kinds: ColumnKinds,
  c: TrainConfig,
  url: string,
  progress: (done: number, total: number) => void,
): Promise<Part[]> {
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 65_536,
    spec: kinds.spec,
    ids: true,
    workers: c.workers,
    http: httpFor(c, url),
  })
  const parts: Part[] = []
  let rows = 0
  progress(0, plan.stats.rows)
  try {
    for await (const batch of loader.batches()) {
      parts.push({ batch })
      progress((rows += batch.size), plan.stats.rows)
    }
  } finally {
    await loader.close()
  }
  return parts
}

/**
 * Where each unit's live rows start among the table-order rows. Without a seed the loader
 * delivers unit after unit, each unit's live rows in order; checked here, since the sweep's
 * epochs index the rows by (unit, live row) exactly as the loader's streams name them.
 */
function unitOffsets(plan: ScanPlan, parts: Part[]): Uint32Array {
  const start = new Uint32Array(plan.units.length).fill(0xffffffff)
  let at = 0
  let last = -1
  for (const { batch } of parts) {
    const units = batch.ids!.unit
    for (let i = 0; i < batch.size; i++, at++) {
      const u = units[i]
      if (u === last) continue
      if (start[u] !== 0xffffffff)
        throw new Error(`sweep: unit ${u} of ${plan.tableUrl} came in two runs; table order is unit order`)
      start[u] = at
      last = u
    }
  }
  return start
}

/** A trial's featurized rows: all training-table rows (table order) with the training mask, and the validation rows. */
interface Featurized {
  all: ModelBatch
  train: Uint8Array
  valid: ModelBatch
  layout: FeatureLayout
}

/**
 * Statistics over the training rows → layout → featurized rows, as `snaptrain train` computes
 * them (data.ts): the same seeded split, the same row order of the statistics pass.
 */
function featurizeParts(
  parts: Part[],
  validParts: Part[],
  kinds: ColumnKinds,
  p: RecsysParams,
  fraction: number | undefined,
): Featurized {
  const masks = parts.map(({ batch }) =>
    fraction === undefined ? new Uint8Array(batch.size) : validMask(batch, p.seed, fraction),
  )
  const stats = new FeatureStats(kinds, new Set(p.log1p))
  parts.forEach(({ batch }, i) =>
    stats.observe(
      batch,
      masks[i].map(v => 1 - v),
    ),
  )
  const layout = stats.finish(p)
  const all = concatBatches(
    parts.map(x => featurize(layout, x.batch)),
    layout,
  )
  const train = new Uint8Array(all.n)
  let at = 0
  for (const m of masks) for (const v of m) train[at++] = 1 - v
  const valid = concatBatches(
    [
      ...parts.map((x, i) => featurize(layout, x.batch, masks[i], p.gauc_group)),
      ...validParts.map(x => featurize(layout, x.batch, undefined, p.gauc_group)),
    ],
    layout,
  )
  if (!train.some(v => v === 1)) throw new RangeError('sweep: no training rows left after the validation split')
  return { all, train, valid, layout }
}

/**
 * Epochs over in-memory rows that deliver exactly what the loader delivers to `snaptrain train`:
 * the epoch's rank stream (rankStream: seeded unit order and shuffle windows, seed and epoch as the
 * run's) cut into batches of `batch` positions, validation rows then leaving each batch. So a
 * trial and a training run with the same inputs see the same batches and train the same model.
 * The cursor is the loader's (position in the stream), so a resumed epoch continues where it stopped.
 */
export function memorySource(
  plan: ScanPlan,
  rows: ModelBatch,
  train: Uint8Array,
  unitStart: Uint32Array,
  layout: FeatureLayout,
  batch: number,
  seed: number,
): TrainSource {
  const S = layout.sparse.length,
    Cd = layout.denseInputs
  function open(epoch: number, cursor?: Cursor): EpochStream {
    const assign = { seed, epoch, worldSize: 1, rank: 0 }
    const stream = rankStream(plan, assign)
    let at = cursor?.position ?? 0
    async function* batches(): AsyncGenerator<ModelBatch> {
      while (at < stream.length) {
        const end = Math.min(stream.length, at + batch)
        const { unit, index } = stream.rowsAt(at, end)
        const picked: number[] = []
        for (let i = 0; i < unit.length; i++) {
          const r = unitStart[unit[i]] + index[i]
          if (train[r]) picked.push(r)
        }
        at = end
        yield gatherRows(rows, Uint32Array.from(picked), S, Cd, layout.bags?.length ?? 0)
      }
    }
    return { batches, cursor: () => makeCursor(plan, assign, at), close: async () => {} }
  }
  return { layout, stepsPerEpoch: stepsPerEpoch(plan.stats.rows, batch), open }
}
/** Rows `idx` of `b` as one batch. */
function gatherRows(b: ModelBatch, idx: Uint32Array, S: number, Cd: number, K: number): ModelBatch {
  const n = idx.length
  const out: ModelBatch = {
    n,
    rows: new Uint32Array(n * S),
    dense: new Float32Array(n * Cd),
    labels: new Float32Array(n),
    ...gatherBags(b, idx, K),
  }
  for (let i = 0; i < n; i++) {
    const r = idx[i]
    out.rows.set(b.rows.subarray(r * S, r * S + S), i * S)
    out.dense.set(b.dense.subarray(r * Cd, r * Cd + Cd), i * Cd)
    out.labels[i] = b.labels[r]
  }
  return out
}
