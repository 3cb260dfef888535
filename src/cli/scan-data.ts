/**
 * The data path of `snaptrain scan`: a scan plan (filter pushdown, deletion vectors), one rank's
 * epoch stream (sharding, seeded shuffle, drop_last/pad) and cursors (stop and resume). Rows come
 * out in delivery order: `--format ids` prints `path:row` per row without reading any column;
 * jsonl/csv read the rows' values (scan-rows.ts).
 */
import { rename, readFile, writeFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { planScan } from '../data/plan.ts'
import { rankStream } from '../data/stream.ts'
import { assignFromCursor, checkCursor, cursorToJson, makeCursor, parseCursor } from '../data/cursor.ts'
import { planDigest } from '../data/digest.ts'
import type { AssignOptions, Cursor, RankStreamView, ScanPlan, ShardMode } from '../data/types.ts'
import type { HttpOptions, Snapshot, StructField } from '../table/types.ts'
import type { CsvOptions } from '../util/csv.ts'
import { UsageError } from './args.ts'
import { csvRecord, rowToCsvLine, rowToJsonLine } from './format.ts'
import { writeData, type CliIo } from './io.ts'
import { createRowSource } from './scan-rows.ts'
import { NpyWriter, stdoutSink } from './scan-npy.ts'
import type { TableLocation } from './table-url.ts'

/** The scan flags the data path reads (names as on the command line). */
export interface DataFlags {
  filter?: string
  shards?: number
  shard?: number
  seed?: number
  epoch?: number
  'shuffle-buffer'?: number
  mode?: ShardMode
  resume?: string
  'stop-after'?: number
  'cursor-out'?: string
  format?: 'ids' | 'jsonl' | 'csv' | 'npy'
  version?: number
  timestamp?: string
  limit?: number
  json: boolean
  'csv-formula-guard'?: boolean
}

/** Flags that need a plan; any of them (or `--format ids`) takes the data path. */
const DATA_FLAGS = [
  'filter',
  'shards',
  'shard',
  'seed',
  'epoch',
  'shuffle-buffer',
  'mode',
  'resume',
  'stop-after',
  'cursor-out',
] as const

/** Rows per rowsAt query and stdout write. */
const CHUNK_ROWS = 4096

/** True when the scan needs the data path (a plan and a rank stream) rather than the plain file-order scan. */
export function wantsDataPath(flags: DataFlags): boolean {
  return flags.format === 'ids' || DATA_FLAGS.some(name => flags[name] !== undefined)
}

/** Where to start: the assignment and the stream position (0, or the cursor's). */
export interface StartPoint {
  assign: AssignOptions
  position: number
  cursor?: Cursor
}

/**
 * The assignment from the flags, or from `--resume` (reading the cursor file). With a cursor, a
 * flag that disagrees with it is a usage error naming each such flag.
 */
export async function startPoint(flags: DataFlags): Promise<StartPoint> {
  if (flags.shard !== undefined && flags.shards === undefined) throw new UsageError('--shard: needs --shards')
  if (flags.shards !== undefined && flags.shard === undefined)
    throw new UsageError("--shards: needs --shard (this process's rank)")
  if (flags.shards !== undefined && flags.shard! >= flags.shards)
    throw new UsageError(`--shard: expected 0 … ${flags.shards - 1} (--shards ${flags.shards}), got ${flags.shard}`)
  if (flags.resume === undefined) {
    const assign: AssignOptions = {
      seed: flags.seed,
      epoch: flags.epoch ?? 0,
      worldSize: flags.shards ?? 1,
      rank: flags.shard ?? 0,
      mode: flags.mode ?? 'drop_last',
      shuffleBuffer: flags['shuffle-buffer'],
    }
    return { assign, position: 0 }
  }
  const text = await readFile(flags.resume, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`--resume: cannot read ${flags.resume}: ${e.code ?? e.message}`)
  })
  const cursor = parseCursor(text, flags.resume)
  const conflicts = cursorConflicts(flags, cursor)
  if (conflicts.length > 0)
    throw new UsageError(
      `--resume: ${conflicts.join(', ')} disagree with the cursor ${flags.resume} (leave them out: they come from the cursor)`,
    )
  const { position, ...assign } = assignFromCursor(cursor)
  return { assign, position, cursor }
}

/** Flags given alongside `--resume` whose value differs from the cursor's, as `--flag (cursor: v)`. */
export function cursorConflicts(flags: DataFlags, cursor: Cursor): string[] {
  const pairs: [string, unknown, unknown][] = [
    ['seed', flags.seed, cursor.seed],
    ['epoch', flags.epoch, cursor.epoch],
    ['shards', flags.shards, cursor.worldSize],
    ['shard', flags.shard, cursor.rank],
    ['mode', flags.mode, cursor.mode],
    ['version', flags.version, cursor.version],
  ]
  const out = pairs
    .filter(([, given, want]) => given !== undefined && given !== want)
    .map(([name, , want]) => `--${name} (cursor: ${want ?? 'none'})`)
  // The cursor records the window actually used, which is min(flag, rank length).
  const sb = flags['shuffle-buffer']
  if (sb !== undefined && sb !== cursor.shuffleBuffer && !(sb > cursor.shuffleBuffer && cursor.seed !== undefined))
    out.push(`--shuffle-buffer (cursor: ${cursor.shuffleBuffer})`)
  if (flags.timestamp !== undefined) out.push('--timestamp (the cursor pins the version)')
  return out
}

/**
 * The plan with a table URL that survives the process: a local folder is served on a new port
 * every run, so its URL would change and no cursor could ever be resumed. The folder's file://
 * URL stands in for it (in the digest too); file URLs used for reading are untouched.
 */
export function stablePlan(plan: ScanPlan, location: Pick<TableLocation, 'url' | 'display'>): ScanPlan {
  const tableUrl = location.display === location.url ? location.url : pathToFileURL(location.display).href + '/'
  if (tableUrl === plan.tableUrl) return plan
  return { ...plan, tableUrl, digest: planDigest({ ...plan, tableUrl }) }
}

/** What the data path reports in the `--json` summary. */
export interface DataSummary {
  rows: number
  rows_dropped: number
  rows_padded: number
  files_pruned: number
  row_groups_pruned: number
  files_total: number
  row_groups_total: number
  position: number
  stream_rows: number
  shuffle_buffer: number
}

/**
 * Runs the data path over an open snapshot: plans, builds the rank stream, writes the rows of
 * positions [start, end) in `format`, writes `--cursor-out`, and returns the summary fields.
 * A cursor for another table/version/plan throws CursorError with the reason.
 */
export async function dataScan(
  location: TableLocation,
  snapshot: Snapshot,
  columns: string[],
  flags: DataFlags,
  start: StartPoint,
  http: HttpOptions,
  io: CliIo,
  stdout: { readonly closed: boolean },
): Promise<DataSummary> {
  const plan = stablePlan(await planScan(snapshot, { ...http, columns, filter: flags.filter }), location)
  if (start.cursor) checkCursor(start.cursor, plan)
  const stream = rankStream(plan, start.assign)
  const budget = Math.min(flags['stop-after'] ?? Infinity, flags.limit ?? Infinity)
  const end = Math.min(stream.length, start.position + budget)
  const format = flags.format ?? (flags.json ? 'none' : 'jsonl')
  const out = { io, stdout, csv: { formulaGuard: flags['csv-formula-guard'] } }
  const delivered = await writeStream(plan, stream, start.position, end, format, snapshot, columns, http, out)
  if (flags['cursor-out'] !== undefined)
    await writeCursor(flags['cursor-out'], makeCursor(plan, stream.options, start.position + delivered))
  return {
    rows: delivered,
    rows_dropped: stream.rowsDropped,
    rows_padded: stream.rowsPadded,
    files_pruned: plan.stats.filesPruned,
    row_groups_pruned: plan.stats.rowGroupsPruned,
    files_total: plan.stats.filesTotal,
    row_groups_total: plan.stats.rowGroupsTotal,
    position: start.position + delivered,
    stream_rows: stream.length,
    shuffle_buffer: stream.shuffleBuffer,
  }
}

/** Writes positions [from, to) of the stream; returns the rows written (fewer if stdout closed). */
async function writeStream(
  plan: ScanPlan,
  stream: RankStreamView,
  from: number,
  to: number,
  format: 'ids' | 'jsonl' | 'csv' | 'npy' | 'none',
  snapshot: Snapshot,
  columns: string[],
  http: HttpOptions,
  { io, stdout, csv }: { io: CliIo; stdout: { readonly closed: boolean }; csv: CsvOptions },
): Promise<number> {
  if (format === 'none') return to - from // --json alone: nothing to print, the count is known
  const source = format === 'ids' ? undefined : createRowSource(snapshot, plan, columns, http)
  const npy = format === 'npy' ? new NpyWriter(fieldsOf(snapshot, columns), stdoutSink(stdout)) : undefined
  if (format === 'csv') writeData(io, csvRecord(columns, csv))
  let p = from
  while (p < to && !stdout.closed) {
    const q = Math.min(to, p + CHUNK_ROWS)
    const { unit, index } = stream.rowsAt(p, q)
    if (format === 'ids') writeData(io, idLines(plan, unit, index))
    else if (npy) npy.push(await source!.rowsFor(unit, index))
    else if (source) {
      const rows = await source.rowsFor(unit, index)
      writeData(
        io,
        rows.map(r => (format === 'csv' ? rowToCsvLine(r, columns, csv) : rowToJsonLine(r, columns))).join('\n'),
      )
    }
    p = q
  }
  npy?.end()
  return p - from
}

/** The schema fields of `columns` (names already checked by the caller), in that order. */
function fieldsOf(snapshot: Snapshot, columns: string[]): StructField[] {
  return columns.map(name => snapshot.schema.fields.find(f => f.name === name)!)
}

/** `path:row` lines for rows (unit, live index), joined with newlines. */
function idLines(plan: ScanPlan, unit: Uint32Array, index: Uint32Array): string {
  const lines = new Array<string>(unit.length)
  for (let i = 0; i < unit.length; i++) {
    const u = plan.units[unit[i]!]!
    lines[i] = `${plan.files[u.fileIndex]!.path}:${u.live ? u.live[index[i]!]! : u.rowStart + index[i]!}`
  }
  return lines.join('\n')
}

/** Writes the cursor to `path` via a temporary file and a rename, so a crash never leaves half a cursor. */
async function writeCursor(path: string, cursor: Cursor): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`
  await writeFile(tmp, cursorToJson(cursor))
  await rename(tmp, path)
}
