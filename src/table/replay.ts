/**
 * Log replay (PROTOCOL.md "Action Reconciliation"): the newest protocol and metaData win; a file
 * is keyed by (path, deletion vector unique id); an add puts the key in the live set, a remove takes
 * it out, and the newest action for a key wins. Then each live add becomes an AddFile with an
 * absolute URL, logical partition keys and parsed statistics.
 */
import type { Action, AddAction } from './actions.ts'
import { physicalName } from './column-mapping.ts'
import { toLogicalKeys } from './schema.ts'
import type { AddFile, DeletionVectorDescriptor, FileStats, Metadata, Protocol, StructType } from './types.ts'

/** State accumulated while replaying actions oldest to newest. */
export interface ReplayState {
  protocol?: Protocol
  metadata?: Metadata
  /** Why the metaData in force is incomplete (file, line and field), when it is. */
  metadataIncomplete?: string
  /** Live adds by fileKey. */
  files: Map<string, AddAction>
}

/** An empty state. */
export function newReplayState(): ReplayState {
  return { files: new Map() }
}

/**
 * Apply actions in log order (a checkpoint's actions first, then each commit's in file order).
 * Within one valid commit a key appears at most once per action type, so file order is enough.
 */
export function applyActions(state: ReplayState, actions: Iterable<Action>): void {
  for (const action of actions) {
    switch (action.kind) {
      case 'protocol':
        state.protocol = action.protocol
        break
      case 'metaData':
        state.metadata = action.metaData
        state.metadataIncomplete = action.incomplete
        break
      case 'add':
        state.files.set(fileKey(action.add.path, action.add.deletionVector), action.add)
        break
      case 'remove':
        state.files.delete(fileKey(action.remove.path, action.remove.deletionVector))
        break
      default:
        break
    }
  }
}

/**
 * Primary key of a logical file: the decoded path plus the DV unique id (storageType +
 * pathOrInlineDv, then '@' + offset when there is one; PROTOCOL.md "Deletion Vectors").
 * Why decode: writers may escape the same path differently in an add and its later remove.
 */
export function fileKey(path: string, dv?: DeletionVectorDescriptor): string {
  return `${safeDecode(path)}\u0000${dv ? dvUniqueId(dv) : ''}`
}

/** `deletionVector.uniqueId` as PROTOCOL.md defines it. */
export function dvUniqueId(dv: DeletionVectorDescriptor): string {
  return `${dv.storageType}${dv.pathOrInlineDv}${dv.offset != null ? `@${dv.offset}` : ''}`
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * Absolute URL of a path from the log: absolute URIs as they are; relative references (already
 * URI-encoded in the log) resolved against the table root as RFC 3986 says. `new URL` percent-encodes what is not allowed
 * in a URL (spaces, emoji) and keeps existing %-escapes, so `a%253A` stays `a%253A`.
 */
export function resolveFileUrl(tableUrl: string, path: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path)) return path
  return new URL(path, tableUrl).href
}

/**
 * The live files of the replayed state, sorted by path.
 *
 * @param schema logical schema (to map physical partition/stat keys back to logical names)
 */
export function liveFiles(
  state: ReplayState,
  tableUrl: string,
  schema: StructType,
  mode: 'none' | 'name' | 'id',
  partitionColumns: string[],
): AddFile[] {
  const files = [...state.files.values()].map(add => toAddFile(add, tableUrl, schema, mode, partitionColumns))
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** One live add as the reader's AddFile. */
export function toAddFile(
  add: AddAction,
  tableUrl: string,
  schema: StructType,
  mode: 'none' | 'name' | 'id',
  partitionColumns: string[],
): AddFile {
  const file: AddFile = {
    path: add.path,
    url: resolveFileUrl(tableUrl, add.path),
    size: add.size,
    partitionValues: logicalPartitionValues(add.partitionValues, schema, mode, partitionColumns),
    modificationTime: add.modificationTime,
  }
  const stats = add.statsParsed ? toStats(add.statsParsed, schema, mode) : parseStats(add.stats, schema, mode)
  if (stats) file.stats = stats
  if (add.deletionVector) file.deletionVector = add.deletionVector
  if (add.baseRowId !== undefined) file.baseRowId = add.baseRowId
  return file
}

/**
 * Partition values keyed by logical name. With column mapping the log keys them by physical name.
 * Every partition column gets an entry (a missing one is null).
 */
function logicalPartitionValues(
  values: Record<string, string | null>,
  schema: StructType,
  mode: 'none' | 'name' | 'id',
  partitionColumns: string[],
): Record<string, string | null> {
  const out: Record<string, string | null> = {}
  for (const column of partitionColumns) {
    const field = schema.fields.find(f => f.name === column)
    const key = field ? physicalName(field, mode) : column
    out[column] = values[key] ?? values[column] ?? null
  }
  return out
}

/** Parse `add.stats`; statistics are optional, so unreadable ones are dropped, not fatal. */
function parseStats(json: string | undefined, schema: StructType, mode: 'none' | 'name' | 'id'): FileStats | undefined {
  if (!json) return undefined
  try {
    return toStats(JSON.parse(json) as Record<string, unknown>, schema, mode)
  } catch {
    return undefined
  }
}

function toStats(raw: Record<string, unknown>, schema: StructType, mode: 'none' | 'name' | 'id'): FileStats {
  const stats: FileStats = {}
  if (raw.numRecords != null) stats.numRecords = Number(raw.numRecords)
  for (const key of ['minValues', 'maxValues', 'nullCount'] as const) {
    const value = raw[key]
    if (value && typeof value === 'object') stats[key] = toLogicalKeys(value as Record<string, unknown>, schema, mode)
  }
  if (typeof raw.tightBounds === 'boolean') stats.tightBounds = raw.tightBounds
  return stats
}
