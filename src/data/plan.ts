/**
 * The scan planner: turns a pinned snapshot, columns and an optional row filter into the exact
 * list of units (row ranges with live-row masks) a training run reads. It reads like the
 * algorithm: validate → partition pruning → file pruning (Delta stats) → one footer per file →
 * row-group pruning (Parquet stats) → cut into units → deletion vectors → exact row filter.
 * Only footers, deletion vectors and — where stats cannot decide — the filter columns are read.
 */
import type { AsyncBuffer, FileMetaData } from '../parquet/types.ts'
import { loadDeletionVector } from '../table/deletion-vector.ts'
import { fileValidator, openFile, readFooter, schemaField } from '../table/rows.ts'
import { TableError, type AddFile, type HttpOptions, type Snapshot } from '../table/types.ts'
import type { FileValidator } from '../table/range-check.ts'
import { planDigest } from './digest.ts'
import { filterColumns, parseFilter } from './filter-parse.ts'
import { evalFilter, mayMatch, mustMatch } from './filter-eval.ts'
import { readFilterRows } from './filter-columns.ts'
import { deltaFileStats, filePartitionValues, rowGroupStats, withPartitions } from './range-stats.ts'
import { fnv1a, hashString } from '../util/hash.ts'
import { mapLimit } from '../util/map-limit.ts'
import { cutRange, DEFAULT_MAX_UNIT_ROWS, filterLive, liveAfterDeletes, makeUnit } from './units.ts'
import type {
  ColumnRangeStats,
  FilterExpr,
  PlanFile,
  PlanOptions,
  PlanSchema,
  PlanStats,
  ScanPlan,
  Unit,
} from './types.ts'

/** Files whose footers are fetched at once (hides request latency without flooding the server). */
const FILE_CONCURRENCY = 6

/** The result of planning one kept file (units are numbered later by assemble). */
interface FilePlan {
  file: Omit<PlanFile, 'index'>
  units: Unit[]
  rowGroupsTotal: number
  rowGroupsPruned: number
  rowsBeforeFilter: number
}

/** What the row-group steps of one file share. */
interface FileContext {
  snapshot: Snapshot
  file: AddFile
  buffer: AsyncBuffer
  metadata: FileMetaData
  /** Sorted deleted row indices from the deletion vector. */
  deleted: number[]
  filter?: FilterExpr
  partitionValues: Record<string, unknown>
  maxUnitRows: number
}

/**
 * Plans a scan of `snapshot`. Columns default to all top-level columns (label added when
 * missing); `opts.filter` is parsed against the schema. Throws FilterError for a bad filter and
 * TableError ('schema' naming an unknown column, 'http', 'corrupt-file') otherwise.
 * Stats: rowGroupsTotal/rowGroupsPruned count the row groups of files kept by file pruning
 * (pruned files' footers are never fetched).
 */
export async function planScan(snapshot: Snapshot, opts: PlanOptions = {}): Promise<ScanPlan> {
  const columns = selectColumns(snapshot, opts)
  const filter = opts.filter?.trim() ? parseFilter(opts.filter, snapshot.schema) : undefined
  const maxUnitRows = opts.maxUnitRows ?? DEFAULT_MAX_UNIT_ROWS
  cutRange(0, 1, maxUnitRows) // validates maxUnitRows before any request
  // Partition pruning and file pruning with Delta stats: one check over both.
  const kept = snapshot.files.filter(file => !filter || mayMatch(filter, fileStats(snapshot, file)))
  const plans = await mapLimit(kept, FILE_CONCURRENCY, file => planFile(snapshot, file, filter, maxUnitRows, opts))
  return assemble(snapshot, opts, columns, plans, snapshot.files.length - kept.length)
}

/** Delivered columns: requested (or all) plus the label; unknown names are a 'schema' error. */
function selectColumns(snapshot: Snapshot, opts: PlanOptions): string[] {
  const names = snapshot.schema.fields.map(f => f.name)
  const columns = [...(opts.columns ?? names)]
  if (opts.label !== undefined && !columns.includes(opts.label)) columns.push(opts.label)
  for (const column of columns) {
    if (!names.includes(column)) {
      throw new TableError(
        `${snapshot.tableUrl}: no column '${column}' in the table schema (columns: ${names.join(', ')})`,
        'schema',
        snapshot.tableUrl,
      )
    }
  }
  return columns
}

/** File-level ranges: typed partition values (min = max) merged with the add action's stats. */
function fileStats(snapshot: Snapshot, file: AddFile): ColumnRangeStats {
  return withPartitions(deltaFileStats(snapshot, file), filePartitionValues(snapshot, file))
}

/**
 * One footer, then the deletion vector (bounded by the footer's row count), then each row group
 * in order.
 */
async function planFile(
  snapshot: Snapshot,
  file: AddFile,
  filter: FilterExpr | undefined,
  maxUnitRows: number,
  opts: PlanOptions,
): Promise<FilePlan> {
  const buffer = await openFile(file, opts, snapshot.tableUrl)
  const metadata = await readFooter(buffer, file.url)
  const deleted = file.deletionVector
    ? await loadDeletionVector(file.deletionVector, snapshot.tableUrl, opts, file.url, Number(metadata.num_rows))
    : []
  const partitionValues = filePartitionValues(snapshot, file)
  const ctx: FileContext = { snapshot, file, buffer, metadata, deleted, filter, partitionValues, maxUnitRows }
  const plan: FilePlan = {
    file: {
      path: file.path,
      url: file.url,
      size: file.size,
      partitionValues,
      metadata,
      validator: fileValidator(buffer),
    },
    units: [],
    rowGroupsTotal: metadata.row_groups.length,
    rowGroupsPruned: 0,
    rowsBeforeFilter: 0,
  }
  let groupStart = 0
  for (const [rowGroup, group] of metadata.row_groups.entries()) {
    const groupEnd = groupStart + Number(group.num_rows)
    await planRowGroup(ctx, rowGroup, groupStart, groupEnd, plan)
    groupStart = groupEnd
  }
  return plan
}

/**
 * Row-group pruning with Parquet stats; otherwise cut into units, apply the deletion vector and —
 * unless the stats prove every row matches — the exact filter over the filter columns only.
 */
async function planRowGroup(
  ctx: FileContext,
  rowGroup: number,
  start: number,
  end: number,
  plan: FilePlan,
): Promise<void> {
  const { filter } = ctx
  const stats = filter && withPartitions(rowGroupStats(ctx.snapshot, ctx.metadata, rowGroup), ctx.partitionValues)
  if (filter && stats && !mayMatch(filter, stats)) {
    plan.rowGroupsPruned++
    return
  }
  const ranges = cutRange(start, end, ctx.maxUnitRows)
  const masks = ranges.map(range => liveAfterDeletes(ctx.deleted, range.start, range.end))
  plan.rowsBeforeFilter += ranges.reduce((n, range, i) => n + (masks[i]?.length ?? range.end - range.start), 0)
  if (filter && stats && !mustMatch(filter, stats) && masks.some(mask => mask?.length !== 0)) {
    // One read of the filter columns per row group (a column chunk is one request), shared by its units.
    const rows = await readFilterRows(ctx.snapshot, ctx.file, ctx.buffer, ctx.metadata, filterColumns(filter), rowGroup)
    ranges.forEach((range, i) => {
      masks[i] = filterLive(masks[i], range.start, range.end, offset =>
        evalFilter(filter, rows[range.start - start + offset]),
      )
    })
  }
  ranges.forEach((range, i) => plan.units.push(makeUnit(0, 0, rowGroup, range, masks[i])))
}

/**
 * A fingerprint of a file's content from its parsed Parquet footer (row groups, column chunk
 * sizes, offsets and statistics, key-value metadata): the same bytes give the same fingerprint
 * whether they were read from a folder, signed storage or a share's pre-signed URL.
 */
export function footerFingerprint(metadata: FileMetaData): string {
  const text = JSON.stringify(metadata, (_key, value: unknown) =>
    typeof value === 'bigint' ? `${value}n` : value instanceof Uint8Array ? Array.from(value) : value,
  )
  const hex = (h: number) => h.toString(16).padStart(8, '0')
  return hex(hashString(text)) + hex(fnv1a(text))
}

/**
 * Table order of the plan's files: by footer fingerprint, then size, then path (only byte-equal
 * files tie on the first two, and their rows are the same whichever comes first). Never by path
 * alone: a share's files have no Delta path, and row order decides GBDT's sums and the shuffle.
 */
function tableOrder(plans: FilePlan[]): FilePlan[] {
  return inTableOrder(plans.map(plan => ({ item: plan, ...plan.file })))
}

/** `files` sorted into table order (tableOrder) from each one's footer, path and size. */
function inTableOrder<T>(files: { item: T; metadata: FileMetaData; size: number; path: string }[]): T[] {
  const keyed = files.map(f => ({ ...f, fingerprint: footerFingerprint(f.metadata) }))
  keyed.sort((a, b) => {
    if (a.fingerprint !== b.fingerprint) return a.fingerprint < b.fingerprint ? -1 : 1
    if (a.size !== b.size) return a.size - b.size
    return a.path < b.path ? -1 : a.path > b.path ? 1 : 0
  })
  return keyed.map(k => k.item)
}

/**
 * The snapshot's live files in table order, as a plan numbers them: what a reader without a plan
 * (`snaptrain scan`'s row stream) follows, so its rows line up with `--format ids`, predict and
 * training. Reads every file's footer first; each file's validator (ETag, Last-Modified) lets the
 * later read refuse a file replaced since. Throws TableError naming the file.
 */
export async function filesInTableOrder(
  snapshot: Snapshot,
  http: HttpOptions = {},
): Promise<{ file: AddFile; validator?: FileValidator }[]> {
  const read = await mapLimit(snapshot.files, FILE_CONCURRENCY, async file => {
    const buffer = await openFile(file, http, snapshot.tableUrl)
    return { metadata: await readFooter(buffer, file.url), validator: fileValidator(buffer) }
  })
  return inTableOrder(
    snapshot.files.map((file, i) => ({
      item: { file, validator: read[i].validator },
      metadata: read[i].metadata,
      size: file.size,
      path: file.path,
    })),
  )
}

/** Numbers files and units in table order (files by tableOrder, row groups ascending) and adds stats + digest. */
function assemble(
  snapshot: Snapshot,
  opts: PlanOptions,
  columns: string[],
  plans: FilePlan[],
  filesPruned: number,
): ScanPlan {
  const files: PlanFile[] = []
  const units: Unit[] = []
  const stats: PlanStats = {
    filesTotal: snapshot.files.length,
    filesPruned,
    rowGroupsTotal: 0,
    rowGroupsPruned: 0,
    rowsBeforeFilter: 0,
    rows: 0,
  }
  const ordered = tableOrder(plans)
  for (const plan of ordered) {
    stats.rowGroupsTotal += plan.rowGroupsTotal
    stats.rowGroupsPruned += plan.rowGroupsPruned
    stats.rowsBeforeFilter += plan.rowsBeforeFilter
    // A file whose row groups were all pruned (or all rows deleted/filtered) contributes no units
    // but stays listed, so identities and digests stay stable when only the filter changes.
    const fileIndex = files.length
    files.push({ index: fileIndex, ...plan.file })
    for (const draft of plan.units) {
      if (draft.liveRows === 0) continue
      units.push({ ...draft, id: units.length, fileIndex })
      stats.rows += draft.liveRows
    }
  }
  const filter = opts.filter?.trim() ? opts.filter : undefined
  const base = {
    tableUrl: snapshot.tableUrl,
    version: snapshot.version,
    columns,
    filter,
    label: opts.label,
    files,
    units,
  }
  const share = snapshot.share && { ...snapshot.share, fileIds: pick(snapshot.share.fileIds, files) }
  return {
    ...base,
    stats,
    schema: planSchemaOf(snapshot, columns),
    digest: planDigest(base),
    ...(share ? { share } : {}),
  }
}

/** The server file ids of the plan's files. */
function pick(ids: Record<string, string>, files: PlanFile[]): Record<string, string> {
  return Object.fromEntries(files.filter(f => ids[f.path] !== undefined).map(f => [f.path, ids[f.path]!]))
}

/** Delta fields of the delivered columns for the decoders (columns are validated already). */
function planSchemaOf(snapshot: Snapshot, columns: string[]): PlanSchema {
  const fields = columns.map(name => schemaField(snapshot.schema, name)!)
  return { fields, columnMapping: snapshot.columnMapping, partitionColumns: [...snapshot.partitionColumns] }
}

/** The one "no rows" error of a run's plan: the filter selects none, or the table has none. */
export function noRowsError(filter: string | undefined, url: string, version: number): RangeError {
  return new RangeError(
    filter
      ? `filter "${filter}" selects no rows of ${url} version ${version}`
      : `${url} version ${version} has no rows`,
  )
}
