/**
 * `snaptrain scan`: open a Delta table snapshot over HTTP and print its rows (JSONL, CSV, or a
 * binary stream of NumPy .npy records, scan-npy.ts), or with `--json` a one-line summary {table, version, files, rows, columns, rows_dropped, …}. Rows
 * are written in chunks as they are read, never all held as text at once. The data-path flags
 * (filter, shards, seed, epoch, cursors, `--format ids`) go through a scan plan and one shard's
 * epoch stream (scan-data.ts); without them the plain file-order scan below runs. Any failure →
 * exit 1 and one stderr line naming the file/URL and the problem (a cursor that does not fit:
 * the reason); usage errors → exit 2.
 */
import { writeData, type CliIo } from './io.ts'
import { parseCommand, UsageError } from './args.ts'
import type { CommandSpec, FlagSpec, FlagValues } from './args.ts'
import { openTableLocation } from './table-url.ts'
import { TableArgError, tableResolver } from '../sources/index.ts'
import type { TableLocation } from './table-url.ts'
import { rowToCsvLine, rowToJsonLine, csvRecord } from './format.ts'
import { openSnapshot, scanFile } from '../table/index.ts'
import { FilterError } from '../data/filter-parse.ts'
import { filesInTableOrder } from '../data/plan.ts'
import { dataScan, startPoint, wantsDataPath, type StartPoint } from './scan-data.ts'
import { NpyWriter, stdoutSink } from './scan-npy.ts'
import { ALLOW_ORIGIN_FLAG, allowOrigins, INSECURE_HTTP_FLAG, insecureHttp } from './data-flags.ts'
import type { HttpOptions, OpenOptions, ReadOptions, Row, Snapshot, StructField } from '../table/index.ts'
import type { CsvOptions } from '../util/csv.ts'

const SPEC = {
  name: 'scan',
  summary: 'Read a Delta table snapshot and print its rows (JSONL by default, or CSV), or a --json summary.',
  flags: {
    table: {
      type: 'string',
      required: true,
      placeholder: 'dir|url',
      help: 'table root: a local folder (served on 127.0.0.1) or an http(s) URL',
    },
    version: { type: 'int', min: 0, placeholder: 'N', help: 'table version to read (default: latest)' },
    timestamp: { type: 'string', placeholder: 'ISO', help: 'read the latest version committed at or before this time' },
    columns: {
      type: 'list',
      placeholder: 'a,b',
      help: 'columns to read, in this order (default: all top-level columns)',
    },
    limit: { type: 'int', min: 0, placeholder: 'n', help: 'stop after n rows' },
    format: {
      type: 'string',
      choices: ['jsonl', 'csv', 'ids', 'npy'],
      placeholder: 'jsonl|csv|ids|npy',
      help: 'row output: jsonl (default), csv, ids (one path:row identity per line, in delivery order), or npy (binary columns for numpy, see below)',
    },
    json: {
      type: 'boolean',
      help: 'print one summary object as the last stdout line; rows are printed too only when --format is given',
    },
    filter: {
      type: 'string',
      placeholder: 'EXPR',
      help: 'row filter, e.g. "country = \'AA\' AND hour < 6" (pushed down to files and row groups)',
    },
    shards: {
      type: 'int',
      min: 1,
      placeholder: 'K',
      help: 'split every epoch into K equal shards (world size); needs --shard',
    },
    shard: { type: 'int', min: 0, placeholder: 'r', help: 'which shard (rank) this scan delivers, 0 … K-1' },
    seed: { type: 'int', placeholder: 'S', help: 'shuffle with this seed (without it: table order)' },
    epoch: { type: 'int', min: 0, placeholder: 'E', help: 'epoch number; each epoch reshuffles (default 0)' },
    'shuffle-buffer': {
      type: 'int',
      min: 0,
      placeholder: 'N',
      help: 'rows per shuffle window (default 16384; 0 = unit order only)',
    },
    mode: {
      type: 'string',
      choices: ['drop_last', 'pad', 'all'],
      placeholder: 'drop_last|pad|all',
      help: 'equal shard sizes by dropping the tail (default) or repeating rows, or all: every row in exactly one shard (sizes differ by at most one)',
    },
    resume: {
      type: 'string',
      placeholder: 'cursor.json',
      help: 'resume from a cursor; seed, epoch, shards, mode, buffer and version come from it',
    },
    'stop-after': {
      type: 'int',
      min: 0,
      placeholder: 'n',
      help: 'deliver n rows, then stop (write --cursor-out to resume)',
    },
    'cursor-out': {
      type: 'string',
      placeholder: 'cursor.json',
      help: 'write the cursor after the last row delivered (temp file + rename)',
    },
    'timeout-ms': {
      type: 'int',
      min: 1,
      placeholder: 'ms',
      help: 'per-request HTTP timeout (default: $SNAPTRAIN_HTTP_TIMEOUT_MS, else 10000)',
    },
    token: {
      type: 'string',
      placeholder: 'T',
      help: "bearer token sent (Authorization header) to the table's origin only (prefer $SNAPTRAIN_TOKEN: argv is visible to other users)",
    },
    ...ALLOW_ORIGIN_FLAG,
    ...INSECURE_HTTP_FLAG,
    'csv-formula-guard': {
      type: 'boolean',
      help: "with --format csv: write text cells starting with = + - @ tab or CR (numbers excepted) with a leading ' so spreadsheets do not run them (changes the data; default off)",
    },
  },
  notes: `environment:
  SNAPTRAIN_HTTP_TIMEOUT_MS   per-request HTTP timeout in ms when --timeout-ms is not given
  SNAPTRAIN_TOKEN             bearer token for the table's origin when --token is not given (never printed)
  SNAPTRAIN_DEBUG             print stack traces of errors
  SNAPTRAIN_ALLOWED_HOSTS     host names the local table server answers besides localhost, 127.0.0.1, [::1]

JSON values: int64 beyond ±2^53 as strings, timestamps ISO-8601 (UTC; 6 or 9 fraction digits when
the value has µs or ns, else 3), dates YYYY-MM-DD, decimals as strings, binary as base64, maps as
objects (or [key, value] pairs), NaN/Infinity as strings.

Data path: --filter, --shards/--shard, --seed, --epoch, --shuffle-buffer, --mode, --resume,
--stop-after, --cursor-out or --format ids plan the scan (pruning, deletion vectors) and deliver
one shard's epoch stream in delivery order. --mode drop_last is the default; with one shard it
drops nothing, so an unsharded scan delivers every live row. --resume needs the same --table,
--columns and --filter (the cursor's plan digest checks them); a cursor for another table,
version or plan exits 1 with the reason. --json then adds rows (delivered by this run),
rows_dropped, rows_padded, files_pruned, row_groups_pruned, position and stream_rows.
--shards K --shard r --mode all (no --seed) cuts the table order into K contiguous shards that
hold every row exactly once: shard 0's rows, then shard 1's, … are the unsharded scan's rows.

--format npy: a stream of NumPy .npy (1.0) records that numpy reads without pyarrow (a continue
bundle's snaptrain_continue.py reads a worker's shard this way). Per batch of up to 65 536 rows:
a uint8 record of UTF-8 JSON {"format":"snaptrain-npy","version":1,"rows":n,"columns":[{name,
type,encoding}]}, then per column: float64 + uint8 validity (float, double, decimal; null NaN);
int64 + validity (integers, boolean 0/1, date as days, timestamp as µs since the epoch); bytes: int64
offsets (n+1) + uint8 bytes + validity (string UTF-8, binary); list: int64 offsets + validity +
the items as one more column. An empty scan writes one 0-row batch. Structs and maps are refused.
Arrow IPC is not offered (it would need pyarrow on the reading side, which npy avoids).

examples:
  snaptrain scan --table public/tables/clicks --limit 5
  snaptrain scan --table public/tables/clicks --shards 4 --shard 1 --seed 7 --format ids --json
  snaptrain scan --table public/tables/clicks --seed 7 --stop-after 1000 --cursor-out c.json --format ids
  snaptrain scan --table public/tables/clicks --resume c.json --format ids
  snaptrain scan --table public/tables/marketing --version 0 --shards 3 --shard 1 --mode all --format npy
  snaptrain scan --table http://localhost:5173/tables/clicks/ --version 0 --json`,
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Rows per stdout write: large enough to amortise the write, small enough to stream. */
const CHUNK_ROWS = 1000

/** Parsed scan flags. */
type ScanFlags = FlagValues<typeof SPEC.flags>

/** Runs `snaptrain scan`; resolves to the exit code (0 ok, 1 read error, 2 usage error). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const flags = parsed.values
  if (flags.version !== undefined && flags.timestamp !== undefined)
    return usage(io, '--version and --timestamp: give at most one')
  if (flags.format === 'npy' && flags.json)
    return usage(io, '--format npy writes binary records to stdout; --json cannot follow them')
  let location: TableLocation | undefined
  try {
    // Flag checks first: a usage error should not wait for a server or the network.
    const open: OpenOptions = {
      ...httpOptions(flags),
      version: flags.version,
      timestamp: timestampFlag(flags.timestamp),
    }
    const start = wantsDataPath(flags) ? await startPoint(flags) : undefined
    if (start?.cursor) open.version = start.cursor.version
    const governed = {
      timeoutMs: open.timeoutMs,
      allowOrigins: open.allowOrigins,
      allowInsecureHttp: open.allowInsecureHttp,
    }
    location = await openTableLocation(flags.table, process.cwd(), { http: governed })
    if (location.access) open.resolver = tableResolver(location.url, location.access, { http: governed })
    return await scan(location, flags, open, io, start)
  } catch (e) {
    if (e instanceof UsageError || e instanceof TableArgError || e instanceof FilterError) return usage(io, e.message)
    io.err(`snaptrain scan: ${oneLine(describeError(e, location))}`)
    if (process.env.SNAPTRAIN_DEBUG && e instanceof Error && e.stack) io.err(e.stack)
    return 1
  } finally {
    await location?.close()
  }
}

function usage(io: CliIo, message: string): number {
  io.err(`snaptrain scan: ${message} (see 'snaptrain scan --help')`)
  return 2
}

async function scan(
  location: TableLocation,
  flags: ScanFlags,
  open: OpenOptions,
  io: CliIo,
  start: StartPoint | undefined,
): Promise<number> {
  const snapshot = await openSnapshot(location.url, {
    ...open,
    ...(flags.filter ? { filterHint: flags.filter } : {}),
    onWarning: m => io.err(`snaptrain scan: warning: ${m}`),
  })
  const fields = selectFields(snapshot, flags.columns, location.display)
  const names = fields.map(f => f.name)
  const stdout = watchStdout()
  if (start) {
    const extra = await dataScan(location, snapshot, names, flags, start, readHttp(open), io, stdout)
    if (flags.json && !stdout.closed)
      io.out(JSON.stringify({ ...summary(location, snapshot, fields, extra.rows), ...extra }))
    return 0
  }
  const printRows = !flags.json || flags.format !== undefined
  const rows = streamRows(snapshot, { ...readHttp(open), columns: names, limit: flags.limit })
  const count =
    flags.format === 'npy'
      ? await writeNpy(rows, fields, stdout)
      : await writeRows(rows, names, printRows ? (flags.format === 'csv' ? 'csv' : 'jsonl') : 'none', io, stdout, {
          formulaGuard: flags['csv-formula-guard'],
        })
  // Nothing is pruned or dropped on the plain path; the fields are there so --json has one shape.
  const plain = { rows_dropped: 0, rows_padded: 0, files_pruned: 0, row_groups_pruned: 0 }
  if (flags.json && !stdout.closed) io.out(JSON.stringify({ ...summary(location, snapshot, fields, count), ...plain }))
  return 0
}

/** Set once stdout's reader has gone away; the process never gets it back. */
const stdoutState = { closed: false, watching: false }

/**
 * Notices when the reader of stdout goes away (`scan … | head`): Node reports EPIPE as an
 * 'error' event, emitted after the failed write returns, that would crash the process with a
 * stack trace; we stop reading instead. One listener for the process, kept (a removed one could
 * miss the late event).
 */
function watchStdout(): { readonly closed: boolean } {
  if (!stdoutState.watching) {
    stdoutState.watching = true
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e
      stdoutState.closed = true
    })
  }
  return stdoutState
}

/**
 * HTTP options: the timeout (see timeoutOption), from `--token` or `SNAPTRAIN_TOKEN` an
 * `Authorization: Bearer` header that the reader sends to the table's origin only (http.ts), and
 * the `--allow-origin` list of other origins the table's requests may go to, and
 * `--allow-insecure-http`.
 */
export function httpOptions(
  flags: { 'timeout-ms'?: number; token?: string; 'allow-origin'?: string[]; 'allow-insecure-http'?: boolean },
  env = process.env,
): HttpOptions {
  const token = flags.token ?? (env.SNAPTRAIN_TOKEN || undefined)
  const origins = allowOrigins(flags)
  return {
    ...timeoutOption(flags, env),
    ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    ...(origins ? { allowOrigins: origins } : {}),
    ...insecureHttp(flags),
  }
}

/** The HTTP options of the row reads (the open options minus version, timestamp, warnings). */
function readHttp(open: OpenOptions): HttpOptions {
  const { timeoutMs, headers, allowOrigins, allowInsecureHttp, resolver } = open
  return { timeoutMs, headers, allowOrigins, allowInsecureHttp, resolver }
}

/** `--timeout-ms`, else `SNAPTRAIN_HTTP_TIMEOUT_MS`, else the reader's default. */
function timeoutOption(flags: { 'timeout-ms'?: number }, env: NodeJS.ProcessEnv): HttpOptions {
  if (flags['timeout-ms'] !== undefined) return { timeoutMs: flags['timeout-ms'] }
  const fromEnv = env.SNAPTRAIN_HTTP_TIMEOUT_MS
  if (fromEnv === undefined || fromEnv === '') return {}
  const ms = Number(fromEnv)
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new UsageError(`SNAPTRAIN_HTTP_TIMEOUT_MS: expected a positive integer, got '${fromEnv}'`)
  return { timeoutMs: ms }
}

/** `--timestamp`: ISO-8601 text, or digits read as ms since epoch; anything else is a usage error. */
export function timestampFlag(text: string | undefined): string | number | undefined {
  if (text === undefined) return undefined
  if (/^\d+$/.test(text)) return Number(text)
  if (Number.isNaN(Date.parse(text)))
    throw new UsageError(`--timestamp: expected an ISO-8601 time or ms since epoch, got '${text}'`)
  return text
}

/** The schema fields to read, in `--columns` order; an unknown name is a usage error naming it. */
export function selectFields(
  snapshot: Pick<Snapshot, 'schema'>,
  columns: readonly string[],
  table: string,
): StructField[] {
  const all = snapshot.schema.fields
  if (columns.length === 0) return all
  return columns.map(name => {
    const field = all.find(f => f.name === name)
    if (!field)
      throw new UsageError(
        `--columns: no column '${name}' in table ${table} (columns: ${all.map(f => f.name).join(', ')})`,
      )
    return field
  })
}

/**
 * The snapshot's live rows as they are decoded, one row group at a time, in table order (the
 * files as a plan orders them, plan.ts filesInTableOrder), so they line up with `--format ids`
 * and `predict`. Streaming keeps a 200k-row table from being held in memory twice (rows, then text).
 */
export async function* streamRows(snapshot: Snapshot, opts: ReadOptions): AsyncGenerator<Row> {
  let remaining = opts.limit ?? Infinity
  for (const { file, validator } of await filesInTableOrder(snapshot, opts)) {
    if (remaining <= 0) return
    for await (const batch of scanFile(snapshot, file, { ...opts, limit: remaining }, undefined, validator)) {
      remaining -= batch.length
      yield* batch
    }
  }
}

/** Writes rows as npy batches (scan-npy.ts) as they arrive; returns the number of rows. */
async function writeNpy(rows: AsyncIterable<Row>, fields: StructField[], stdout: { closed: boolean }): Promise<number> {
  const writer = new NpyWriter(fields, stdoutSink(stdout))
  let count = 0
  let batch: Row[] = []
  for await (const row of rows) {
    if (stdout.closed) break
    count++
    batch.push(row)
    if (batch.length >= CHUNK_ROWS) {
      writer.push(batch)
      batch = []
    }
  }
  writer.push(batch)
  writer.end()
  return count
}

/** Writes rows as they arrive in chunks of CHUNK_ROWS lines; returns the number of rows. */
async function writeRows(
  rows: AsyncIterable<Row>,
  names: string[],
  format: 'jsonl' | 'csv' | 'none',
  io: CliIo,
  stdout: { closed: boolean },
  csv: CsvOptions,
): Promise<number> {
  if (format === 'csv') writeData(io, csvRecord(names, csv))
  let chunk: string[] = []
  let count = 0
  for await (const row of rows) {
    if (stdout.closed) break
    count++
    if (format === 'none') continue
    chunk.push(format === 'csv' ? rowToCsvLine(row, names, csv) : rowToJsonLine(row, names))
    if (chunk.length >= CHUNK_ROWS) {
      writeData(io, chunk.join('\n'))
      chunk = []
    }
  }
  if (chunk.length > 0) writeData(io, chunk.join('\n'))
  return count
}

/** The `--json` summary; `rows` counts the live rows read (after deletion vectors, and --limit). */
function summary(location: TableLocation, snapshot: Snapshot, fields: StructField[], rows: number): object {
  return {
    table: location.display,
    version: snapshot.version,
    files: snapshot.files.length,
    rows,
    columns: fields.map(f => ({ name: f.name, type: f.type, nullable: f.nullable })),
  }
}

/** One line naming the problem; the table is named when the reader's message does not name a file/URL. */
function describeError(e: unknown, location: TableLocation | undefined): string {
  const raw = e instanceof Error ? e.message : String(e)
  if (!location) return raw
  const msg = location.localize(raw)
  const namesPlace = /https?:\/\/|\//.test(msg)
  return namesPlace ? msg : `${location.display}: ${msg}`
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim()
}
