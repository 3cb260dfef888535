/**
 * The run manifest: everything needed to say what a model was trained on and how — the pinned
 * table (the user's address, version, digest of what was read and file list), columns, filter,
 * seed, parameters, per-round metrics, adapter and snaptrain version — plus metrics.csv. Shared
 * parts of the two families' manifests are built once here (runManifest); each family adds its
 * features, categorical codes and extras. Plain JSON data, written by the CLI next to the model.
 */
import { version as SNAPTRAIN_VERSION } from '../../package.json'
import { planDigest } from '../data/digest.ts'
import { footerFingerprint } from '../data/plan.ts'
import type { ScanPlan } from '../data/types.ts'
import { csvText } from '../util/csv.ts'
import { redactUrl } from '../util/redact.ts'
import { shareTableUrl } from '../sharing/shared-table.ts'
import type { TrainConfig, TrainSummary } from './config.ts'
import type { StoppedMark } from './stop.ts'

/**
 * The table side of a run: what was read, pinned, named as the user named it. Never a port of
 * this process (the loopback server of a folder, the proxies of governed tables) nor a
 * credential: two runs on the same table version record the same `url` and `digest`.
 */
export interface ManifestTable {
  /**
   * The table's address, independent of this process: a folder's `file:` URL, the http(s) URL
   * given (query values redacted), `s3://…`, `uc:…`, or a share's REST URL at its server; a run
   * started in the page records the URL the page was given.
   */
  url: string
  /**
   * How the user named the table on the command line: a folder's absolute path, `s3://…`, `uc:…`,
   * `<profile>#share.schema.table`.
   */
  path?: string
  version: number
  /**
   * The identity of what was read (tableDigest): version, columns, filter, label, each file's
   * content (footer fingerprint, size, partition values) and each unit's live rows — neither the
   * address nor a file's path or URL, so a folder, a bucket and a share of one table version give
   * the same digest.
   */
  digest: string
  files: Array<{ path: string; size: number }>
  rows: number
  /** A shared table: its server, coordinates, the response format and the server's file ids by path. */
  share?: {
    endpoint: string
    share: string
    schema: string
    table: string
    format: string
    file_ids: Record<string, string>
    /** Why `version` is the whole pin: the sharing protocol gives a snapshot no commit time. */
    note: string
  }
}

/** A run manifest (manifest.json). */
export interface RunManifest {
  kind: 'snaptrain-run'
  model: string
  snaptrain_version: string
  created: string
  table: ManifestTable
  /** Validation: seeded fraction of the table, a second table, or none. */
  validation: /** `key`: the row key's columns in key order (src/data/row-key.ts), what another engine hashes to pick the same rows. */
    | { kind: 'fraction'; fraction: number; rows: number; key: string[] }
    | { kind: 'table'; table: ManifestTable }
    | { kind: 'none' }
  columns: string[]
  label: string
  /** The row weight column (--weight), when the run had one. */
  weight?: string
  /** The base margin column (--base-margin), when the run had one. */
  base_margin?: string
  /** The query id column (--qid), when the run ranked rows within queries. */
  qid?: string
  features: Array<{ name: string; type: string; delta_type: string }>
  skipped_columns: Array<{ name: string; reason: string }>
  /** Categorical features: how codes were made (dictionaries live in the model's attributes). */
  categorical: Record<string, { codes: number; encoding: string }>
  filter: string | null
  seed: number
  params: Record<string, unknown>
  /**
   * Per-round metrics, the first round first (metrics.csv's round 1): validation ones by their
   * names, training-rows ones (eval train) as `train-<name>`.
   */
  metrics: Array<Record<string, number>>
  best_iteration: number
  rounds: number
  adapter: string
  rows_train: number
  rows_valid: number
  train_seconds: number
  /** Data-parallel ranks and per-collective totals; absent for R = 1. */
  ranks?: number
  collectives?: Array<{ op: string; calls: number; bytes: number; ms: number }>
  collective_transport?: string
  /**
   * Set when a user stopped the run (stop.ts): `{ at_round: k, reason: 'user' }` (GBDT: k rounds
   * trained) or `{ at_step: k, reason: 'user' }` (recommender: k steps); the model and metrics are
   * what was trained up to there. Absent for a run that ran to its end.
   */
  stopped?: StoppedMark
  /**
   * The continue bundle beside the model (src/continue/bundle.ts): its continue.json, relative to
   * the run's folder. Set where the bundle is written (`snaptrain train`, `sweep`, `continue`, the page's files).
   */
  continue?: string
  /** Why no continue bundle could be made for this run (then `continue` is absent); nothing else is lost. */
  continue_error?: string
}

/** `share.note` of a manifest: a share's snapshot is pinned by its version alone. */
export const SHARE_VERSION_NOTE =
  'pinned by version: the sharing protocol gives a latest snapshot no commit time; re-read it with --version'

/** What a manifest table is named by: the user's address and how they typed it (both absent in a page run). */
export interface TableNaming {
  address?: string
  path?: string
}

/**
 * The pinned description of a plan's table. URLs are redacted (util/redact.ts): a signed URL's
 * signature or a password in the URL must not end up in a file people share. `named.address`
 * replaces the URL the reader opened, which in the CLI is a loopback server's or proxy's.
 */
export function manifestTable(plan: ScanPlan, named: TableNaming = {}): ManifestTable {
  // A share read through the local proxy records the server's own address of the table.
  const url = plan.share ? shareTableUrl(plan.share.endpoint, plan.share) : (named.address ?? plan.tableUrl)
  return {
    url: redactUrl(url),
    ...(named.path ? { path: named.path } : {}),
    version: plan.version,
    digest: tableDigest(plan),
    files: plan.files.map(f => ({ path: redactUrl(f.path), size: f.size })),
    rows: plan.stats.rows,
    ...(plan.share ? { share: shareBlock(plan.share) } : {}),
  }
}

/**
 * The plan's digest (data/digest.ts) over what it reads, each file named by its content rather
 * than by where it was read: the plan's own digest hashes the URL it opened (a new loopback port
 * on every CLI run) and the files' paths, which a share derives from its pre-signed URLs.
 */
export function tableDigest(plan: ScanPlan): string {
  const files = plan.files.map(f => ({ path: fileIdentity(f), size: f.size }))
  return planDigest({ ...plan, tableUrl: '', files })
}

/** A file by its footer's fingerprint and its partition values (which live in the log, not the file). */
function fileIdentity(f: ScanPlan['files'][number]): string {
  const partitions = JSON.stringify(f.partitionValues ?? {}, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
  return `${footerFingerprint(f.metadata)} ${partitions}`
}

function shareBlock(s: NonNullable<ScanPlan['share']>): NonNullable<ManifestTable['share']> {
  return {
    endpoint: redactUrl(s.endpoint),
    share: s.share,
    schema: s.schema,
    table: s.table,
    format: s.format,
    file_ids: s.fileIds,
    note: SHARE_VERSION_NOTE,
  }
}

/** What a family adds to the run's manifest. */
export interface ManifestParts {
  model: string
  plan: ScanPlan
  /** Key columns of the validation split, when the plan read does not carry them (its rowKey). */
  splitKey?: string[]
  validPlan?: ScanPlan
  features: RunManifest['features']
  skipped: RunManifest['skipped_columns']
  categorical: RunManifest['categorical']
  seed: number
  params: object
  metrics: RunManifest['metrics']
}

/** The split's key columns: the family's word, else the row key of the plan it read (set whenever a fraction is split off). */
function splitKeyNames(parts: ManifestParts): string[] {
  const key = parts.splitKey ?? parts.plan.rowKey?.map(f => f.name)
  if (!key) throw new Error('manifest: a run split by fraction names no row key')
  return key
}

/** The run's one manifest: the pinned tables, what was trained and how, the summary's numbers; `extras` last. */
export function runManifest<E extends object>(
  config: TrainConfig,
  parts: ManifestParts,
  s: TrainSummary,
  extras?: E,
): RunManifest & E {
  const validation: RunManifest['validation'] = parts.validPlan
    ? {
        kind: 'table',
        table: manifestTable(parts.validPlan, { address: config.validTableAddress, path: config.validTablePath }),
      }
    : config.validFraction !== undefined
      ? { kind: 'fraction', fraction: config.validFraction, rows: s.rows_valid, key: splitKeyNames(parts) }
      : { kind: 'none' }
  return {
    kind: 'snaptrain-run',
    model: parts.model,
    snaptrain_version: SNAPTRAIN_VERSION,
    created: new Date().toISOString(),
    table: manifestTable(parts.plan, { address: config.tableAddress, path: config.tablePath }),
    validation,
    columns: parts.plan.columns,
    label: config.label,
    ...(config.weight !== undefined ? { weight: config.weight } : {}),
    ...(config.baseMargin !== undefined ? { base_margin: config.baseMargin } : {}),
    ...(config.qid !== undefined ? { qid: config.qid } : {}),
    features: parts.features,
    skipped_columns: parts.skipped,
    categorical: parts.categorical,
    filter: config.filter ?? null,
    seed: parts.seed,
    params: { ...parts.params },
    metrics: parts.metrics,
    best_iteration: s.best_iteration,
    rounds: s.rounds,
    adapter: s.adapter,
    rows_train: s.rows_train,
    rows_valid: s.rows_valid,
    train_seconds: s.train_seconds,
    ...(extras ?? {}),
  } as RunManifest & E
}

/**
 * metrics.csv: header `round,<metric…>` then one line per round, counted from 1 as the page's
 * curves count them (the model after round k has k trees per output; XGBoost's log prints this
 * round as `[k-1]` and its evals_result holds it at index k − 1, as `metrics[k - 1]` here). Metric
 * columns in first-seen order: the validation ones, then any training-rows `train-…` ones; a
 * metric missing in a round is an empty cell. Numbers as JS prints them (round-trip).
 */
export function metricsCsv(history: ReadonlyArray<Record<string, number>>): string {
  const names: string[] = []
  for (const m of history) for (const k of Object.keys(m)) if (!names.includes(k)) names.push(k)
  return csvText([['round', ...names], ...history.map((m, r) => [r + 1, ...names.map(k => m[k])])])
}

/** Parses metrics.csv back (tests, tools): one record per round, with its `round` (1 first). */
export function parseMetricsCsv(text: string): Array<Record<string, number>> {
  const [header, ...rows] = text.trim().split('\n')
  const names = header.split(',')
  if (names[0] !== 'round') throw new RangeError(`metrics.csv: first column must be round, got ${names[0]}`)
  return rows.map(line => {
    const cells = line.split(',')
    const out: Record<string, number> = {}
    names.forEach((n, i) => {
      if (cells[i] !== '' && cells[i] !== undefined) out[n] = Number(cells[i])
    })
    return out
  })
}
