/**
 * The run manifest: everything needed to say what a model was trained on and how — the pinned
 * table (URL, version, plan digest and file list), columns, filter, seed, parameters, per-round
 * metrics, adapter and snaptrain version — plus metrics.csv. Shared parts of the two families'
 * manifests are built once here (runManifest); each family adds its features, categorical codes
 * and extras. Plain JSON data, written by the CLI next to the model.
 */
import { version as SNAPTRAIN_VERSION } from '../../package.json'
import type { ScanPlan } from '../data/types.ts'
import { csvText } from '../util/csv.ts'
import { redactUrl } from '../util/redact.ts'
import { shareTableUrl } from '../sharing/shared-table.ts'
import type { TrainConfig, TrainSummary } from './config.ts'
import type { StoppedMark } from './stop.ts'

/** The table side of a run: what was read, pinned. */
export interface ManifestTable {
  /** Table root URL the reader opened (a local folder served on loopback shows its path in `path`). */
  url: string
  /** Local folder, when the CLI served one. */
  path?: string
  version: number
  /** ScanPlan.digest: table URL, version, files, columns, filter and live rows. */
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
  validation:
    | { kind: 'fraction'; fraction: number; rows: number }
    | { kind: 'table'; table: ManifestTable }
    | { kind: 'none' }
  columns: string[]
  label: string
  features: Array<{ name: string; type: string; delta_type: string }>
  skipped_columns: Array<{ name: string; reason: string }>
  /** Categorical features: how codes were made (dictionaries live in the model's attributes). */
  categorical: Record<string, { codes: number; encoding: string }>
  filter: string | null
  seed: number
  params: Record<string, unknown>
  /** Per-round validation metrics, round 0 first. */
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
}

/**
 * The pinned description of a plan's table. URLs are redacted (util/redact.ts): a signed URL's
 * signature or a password in the URL must not end up in a file people share.
 */
export function manifestTable(plan: ScanPlan, path?: string): ManifestTable {
  return {
    // A share read through the local proxy records the server's own address of the table.
    url: redactUrl(plan.share ? shareTableUrl(plan.share.endpoint, plan.share) : plan.tableUrl),
    ...(path ? { path } : {}),
    version: plan.version,
    digest: plan.digest,
    files: plan.files.map(f => ({ path: redactUrl(f.path), size: f.size })),
    rows: plan.stats.rows,
    ...(plan.share ? { share: shareBlock(plan.share) } : {}),
  }
}

function shareBlock(s: NonNullable<ScanPlan['share']>): NonNullable<ManifestTable['share']> {
  return {
    endpoint: redactUrl(s.endpoint),
    share: s.share,
    schema: s.schema,
    table: s.table,
    format: s.format,
    file_ids: s.fileIds,
  }
}

/** What a family adds to the run's manifest. */
export interface ManifestParts {
  model: string
  plan: ScanPlan
  validPlan?: ScanPlan
  features: RunManifest['features']
  skipped: RunManifest['skipped_columns']
  categorical: RunManifest['categorical']
  seed: number
  params: object
  metrics: RunManifest['metrics']
}

/** The run's one manifest: the pinned tables, what was trained and how, the summary's numbers; `extras` last. */
export function runManifest<E extends object>(
  config: TrainConfig,
  parts: ManifestParts,
  s: TrainSummary,
  extras?: E,
): RunManifest & E {
  const validation: RunManifest['validation'] = parts.validPlan
    ? { kind: 'table', table: manifestTable(parts.validPlan, config.validTablePath) }
    : config.validFraction !== undefined
      ? { kind: 'fraction', fraction: config.validFraction, rows: s.rows_valid }
      : { kind: 'none' }
  return {
    kind: 'snaptrain-run',
    model: parts.model,
    snaptrain_version: SNAPTRAIN_VERSION,
    created: new Date().toISOString(),
    table: manifestTable(parts.plan, config.tablePath),
    validation,
    columns: parts.plan.columns,
    label: config.label,
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
 * metrics.csv: header `round,<metric…>` then one line per round (metric columns in first-seen
 * order; a metric missing in a round is an empty cell). Numbers as JS prints them (round-trip).
 */
export function metricsCsv(history: ReadonlyArray<Record<string, number>>): string {
  const names: string[] = []
  for (const m of history) for (const k of Object.keys(m)) if (!names.includes(k)) names.push(k)
  return csvText([['round', ...names], ...history.map((m, r) => [r, ...names.map(k => m[k])])])
}

/** Parses metrics.csv back (tests, tools): one record per round. */
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
