/**
 * The `clicks` sample table: a recommender feature table in three versions.
 *   v0  WRITE   `rows` rows, sorted by country (as after a clustering job), in 4–8 files
 *   v1  WRITE   +10% new rows appended in new files (unsorted, as fresh data arrives)
 *   v2  DELETE  WHERE country = <one code>: files holding such rows are removed and rewritten
 * Sorting v0 by country makes the per-file country bounds narrow, so the DELETE touches only
 * some files and file/row-group pruning on `country` has something to prune.
 */
import { Rng } from '../../src/util/rng.ts'
import { auc } from '../../src/eval/metrics.ts'
import { interceptFor, sigmoid } from './logistic.ts'
import { ceilingProbs, frameRowKeys, learnableCeiling, type CeilingProbs } from './ceiling.ts'
import { CLICKS_COLUMNS, ClicksModel, EMB_DIM, clickBuffers } from './clicks-model.ts'
import type { ClickBuffers } from './clicks-model.ts'
import { DeltaTableWriter } from './delta-writer.ts'
import type { WrittenFile } from './delta-writer.ts'
import { rowsWhere, splitRange, takeRows } from './frame.ts'
import type { Frame, GeneratorInfo, VersionReport } from './types.ts'

/** Generator id in `_generator.json`; bump when the output changes so `ifMissing` regenerates. */
export const CLICKS_GENERATOR = 'snaptrain datagen clicks 5'
/** Base rate the hidden model's intercept is calibrated to. */
const TARGET_RATE = 0.08

/** Options for one clicks table. */
export interface ClicksOptions {
  dir: string
  /** Rows of version 0 (appends add 10% more). */
  rows: number
  seed: number
  log?: (s: string) => void
}

/** Generates the clicks table under `dir` (which should be empty); returns its generator info. */
export async function writeClicks(opts: ClicksOptions): Promise<GeneratorInfo> {
  const { frame, prob, ceiling } = drawClicks(opts.rows + appendRows(opts.rows), opts.seed)
  const writer = new DeltaTableWriter(opts.dir, CLICKS_COLUMNS, opts.seed, 'clicks', `rows=${opts.rows}`)
  const log = opts.log ?? (() => {})
  const perFile = opts.rows / filesFor(opts.rows)
  const v0Rows = sortedBy(frame.columns.country as string[], 0, opts.rows)
  let live = await writeFiles(writer, frame, v0Rows, filesFor(opts.rows))
  const versions: VersionReport[] = [await commitWrite(writer, live, opts.rows, opts.rows, 'Overwrite')]
  log(`clicks v0: ${opts.rows} rows in ${live.length} files`)

  const appended = Int32Array.from({ length: frame.numRows - opts.rows }, (_, i) => opts.rows + i)
  const v1Files = await writeFiles(writer, frame, appended, Math.max(1, Math.round(appended.length / perFile)))
  live = [...live, ...v1Files]
  versions.push(await commitWrite(writer, v1Files, appended.length, frame.numRows, 'Append'))
  log(`clicks v1: +${appended.length} rows in ${v1Files.length} files`)

  const target = deleteTarget(frame.columns.country as string[], v0Rows, splitRange(opts.rows, filesFor(opts.rows)))
  const del = await deleteWhere(
    writer,
    frame,
    live,
    i => (frame.columns.country as string[])[i] === target,
    `country = '${target}'`,
  )
  versions.push({ ...del.report, rows: frame.numRows - del.report.changedRows })
  log(
    `clicks v2: DELETE ${del.report.predicate}: -${del.report.changedRows} rows, ${del.report.removedFiles} files rewritten`,
  )
  return clicksInfo(opts, versions, del.live, frame, prob, ceiling)
}

/**
 * The country the v2 DELETE removes: among countries whose v0 rows (positions in `sorted`) lie
 * wholly inside one file's range, the one with a share nearest 3%, so the DELETE is visible but
 * rewrites few files. If no country fits in one file, the rarest country.
 */
export function deleteTarget(country: string[], sorted: Int32Array, files: Array<[number, number]>): string {
  const first = new Map<string, number>()
  const last = new Map<string, number>()
  sorted.forEach((row, pos) => {
    const c = country[row]
    if (!first.has(c)) first.set(c, pos)
    last.set(c, pos)
  })
  const want = 0.03 * sorted.length
  const size = (c: string) => (last.get(c) as number) - (first.get(c) as number) + 1
  const inOneFile = (c: string) => files.some(([s, e]) => (first.get(c) as number) >= s && (last.get(c) as number) < e)
  const pool = [...first.keys()].filter(inOneFile)
  if (pool.length === 0) return [...first.keys()].reduce((a, b) => (size(b) < size(a) ? b : a))
  return pool.reduce((a, b) => (Math.abs(size(b) - want) < Math.abs(size(a) - want) ? b : a))
}

/** Rows appended by version 1. */
export function appendRows(rows: number): number {
  return Math.round(rows / 10)
}

/** Data files for `rows` rows: about 50k rows each, at least 4 and at most 8. */
export function filesFor(rows: number): number {
  return Math.min(8, Math.max(4, Math.round(rows / 50_000)))
}

/** Rows per row group: four row groups per file, so every file has several. */
export function rowGroupRowsFor(fileRows: number): number {
  return Math.max(1, Math.ceil(fileRows / 4))
}

/**
 * Draws `n` rows from the hidden model: the table frame plus each row's true probability (and the
 * probabilities without the per-user terms, ceiling.ts; computing them draws no random numbers).
 */
export function drawClicks(n: number, seed: number): { frame: Frame; prob: Float64Array; ceiling: CeilingProbs } {
  const rng = new Rng(seed)
  const model = new ClicksModel(rng)
  const buf = clickBuffers(n)
  for (let i = 0; i < n; i++) model.drawRow(rng, buf, i)
  const b = interceptFor(buf.logit, TARGET_RATE)
  const prob = buf.logit.map(l => sigmoid(l + b))
  const label = Int32Array.from(prob, p => (rng.next() < p ? 1 : 0))
  return { frame: toFrame(model, buf, label), prob, ceiling: ceilingProbs(buf.logit, buf.userLogit, buf.userVar, b) }
}

function toFrame(model: ClicksModel, b: ClickBuffers, label: Int32Array): Frame {
  const n = label.length
  const columns: Frame['columns'] = {
    user_id: BigInt64Array.from(b.user, v => BigInt(v)),
    item_id: BigInt64Array.from(b.item, v => BigInt(v)),
    device: Array.from(b.device, i => model.deviceName(i)),
    country: Array.from(b.country, i => model.countryCode(i)),
    ad_format: Array.from(b.format, i => model.formatName(i)),
    hour: b.hour,
    category: b.category,
    publisher: b.publisher,
    emb: { width: EMB_DIM, data: b.emb },
    history: b.history.map(h => (h ? Array.from(h, v => BigInt(v)) : null)),
    label,
  }
  for (let k = 0; k < 8; k++) {
    // Float32Array for float columns: the log's stats then equal what Parquet stores.
    const col = k < 6 ? new Float32Array(n) : new Float64Array(n)
    for (let i = 0; i < n; i++) col[i] = b.dense[i * 8 + k]
    columns[`dense_${k}`] = col
  }
  return { numRows: n, columns }
}

/** Indices start..end-1 ordered by `keys` (ties keep index order, so the order is stable). */
function sortedBy(keys: string[], start: number, end: number): Int32Array {
  const idx = Array.from({ length: end - start }, (_, i) => start + i)
  idx.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b))
  return Int32Array.from(idx)
}

/** A written file and the frame rows it holds (so a DELETE can rewrite it from the frame). */
interface LiveFile extends WrittenFile {
  rows: Int32Array
}

async function writeFiles(
  writer: DeltaTableWriter,
  frame: Frame,
  rows: Int32Array,
  files: number,
): Promise<LiveFile[]> {
  const out: LiveFile[] = []
  for (const [s, e] of splitRange(rows.length, files)) {
    const part = takeRows(frame, rows.subarray(s, e))
    out.push({ ...(await writer.writeDataFile(part, rowGroupRowsFor(part.numRows))), rows: rows.subarray(s, e) })
  }
  return out
}

async function commitWrite(
  writer: DeltaTableWriter,
  files: LiveFile[],
  added: number,
  total: number,
  mode: string,
): Promise<VersionReport> {
  const version = await writer.commit(
    {
      operation: 'WRITE',
      operationParameters: { mode, partitionBy: '[]' },
      operationMetrics: {
        numFiles: String(files.length),
        numOutputRows: String(added),
        numOutputBytes: String(files.reduce((s, f) => s + f.add.size, 0)),
      },
    },
    files.map(f => f.add),
    [],
  )
  return { version, operation: 'WRITE', rows: total, addedFiles: files.length, removedFiles: 0, changedRows: added }
}

/** Removes every live file with a matching row and adds it back rewritten without those rows. */
async function deleteWhere(
  writer: DeltaTableWriter,
  frame: Frame,
  live: LiveFile[],
  match: (i: number) => boolean,
  predicate: string,
) {
  const kept: LiveFile[] = []
  const removed: LiveFile[] = []
  const added: LiveFile[] = []
  let deleted = 0
  for (const file of live) {
    const src = file.rows
    const keep = rowsWhere(src.length, j => !match(src[j]))
    if (keep.length === src.length) {
      kept.push(file)
      continue
    }
    removed.push(file)
    deleted += src.length - keep.length
    if (keep.length > 0)
      added.push(
        ...(await writeFiles(
          writer,
          frame,
          keep.map(j => src[j]),
          1,
        )),
      )
  }
  const removes = removed.map(f => writer.removeOf(f.add))
  const version = await writer.commit(
    {
      operation: 'DELETE',
      operationParameters: { predicate: JSON.stringify([predicate]) },
      operationMetrics: {
        numRemovedFiles: String(removed.length),
        numAddedFiles: String(added.length),
        numDeletedRows: String(deleted),
        numCopiedRows: String(added.reduce((s, f) => s + f.layout.rows, 0)),
      },
    },
    added.map(f => f.add),
    removes,
  )
  const report: VersionReport = {
    version,
    operation: 'DELETE',
    rows: 0,
    addedFiles: added.length,
    removedFiles: removed.length,
    changedRows: deleted,
    predicate,
  }
  return { report, live: [...kept, ...added] }
}

function clicksInfo(
  opts: ClicksOptions,
  versions: VersionReport[],
  live: LiveFile[],
  frame: Frame,
  prob: Float64Array,
  ceiling: CeilingProbs,
): GeneratorInfo {
  const rows = Int32Array.from(live.flatMap(f => Array.from(f.rows)))
  const label = frame.columns.label as Int32Array
  const p = Float64Array.from(rows, i => prob[i])
  const y = Int32Array.from(rows, i => label[i])
  const distinct = (name: string) => new Set(Array.from(rows, i => (frame.columns[name] as BigInt64Array)[i])).size
  return {
    table: 'clicks',
    generator: CLICKS_GENERATOR,
    seed: opts.seed,
    rows: opts.rows,
    versions,
    rowsAppended: versions[1].changedRows,
    rowsDeleted: versions[2].changedRows,
    finalRows: rows.length,
    baseRate: y.reduce((s, v) => s + v, 0) / y.length,
    bayesAuc: auc(p, y),
    learnable: learnableCeiling(
      ceiling,
      label,
      live.map(f => ({ path: f.layout.path, rows: f.rows })),
      frameRowKeys(frame, CLICKS_COLUMNS),
    ),
    labelColumn: 'label',
    distinct: { user_id: distinct('user_id'), item_id: distinct('item_id') },
    files: live.map(f => f.layout).sort((a, b) => (a.path < b.path ? -1 : 1)),
  }
}
