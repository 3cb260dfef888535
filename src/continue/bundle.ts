/**
 * The continue bundle of a run (spec.ts): `continueSpec` describes what another engine needs from
 * the run's manifest and its model file (GBDT: features in the model's order with the model's
 * dictionaries, rounds = its trees; recommender: the checkpoint's feature layout, optimizer step and
 * epochs), and `continueFiles` writes continue.json, the shared Python runtime, the model and the
 * jobs as the files of `continue/`. The one place a bundle is made: `snaptrain train`, `snaptrain
 * sweep` (best trial), `snaptrain continue` and the page's downloads all call `continueBundle`.
 * Pure TS (the page runs it): every input is bytes or parsed JSON.
 */
import { version as SNAPTRAIN_VERSION } from '../../package.json'
import type { RunFile } from '../run/artifacts.ts'
import type { ManifestTable, RunManifest } from '../run/manifest.ts'
import { categoriesOf, labelValuesOf } from '../models/gbdt/model-attributes.ts'
import { decodeModel, modelJsonText } from '../models/gbdt/model-file.ts'
import { continueExport } from '../models/recsys/export.ts'
import { gbdtJobs } from './gbdt-jobs.ts'
import { RECSYS_FILES, recsysContinueFiles } from './recsys-files.ts'
import { CONTINUE_RUNTIME_PY } from './runtime-py.ts'
import { CONTINUE_JSON, CONTINUE_RUNTIME, type ContinueFeature, type ContinueSpec } from './spec.ts'
import { familyOf, FAMILY_NAMES, type FamilyDescription } from '../models/registry.ts'

/** The folder of a bundle beside a run's files (and the prefix of its names in a run's file list). */
export const CONTINUE_DIR = 'continue'

/** The manifest's link to the bundle (RunManifest.continue). */
export const CONTINUE_LINK = `${CONTINUE_DIR}/${CONTINUE_JSON}`

/** Engines a bundle has jobs for, and the job file of each. */
export const ENGINE_JOBS = { dask: 'xgboost_dask.py', spark: 'xgboost_spark.py', torch: 'torch_ddp.py' } as const

/** An engine (`snaptrain continue --engine`), or 'all' of the family's. */
export type ContinueEngine = keyof typeof ENGINE_JOBS | 'all'

/** What a layout reads from the model file: features, training done, and a multiclass model's classes. */
type ModelPart = Pick<ContinueSpec, 'features' | 'done' | 'label_values'> & {
  /** A multiclass model's K (its num_class), which the run's params hold as 0 where it was inferred. */
  num_class?: number
}

/** How a bundle of one layout (a family's registry `continue.layout`) is made. */
interface Layout {
  /** The model's features in input order, the training done so far, its classes. */
  model(data: string | Uint8Array, m: RunManifest): ModelPart
  /** continue.json's `files` with the jobs written. */
  files(jobs: string[]): ContinueSpec['files']
  /** The model's files and every job of the layout (continueFiles keeps the spec's jobs). */
  write(model: string | Uint8Array, spec: ContinueSpec): Array<{ name: string; data: string | Uint8Array }>
  /** The metric jobs print first when the bundle names none. */
  metric(m: RunManifest): string
}

const LAYOUTS: Record<FamilyDescription['continue']['layout'], Layout> = {
  // XGBoost JSON text whatever the run wrote, and jobs for XGBoost on Dask and Spark.
  xgboost: {
    model: gbdtModel,
    files: jobs => ({ model: 'model.json', jobs }),
    write: (model, spec) => [{ name: spec.files.model ?? 'model.json', data: gbdtJsonText(model) }, ...gbdtJobs(spec)],
    metric: gbdtMetric,
  },
  // The recommender's features.json, weights and optimizer state as safetensors, and a PyTorch DDP job.
  torch: {
    model: recsysModel,
    files: jobs => ({
      features: RECSYS_FILES.features,
      weights: RECSYS_FILES.weights,
      optimizer: RECSYS_FILES.optimizer,
      jobs,
    }),
    write: (model, spec) => recsysContinueFiles(recsysBytes(model), spec),
    metric: recsysMetric,
  },
}

/** The bundle layout of family `family`. */
function layoutOf(family: string): Layout {
  return LAYOUTS[familyOf(family).continue.layout]
}

/** What a bundle is made from. */
export interface BundleInput {
  /** The run's manifest (manifest.json, or a sweep trial's). */
  manifest: RunManifest
  /** The model file: GBDT XGBoost JSON text or UBJSON bytes; recommender model.bin bytes. */
  model: string | Uint8Array
  /** A run (default), or a sweep's best trial. */
  source?: ContinueSpec['source']
  /** The metric the jobs print first (default: the run's early-stopping / last eval metric). */
  metric?: string
  /** Which jobs to write (default 'all' of the family's). */
  engine?: ContinueEngine
}

/** continue.json of a run; RangeError naming what the manifest or model lacks. */
export function continueSpec(input: BundleInput): ContinueSpec {
  const m = input.manifest
  const kind = (m as { kind?: string } | undefined)?.kind
  // A sweep trial's manifest is the run's, marked 'snaptrain-sweep-trial' (src/sweep/trial-runner.ts).
  if (kind !== 'snaptrain-run' && kind !== 'snaptrain-sweep-trial')
    throw new RangeError('continue bundle: manifest: not a snaptrain run manifest')
  const family = m.model
  if (typeof family !== 'string' || !FAMILY_NAMES.includes(family))
    throw new RangeError(`continue bundle: manifest.model ${JSON.stringify(family)}: not ${FAMILY_NAMES.join(' or ')}`)
  // The jobs read no row weights or base margins yet: their trees would not continue this model's.
  const rowColumns = [
    m.weight !== undefined ? `row weights (--weight ${m.weight})` : '',
    m.base_margin !== undefined ? `base margins (--base-margin ${m.base_margin})` : '',
  ].filter(Boolean)
  if (rowColumns.length > 0)
    throw new RangeError(`continue bundle: ${rowColumns.join(' and ')} are not carried to the continue jobs yet`)
  const layout = layoutOf(family)
  const table = pinnedTable(m.table, 'manifest.table')
  const model = layout.model(input.model, m)
  const validation = validationOf(m)
  const files = layout.files(jobsOf(family, input.engine))
  return {
    kind: 'snaptrain-continue',
    format: 1,
    snaptrain_version: SNAPTRAIN_VERSION,
    family,
    source: input.source ?? { kind: 'run' },
    table: {
      url: table.url,
      ...(table.path ? { path: table.path } : {}),
      version: table.version,
      digest: table.digest,
    },
    label: m.label,
    ...(model.label_values ? { label_values: model.label_values } : {}),
    ...(m.qid !== undefined ? { qid: m.qid } : {}),
    filter: m.filter ?? null,
    features: model.features,
    validation,
    params: { ...m.params, ...(model.num_class !== undefined ? { num_class: model.num_class } : {}) },
    metric: input.metric ?? layout.metric(m),
    seed: m.seed,
    done: model.done,
    files,
    scan: scanOf(m, model.features, validation),
  }
}

/**
 * The bundle's files, named `continue/<name>`: continue.json (2-space JSON and a newline), the
 * shared runtime, the model (GBDT: model.json, XGBoost JSON text whatever the run wrote;
 * recommender: features.json, model.safetensors, optimizer.safetensors) and the jobs `spec.files.jobs`
 * names.
 */
export function continueFiles(spec: ContinueSpec, model: string | Uint8Array): RunFile[] {
  const jobs = new Set(spec.files.jobs)
  const made = layoutOf(spec.family).write(model, spec)
  const isJob = (name: string) => (Object.values(ENGINE_JOBS) as string[]).includes(name)
  const kept = made.filter(f => !isJob(f.name) || jobs.has(f.name))
  for (const j of jobs)
    if (!kept.some(f => f.name === j)) throw new RangeError(`continue bundle: no job ${j} for a ${spec.family} model`)
  return [
    { name: CONTINUE_JSON, data: `${JSON.stringify(spec, null, 2)}\n` },
    { name: CONTINUE_RUNTIME, data: CONTINUE_RUNTIME_PY },
    ...kept,
  ].map(f => ({ name: `${CONTINUE_DIR}/${f.name}`, data: ownBytes(f.data) }))
}

/** The spec and the files of a run's bundle (continueSpec, then continueFiles). */
export function continueBundle(input: BundleInput): RunFile[] {
  return continueFiles(continueSpec(input), input.model)
}

/** The jobs written for `engine` (default all of the family's); RangeError when it is another family's. */
export function jobsOf(family: ContinueSpec['family'], engine: ContinueEngine = 'all'): string[] {
  const engines = familyOf(family).continue.engines
  if (engine === 'all') return engines.map(e => ENGINE_JOBS[e])
  if (!engines.includes(engine))
    throw new RangeError(`engine ${engine}: no job for a ${family} model (its engines: ${engines.join(', ')}, all)`)
  return [ENGINE_JOBS[engine]]
}

/** The manifest's table with a version and digest, or RangeError naming `where`. */
function pinnedTable(t: ManifestTable | undefined, where: string): ManifestTable {
  if (!t || typeof t.url !== 'string' || !t.url) throw new RangeError(`continue bundle: ${where}.url is missing`)
  if (!Number.isInteger(t.version) || t.version < 0)
    throw new RangeError(`continue bundle: ${where}.version is missing: the bundle reads a pinned table version`)
  if (typeof t.digest !== 'string') throw new RangeError(`continue bundle: ${where}.digest is missing`)
  return t
}

/** The validation split's definition (seed = the run's, key = the columns another engine hashes). */
function validationOf(m: RunManifest): ContinueSpec['validation'] {
  const v = m.validation
  if (!v || v.kind === 'none') return { kind: 'none' }
  if (v.kind === 'table') {
    const t = pinnedTable(v.table, 'manifest.validation.table')
    return { kind: 'table', table: { url: t.url, ...(t.path ? { path: t.path } : {}), version: t.version } }
  }
  if (!Array.isArray(v.key) || v.key.length === 0)
    throw new RangeError('continue bundle: manifest.validation.key is missing: the split needs its row-key columns')
  return { kind: 'fraction', fraction: v.fraction, seed: m.seed, key: v.key.slice(), rows: v.rows }
}

/** GBDT: the metric jobs print first is the last eval_metric (XGBoost's early-stopping one). */
function gbdtMetric(m: RunManifest): string {
  const p = m.params as { eval_metric?: unknown }
  const list = Array.isArray(p.eval_metric) ? p.eval_metric : [p.eval_metric]
  const last = list[list.length - 1]
  return typeof last === 'string' ? last : 'logloss'
}

/** Recommender: the metric jobs print first is its early-stopping metric. */
function recsysMetric(m: RunManifest): string {
  const p = m.params as { early_stopping_metric?: unknown }
  return typeof p.early_stopping_metric === 'string' ? p.early_stopping_metric : 'auc'
}

/**
 * `snaptrain scan` arguments that read the pinned version with exactly the label, the features,
 * the query id and the split's key columns (and the run's filter), as npy records; a job adds
 * `--shards K --shard r`.
 */
function scanOf(m: RunManifest, features: ContinueFeature[], v: ContinueSpec['validation']): ContinueSpec['scan'] {
  const columns = [m.label]
  const qid = m.qid !== undefined ? [m.qid] : []
  for (const c of [...features.map(f => f.name), ...qid, ...(v.kind === 'fraction' ? v.key : [])])
    if (!columns.includes(c)) columns.push(c)
  const args = ['--table', m.table.path ?? m.table.url, '--version', String(m.table.version)]
  args.push('--columns', columns.join(','))
  if (m.filter) args.push('--filter', m.filter)
  args.push('--format', 'npy')
  return { args }
}

/** A feature's Delta type as text: the schema's type string, 'array<element>' for lists, else its JSON. */
function deltaTypeText(raw: unknown): string {
  let t = raw
  if (typeof raw === 'string' && raw.startsWith('{')) {
    try {
      t = JSON.parse(raw)
    } catch {
      return raw
    }
  }
  if (typeof t === 'string') return t
  const o = t as { type?: unknown; elementType?: unknown } | null
  if (o && o.type === 'array') return `array<${deltaTypeText(o.elementType)}>`
  return JSON.stringify(t)
}

/** The manifest's Delta type of feature `name`; RangeError when the manifest does not list it. */
function deltaTypeOf(m: RunManifest, name: string): string {
  const f = (m.features ?? []).find(x => x.name === name)
  if (!f) throw new RangeError(`continue bundle: model feature ${name} is not among manifest.features`)
  return deltaTypeText(f.delta_type)
}

/**
 * GBDT: features in the model's order (categorical = has a dictionary in the model), rounds = its
 * trees per class; a multiclass model's K (learner_model_param num_class) and, for a string label,
 * its label dictionary.
 */
function gbdtModel(data: string | Uint8Array, m: RunManifest): ModelPart {
  let json: unknown
  try {
    json = decodeModel(data)
  } catch (e) {
    throw new RangeError(`continue bundle: model file: ${(e as Error).message}`)
  }
  const learner = (json as { learner?: Record<string, unknown> })?.learner
  const names = learner?.feature_names
  if (!Array.isArray(names) || names.length === 0 || names.some(n => typeof n !== 'string'))
    throw new RangeError('continue bundle: model file: no feature_names (the bundle needs the model’s feature order)')
  const dictionaries = categoriesOf(json)
  const trees = (learner?.gradient_booster as { model?: { trees?: unknown } } | undefined)?.model?.trees
  if (!Array.isArray(trees)) throw new RangeError('continue bundle: model file: no gradient_booster.model.trees')
  const features = (names as string[]).map((name): ContinueFeature => {
    const dictionary = dictionaries[name]
    const delta_type = deltaTypeOf(m, name)
    return dictionary
      ? { name, delta_type, kind: 'categorical', dictionary: dictionary.slice() }
      : { name, delta_type, kind: 'numeric' }
  })
  const K = Number((learner?.learner_model_param as { num_class?: unknown } | undefined)?.num_class ?? 0)
  if (K < 2) return { features, done: { rounds: trees.length } }
  let labels: Array<string | number> | undefined
  try {
    labels = labelValuesOf(json)
  } catch (e) {
    throw new RangeError(`continue bundle: model file: ${(e as Error).message}`)
  }
  // Only a string label is coded through the dictionary (as training codes it); a numeric one is its class.
  const strings = labels?.every(v => typeof v === 'string') ? (labels as string[]) : undefined
  return {
    features,
    done: { rounds: Math.ceil(trees.length / K) },
    num_class: K,
    ...(strings ? { label_values: strings.slice() } : {}),
  }
}

/** Recommender: features in the model's input order (sparse, bags, dense, lists), optimizer step and epochs. */
function recsysModel(data: string | Uint8Array, m: RunManifest): ModelPart {
  const x = continueExport(recsysBytes(data), 'continue bundle: model.bin')
  const features = x.inputs.map(
    (i): ContinueFeature => ({ name: i.name, delta_type: deltaTypeOf(m, i.name), kind: i.kind }),
  )
  const epochs = (m as { epochs?: unknown }).epochs
  return {
    features,
    done: { steps: x.step, epochs: typeof epochs === 'number' ? epochs : x.epoch },
  }
}

/** A GBDT model file as XGBoost JSON text (UBJSON bytes converted with the model-file code). */
function gbdtJsonText(model: string | Uint8Array): string {
  return modelJsonText(model)
}

function recsysBytes(model: string | Uint8Array): Uint8Array {
  if (typeof model === 'string') throw new RangeError('continue bundle: a recommender model file is bytes (model.bin)')
  return model
}

/** A fresh ArrayBuffer-backed copy of bytes (a view that crossed page.evaluate or a Node Buffer may share its buffer). */
function ownBytes(d: string | Uint8Array): RunFile['data'] {
  return typeof d === 'string' ? d : new Uint8Array(d)
}
