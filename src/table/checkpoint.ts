/**
 * Reading checkpoints (PROTOCOL.md "Checkpoints", "V2 Spec", "Sidecar Files"): classic single
 * parquet files, multi-part parquet, and v2 UUID-named checkpoints in JSON or parquet whose file
 * actions may live in sidecar parquet files under `_delta_log/_sidecars/`.
 */
import { openParquetFile, readMetadata, readObjects, topLevelNames } from '../parquet/file.ts'
import { toAction, type Action, type AddAction } from './actions.ts'
import { fetchBytes, retryingFetch } from './http.ts'
import type { CheckpointFile, CheckpointPart } from './listing.ts'
import { parseCommit } from './actions.ts'
import { TableError, type HttpOptions } from './types.ts'

/**
 * Columns a reader needs. `remove` (tombstones), `txn` and `domainMetadata` are not read: a
 * checkpoint is already reconciled, so tombstones never cancel one of its adds, and skipping those
 * columns saves their byte ranges.
 */
const READ_COLUMNS = ['protocol', 'metaData', 'add', 'sidecar', 'checkpointMetadata']

/**
 * All actions of a checkpoint a reader needs (protocol, metaData, add, sidecar's file actions).
 *
 * @param checkpoint the checkpoint's files
 * @param tableUrl table root ending in '/', for resolving sidecars and for request headers
 */
export async function readCheckpoint(
  checkpoint: CheckpointFile,
  tableUrl: string,
  opts: HttpOptions,
): Promise<Action[]> {
  const parts = await Promise.all(checkpoint.parts.map(part => readPart(part, tableUrl, opts)))
  const actions = parts.flat()
  const sidecars = actions.flatMap(a => (a.kind === 'sidecar' ? [a.sidecar] : []))
  const sidecarActions = await Promise.all(
    sidecars.map(s => readParquetActions({ url: sidecarUrl(tableUrl, s.path), size: s.sizeInBytes }, tableUrl, opts)),
  )
  return [...actions.filter(a => a.kind !== 'sidecar'), ...sidecarActions.flat()]
}

/** Sidecar paths are relative to `_delta_log/_sidecars/` unless absolute. */
export function sidecarUrl(tableUrl: string, path: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path)) return path
  return new URL(path, `${tableUrl}_delta_log/_sidecars/`).href
}

async function readPart(part: CheckpointPart, tableUrl: string, opts: HttpOptions): Promise<Action[]> {
  if (new URL(part.url).pathname.endsWith('.json')) {
    return parseCommit(await fetchBytes(part.url, opts, undefined, tableUrl), part.url)
  }
  return readParquetActions(part, tableUrl, opts)
}

/** Read one checkpoint (or sidecar) parquet file into actions, in row order. */
export async function readParquetActions(part: CheckpointPart, tableUrl: string, opts: HttpOptions): Promise<Action[]> {
  const fetch = retryingFetch(opts, tableUrl) as typeof globalThis.fetch
  const rows = await readRows(part, fetch)
  const actions: Action[] = []
  rows.forEach((row, i) => {
    for (const name of READ_COLUMNS) {
      const body = row[name] as Record<string, unknown> | null | undefined
      if (!present(name, body)) continue
      const fail = (msg: string) => new TableError(`${part.url} row ${i}: ${msg}`, 'malformed-log', part.url)
      const action = toAction(name, body, fail)
      if (action.kind === 'add') withParsedStats(action.add, body!)
      actions.push(action)
    }
  })
  return actions
}

async function readRows(part: CheckpointPart, fetch: typeof globalThis.fetch): Promise<Record<string, unknown>[]> {
  try {
    return await readRowsSized(part, fetch)
  } catch (error) {
    // Why: the size may come from a stale `_last_checkpoint`; a wrong size misplaces the footer.
    if (part.size === undefined || (error instanceof TableError && error.code === 'http')) throw error
    return readRowsSized({ ...part, size: undefined }, fetch)
  }
}

async function readRowsSized(part: CheckpointPart, fetch: typeof globalThis.fetch): Promise<Record<string, unknown>[]> {
  try {
    // Why cached: a small checkpoint is then fetched once, footer and column chunks together.
    const file = await openParquetFile(part.url, part.size, fetch)
    const metadata = await readMetadata(file)
    const names = new Set(topLevelNames(metadata))
    const columns = READ_COLUMNS.filter(c => names.has(c))
    return await readObjects(file, metadata, columns)
  } catch (error) {
    if (error instanceof TableError) throw error
    throw new TableError(
      `${part.url}: cannot read checkpoint parquet (${(error as Error).message})`,
      'malformed-log',
      part.url,
    )
  }
}

/**
 * Whether a row holds this action. hyparquet may assemble a null struct as an object of nulls,
 * so require the action's key field.
 */
function present(name: string, body: Record<string, unknown> | null | undefined): boolean {
  if (!body || typeof body !== 'object') return false
  const key = {
    protocol: 'minReaderVersion',
    metaData: 'id',
    add: 'path',
    sidecar: 'path',
    checkpointMetadata: 'version',
  }[name]
  return key === undefined || body[key] != null
}

/** Checkpoints written with writeStatsAsStruct carry `stats_parsed` instead of (or beside) `stats`. */
function withParsedStats(add: AddAction, body: Record<string, unknown>): void {
  const parsed = body.stats_parsed
  if (add.stats || !parsed || typeof parsed !== 'object') return
  add.statsParsed = jsonLike(parsed) as Record<string, unknown>
}

/**
 * Turn hyparquet values into what the same statistics look like in JSON `stats`: bigint → number,
 * Date → ISO string (a date with no time part → 'YYYY-MM-DD'), nulls dropped.
 */
export function jsonLike(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Date) {
    const iso = value.toISOString()
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso
  }
  if (Array.isArray(value)) return value.map(jsonLike)
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v != null) out[k] = jsonLike(v)
    return out
  }
  return value
}
