/**
 * Delta log actions (PROTOCOL.md "Actions") as typed objects, and the parser of a commit file
 * (newline-delimited JSON, one action per line).
 */
import { TableError, type DeletionVectorDescriptor, type Metadata, type Protocol } from './types.ts'

/** An `add` action as written in the log (stats still a JSON string, or parsed from a checkpoint). */
export interface AddAction {
  path: string
  partitionValues: Record<string, string | null>
  size: number
  modificationTime: number
  dataChange?: boolean
  /** JSON string of per-file statistics (keys are physical column names). */
  stats?: string
  /** Statistics already decoded (checkpoint `stats_parsed`), physical names, JSON-like values. */
  statsParsed?: Record<string, unknown>
  tags?: Record<string, string | null>
  deletionVector?: DeletionVectorDescriptor
  baseRowId?: number
  defaultRowCommitVersion?: number
}

/** A `remove` action; only `path` and `deletionVector` matter to a reader. */
export interface RemoveAction {
  path: string
  deletionTimestamp?: number
  dataChange?: boolean
  deletionVector?: DeletionVectorDescriptor
}

/** Provenance of a commit; `inCommitTimestamp` (ms) is authoritative when present. */
export interface CommitInfoAction {
  timestamp?: number
  inCommitTimestamp?: number
  operation?: string
  operationParameters?: Record<string, unknown>
  operationMetrics?: Record<string, string>
  [key: string]: unknown
}

/** Application transaction id. */
export interface TxnAction {
  appId: string
  version: number
  lastUpdated?: number
}
/** Named metadata domain; `removed` marks a tombstone. */
export interface DomainMetadataAction {
  domain: string
  configuration: string
  removed: boolean
}
/** First action of a v2 checkpoint. */
export interface CheckpointMetadataAction {
  version: number
  tags?: Record<string, string>
}
/** Pointer from a v2 checkpoint to a sidecar file under `_delta_log/_sidecars/`. */
export interface SidecarAction {
  path: string
  sizeInBytes: number
  modificationTime: number
  tags?: Record<string, string>
}

/**
 * One parsed line of the log; unknown action kinds are kept as 'other' (the protocol says ignore).
 * A `metaData` missing a required field carries `incomplete` (where and what) instead of failing at
 * once: only the metaData in force at the read version has to be complete, and streaming writers
 * are known to write a first one without a schema that a later commit supersedes.
 */
export type Action =
  | { kind: 'protocol'; protocol: Protocol }
  | { kind: 'metaData'; metaData: Metadata; incomplete?: string }
  | { kind: 'add'; add: AddAction }
  | { kind: 'remove'; remove: RemoveAction }
  | { kind: 'commitInfo'; commitInfo: CommitInfoAction }
  | { kind: 'txn'; txn: TxnAction }
  | { kind: 'domainMetadata'; domainMetadata: DomainMetadataAction }
  | { kind: 'checkpointMetadata'; checkpointMetadata: CheckpointMetadataAction }
  | { kind: 'sidecar'; sidecar: SidecarAction }
  | { kind: 'other'; name: string }

const KINDS = new Set([
  'protocol',
  'metaData',
  'add',
  'remove',
  'commitInfo',
  'txn',
  'domainMetadata',
  'checkpointMetadata',
  'sidecar',
])

const utf8 = new TextDecoder()

/**
 * Parse a commit file (or a v2 checkpoint in JSON form). Blank lines are skipped. The body is
 * decoded one line at a time, so a large commit costs its bytes plus one line, not a copy of
 * the whole file as one string and another as an array of lines.
 *
 * @param body file body (bytes as fetched, or text)
 * @param url the file's URL, named in errors ("…/00000000000000000003.json line 2: …")
 */
export function parseCommit(body: Uint8Array | string, url: string): Action[] {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
  const actions: Action[] = []
  let start = 0
  for (let lineNo = 1; start < bytes.length; lineNo++) {
    let end = bytes.indexOf(0x0a, start)
    if (end < 0) end = bytes.length
    const line = utf8.decode(bytes.subarray(start, end)).trim()
    start = end + 1
    if (line) actions.push(parseLine(line, url, lineNo, start < bytes.length))
  }
  return actions
}

/**
 * One log line. Keys this reader does not know are ignored beside a known action (the protocol's
 * forward-compatibility rule); a line of unknown keys only is an unknown action, skipped.
 */
function parseLine(line: string, url: string, lineNo: number, more: boolean): Action {
  let obj: unknown
  try {
    obj = JSON.parse(line)
  } catch (error) {
    if (more && opensObject(line)) {
      throw malformed(
        url,
        lineNo,
        'the commit is not newline-delimited JSON: the action that starts here spans ' +
          'several lines (pretty-printed?); Delta writes one action per line',
      )
    }
    throw malformed(url, lineNo, `not JSON (${(error as Error).message})`)
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw malformed(url, lineNo, 'not a JSON object')
  const entries = Object.entries(obj as Record<string, unknown>).filter(([, v]) => v != null)
  const known = entries.filter(([name]) => KINDS.has(name))
  if (known.length > 1) {
    throw malformed(url, lineNo, `expected one action, found ${known.length} (${known.map(([n]) => n).join(', ')})`)
  }
  if (!known.length) return { kind: 'other', name: entries[0]?.[0] ?? '' }
  const [name, body] = known[0]
  return toAction(name, body, (msg: string) => malformed(url, lineNo, msg))
}

/** True when `line` leaves a JSON object or array open (outside strings): it continues on the next line. */
function opensObject(line: string): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
  }
  return depth > 0 && !inString
}

/**
 * Validate one action body (from JSON or a checkpoint row) and normalise its numbers.
 *
 * @param name action key ('add', 'protocol', …)
 * @param body the action object
 * @param fail builds the error for a bad field (names the file/row)
 */
export function toAction(name: string, body: unknown, fail: (msg: string) => TableError): Action {
  if (!body || typeof body !== 'object') throw fail(`${name} is not an object`)
  const b = body as Record<string, unknown>
  switch (name) {
    case 'protocol':
      return { kind: 'protocol', protocol: toProtocol(b, fail) }
    case 'metaData':
      return toMetadata(b, fail)
    case 'add':
      return { kind: 'add', add: toAdd(b, fail) }
    case 'remove':
      return { kind: 'remove', remove: toRemove(b, fail) }
    case 'commitInfo':
      return { kind: 'commitInfo', commitInfo: toCommitInfo(b) }
    case 'txn':
      return {
        kind: 'txn',
        txn: { appId: str(b.appId, 'txn.appId', fail), version: num(b.version, 'txn.version', fail) },
      }
    case 'domainMetadata':
      return { kind: 'domainMetadata', domainMetadata: toDomain(b, fail) }
    case 'checkpointMetadata':
      return {
        kind: 'checkpointMetadata',
        checkpointMetadata: { version: num(b.version, 'checkpointMetadata.version', fail) },
      }
    case 'sidecar':
      return { kind: 'sidecar', sidecar: toSidecar(b, fail) }
    default:
      return { kind: 'other', name }
  }
}

function toProtocol(b: Record<string, unknown>, fail: (msg: string) => TableError): Protocol {
  const protocol: Protocol = {
    minReaderVersion: num(b.minReaderVersion, 'protocol.minReaderVersion', fail),
    minWriterVersion: num(b.minWriterVersion ?? 0, 'protocol.minWriterVersion', fail),
  }
  if (b.readerFeatures != null) protocol.readerFeatures = strings(b.readerFeatures)
  if (b.writerFeatures != null) protocol.writerFeatures = strings(b.writerFeatures)
  return protocol
}

function toMetadata(b: Record<string, unknown>, fail: (msg: string) => TableError): Action {
  const format = (b.format ?? { provider: 'parquet' }) as Metadata['format']
  const missing = (['id', 'schemaString'] as const).filter(key => typeof b[key] !== 'string')
  const metadata: Metadata = {
    id: typeof b.id === 'string' ? b.id : '',
    format: { provider: format.provider ?? 'parquet', options: stringMap(format.options) as Record<string, string> },
    schemaString: typeof b.schemaString === 'string' ? b.schemaString : '',
    partitionColumns: strings(b.partitionColumns ?? []),
    configuration: stringMap(b.configuration) as Record<string, string>,
  }
  if (typeof b.name === 'string') metadata.name = b.name
  if (typeof b.description === 'string') metadata.description = b.description
  if (b.createdTime != null) metadata.createdTime = Number(b.createdTime)
  if (!missing.length) return { kind: 'metaData', metaData: metadata }
  const what = missing.map(key => `metaData.${key} is missing or not a string`).join('; ')
  return { kind: 'metaData', metaData: metadata, incomplete: fail(what).message }
}

function toAdd(b: Record<string, unknown>, fail: (msg: string) => TableError): AddAction {
  const add: AddAction = {
    path: str(b.path, 'add.path', fail),
    partitionValues: stringMap(b.partitionValues),
    size: num(b.size, 'add.size', fail),
    modificationTime: num(b.modificationTime ?? 0, 'add.modificationTime', fail),
  }
  if (typeof b.dataChange === 'boolean') add.dataChange = b.dataChange
  if (typeof b.stats === 'string') add.stats = b.stats
  if (b.tags != null) add.tags = stringMap(b.tags)
  if (b.deletionVector != null) add.deletionVector = toDv(b.deletionVector, fail)
  if (b.baseRowId != null) add.baseRowId = Number(b.baseRowId)
  if (b.defaultRowCommitVersion != null) add.defaultRowCommitVersion = Number(b.defaultRowCommitVersion)
  return add
}

function toRemove(b: Record<string, unknown>, fail: (msg: string) => TableError): RemoveAction {
  const remove: RemoveAction = { path: str(b.path, 'remove.path', fail) }
  if (b.deletionTimestamp != null) remove.deletionTimestamp = Number(b.deletionTimestamp)
  if (typeof b.dataChange === 'boolean') remove.dataChange = b.dataChange
  if (b.deletionVector != null) remove.deletionVector = toDv(b.deletionVector, fail)
  return remove
}

function toDv(v: unknown, fail: (msg: string) => TableError): DeletionVectorDescriptor {
  const d = v as Record<string, unknown>
  const storageType = d.storageType
  if (storageType !== 'u' && storageType !== 'p' && storageType !== 'i') {
    throw fail(`deletionVector.storageType ${JSON.stringify(storageType)} is not u, p or i`)
  }
  const dv: DeletionVectorDescriptor = {
    storageType,
    pathOrInlineDv: str(d.pathOrInlineDv, 'deletionVector.pathOrInlineDv', fail),
    sizeInBytes: num(d.sizeInBytes, 'deletionVector.sizeInBytes', fail),
    cardinality: num(d.cardinality, 'deletionVector.cardinality', fail),
  }
  if (d.offset != null) dv.offset = Number(d.offset)
  return dv
}

function toCommitInfo(b: Record<string, unknown>): CommitInfoAction {
  const info: CommitInfoAction = { ...b }
  if (b.timestamp != null) info.timestamp = Number(b.timestamp)
  if (b.inCommitTimestamp != null) info.inCommitTimestamp = Number(b.inCommitTimestamp)
  if (b.operationMetrics != null) info.operationMetrics = stringMap(b.operationMetrics) as Record<string, string>
  return info
}

function toDomain(b: Record<string, unknown>, fail: (msg: string) => TableError): DomainMetadataAction {
  return {
    domain: str(b.domain, 'domainMetadata.domain', fail),
    configuration: typeof b.configuration === 'string' ? b.configuration : '',
    removed: b.removed === true,
  }
}

function toSidecar(b: Record<string, unknown>, fail: (msg: string) => TableError): SidecarAction {
  return {
    path: str(b.path, 'sidecar.path', fail),
    sizeInBytes: num(b.sizeInBytes, 'sidecar.sizeInBytes', fail),
    modificationTime: num(b.modificationTime ?? 0, 'sidecar.modificationTime', fail),
  }
}

function str(v: unknown, field: string, fail: (msg: string) => TableError): string {
  if (typeof v !== 'string') throw fail(`${field} is missing or not a string`)
  return v
}

/** Numbers arrive as JSON numbers, or as bigint from a parquet checkpoint. */
function num(v: unknown, field: string, fail: (msg: string) => TableError): number {
  const n = typeof v === 'bigint' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n)) throw fail(`${field} is missing or not a number`)
  return n
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []
}

/** A string map (JSON object, or hyparquet's decoded parquet MAP); non-string values become strings. */
function stringMap(v: unknown): Record<string, string | null> {
  const out: Record<string, string | null> = {}
  if (!v || typeof v !== 'object') return out
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v)
  for (const [key, value] of entries) out[String(key)] = value == null ? null : String(value)
  return out
}

function malformed(url: string, line: number, msg: string): TableError {
  return new TableError(`${url} line ${line}: ${msg}`, 'malformed-log', url)
}
