/**
 * Sweep export / import as JSON (with validation naming the bad field) and the trials table as
 * CSV (util/csv.ts, CRLF line ends): the one trials.csv, written by `snaptrain sweep` and
 * downloaded from the page alike.
 */
import type { SweepState, TrialRecord } from './types.ts'
import { STRATEGY_NAMES } from './strategy.ts'
import { stateWord, type OptunaTrialState } from './trial-state.ts'
import { csvText, type CsvOptions } from '../util/csv.ts'

/** Format tag of an exported sweep file. */
export const SWEEP_FORMAT = 'snaptrain-sweep'
/** Version of the exported sweep file format. */
export const SWEEP_FORMAT_VERSION = 1

/** The sweep as a JSON document `{ format, version, sweep }` (pretty-printed). */
export function exportSweep(state: SweepState): string {
  return JSON.stringify({ format: SWEEP_FORMAT, version: SWEEP_FORMAT_VERSION, sweep: state }, null, 2)
}

/**
 * Parses an exported sweep (exportSweep's output, or a bare SweepState object). Throws
 * RangeError naming the field, e.g. `sweep.trials[3].status: must be one of …`; `models`: the
 * model families known (src/models/registry.ts FAMILY_NAMES; the engine knows none), checked when given.
 */
export function importSweep(text: string, models?: readonly string[]): SweepState {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    throw new RangeError(`sweep file: not JSON (${(e as Error).message})`)
  }
  const o = obj(doc, 'sweep file')
  if (o.format !== undefined) {
    if (o.format !== SWEEP_FORMAT)
      throw new RangeError(`format: must be '${SWEEP_FORMAT}', got ${JSON.stringify(o.format)}`)
    if (o.version !== SWEEP_FORMAT_VERSION)
      throw new RangeError(`version: must be ${SWEEP_FORMAT_VERSION}, got ${JSON.stringify(o.version)}`)
  }
  const s = obj(o.format !== undefined ? o.sweep : doc, 'sweep')
  str(s.id, 'sweep.id')
  oneOf(s.status, 'sweep.status', ['running', 'stopped', 'finished', 'failed'])
  const c = obj(s.config, 'sweep.config')
  if (models) oneOf(c.model, 'sweep.config.model', models)
  else str(c.model, 'sweep.config.model')
  oneOf(c.strategy, 'sweep.config.strategy', STRATEGY_NAMES)
  str(c.table, 'sweep.config.table')
  str(c.label, 'sweep.config.label')
  if (!Array.isArray(s.trials)) throw new RangeError('sweep.trials: must be an array')
  s.trials.forEach((t, i) => checkTrial(t, `sweep.trials[${i}]`))
  for (const k of ['stoppedEarly', 'gpuSeconds', 'gpuSecondsFullBudget', 'wallSeconds']) num(s[k], `sweep.${k}`)
  str(s.createdAt, 'sweep.createdAt')
  str(s.updatedAt, 'sweep.updatedAt')
  return s as unknown as SweepState
}

function checkTrial(v: unknown, at: string): void {
  const t = obj(v, at)
  for (const k of ['id', 'bracket', 'rung', 'resource', 'gpuSeconds', 'wallSeconds']) num(t[k], `${at}.${k}`)
  obj(t.config, `${at}.config`)
  oneOf(t.status, `${at}.status`, ['pending', 'running', 'completed', 'stopped', 'failed'])
  if (!Array.isArray(t.curve)) throw new RangeError(`${at}.curve: must be an array`)
  t.curve.forEach((p, j) => {
    const q = obj(p, `${at}.curve[${j}]`)
    num(q.resource, `${at}.curve[${j}].resource`)
    num(q.metric, `${at}.curve[${j}].metric`)
  })
  if (t.metric !== undefined && t.metric !== null) num(t.metric, `${at}.metric`)
  if (t.params !== undefined) obj(t.params, `${at}.params`)
}

function obj(v: unknown, at: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new RangeError(`${at}: must be an object, got ${JSON.stringify(v)?.slice(0, 80)}`)
  return v as Record<string, unknown>
}

function num(v: unknown, at: string): void {
  if (typeof v !== 'number' || Number.isNaN(v))
    throw new RangeError(`${at}: must be a number, got ${JSON.stringify(v)}`)
}

function str(v: unknown, at: string): void {
  if (typeof v !== 'string') throw new RangeError(`${at}: must be a string, got ${JSON.stringify(v)}`)
}

function oneOf(v: unknown, at: string, allowed: readonly string[]): void {
  if (!allowed.includes(v as string))
    throw new RangeError(`${at}: must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`)
}

/** Fixed columns of trials.csv, before one column per parameter (sorted). */
export const TRIAL_COLUMNS = [
  'trial',
  'status',
  'state',
  'bracket',
  'rung',
  'resource',
  'reached',
  'promoted_from',
  'metric',
  'gpu_seconds',
  'wall_seconds',
  'error',
] as const

/**
 * trials.csv: a header, then one row per trial in id order; `status` is the stored one (completed,
 * stopped …), `state` the trial as Optuna reads it (trial-state.ts: complete, pruned …) when
 * `states` (trialStates' answer) is given, else empty; parameter columns are the union of
 * the trials' config keys, sorted (a parameter named like a fixed column gets a `param_` prefix).
 * Arrays / objects are written as JSON; missing values as empty fields; CRLF line ends (a file
 * for spreadsheets).
 */
export function trialsCsv(
  trials: readonly TrialRecord[],
  opts: CsvOptions & { states?: ReadonlyMap<number, OptunaTrialState> } = {},
): string {
  const { states, ...csv } = opts
  const params = [...new Set(trials.flatMap(t => Object.keys(t.config)))].sort()
  const header = [
    ...TRIAL_COLUMNS,
    ...params.map(p => ((TRIAL_COLUMNS as readonly string[]).includes(p) ? `param_${p}` : p)),
  ]
  const rows = [...trials]
    .sort((a, b) => a.id - b.id)
    .map(t => [
      t.id,
      t.status,
      states?.has(t.id) ? stateWord(states.get(t.id)!) : undefined,
      t.bracket,
      t.rung,
      t.resource,
      t.curve.at(-1)?.resource,
      t.promotedFrom,
      t.metric,
      t.gpuSeconds,
      t.wallSeconds,
      t.error,
      ...params.map(p => t.config[p]),
    ])
  return csvText([header, ...rows], { ...csv, eol: '\r\n' })
}
