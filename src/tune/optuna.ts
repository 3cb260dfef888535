/**
 * Sweeps ↔ Optuna, as text: a sweep written as an Optuna journal (what
 * `optuna.storages.JournalFileStorage` reads: one JSON operation a line, Optuna 3.1's
 * `JournalOperation` codes, replayed by `JournalStorage`), and an Optuna journal's finished trials
 * read back as a sweep's warm start. Pure: `snaptrain sweep --optuna-journal` and the page's
 * download write the same text.
 *
 * Mapping (sweep → study): study name = sweep id; direction from the metric (the engine's
 * `minimizes`: auc, aucpr and gauc maximised, every loss and error minimised); one trial per snaptrain trial in id
 * order, so Optuna's trial number is snaptrain's trial id; each searchable parameter as the
 * distribution of its domain (uniform / loguniform → FloatDistribution, int → IntDistribution,
 * categorical → CategoricalDistribution; a choice that is not null, a boolean, a number or a string
 * is written as its JSON text, Optuna's choice types); fixed parameters, the trial's bracket, rung,
 * requested resource, the resource it reached, its complete train parameters and snaptrain id as
 * user attributes; the learning curve as intermediate values (step = rounds or epochs); the state
 * by trial-state.ts `trialStates` (the page's and the CLI's too): COMPLETE, PRUNED (cut short by
 * the strategy: stopped at a rung, or not promoted past one) with its last intermediate value as
 * its value (as Optuna records a pruned trial), FAIL, RUNNING, WAITING. The table, its version,
 * the label, strategy, space, fixed parameters and the best trial's complete parameters are the
 * study's user attributes. Each trial is one CREATE_TRIAL operation holding all of it, the form
 * `study.add_trial` writes.
 *
 * Optuna's `study.best_trial` ranks COMPLETE trials only; snaptrain's best also counts pruned
 * trials at their last metric, so where a pruned trial is snaptrain's best the two differ: the
 * study's `snaptrain_best_trial` attribute names snaptrain's.
 */
import type {
  ParamDomain,
  PriorTrial,
  SearchSpace,
  SweepConfig,
  SweepFamily,
  SweepState,
  TrialConfig,
  TrialRecord,
  WarmStart,
} from './types.ts'
import { checkConfig, choiceIndex, parseSpace } from './space.ts'
import { defaultSpace } from './defaults.ts'
import { resolveStrategyOptions } from './strategy.ts'
import { minimizes } from './sweep-state.ts'
import { OPTUNA_STATES, trialStates, type OptunaTrialState } from './trial-state.ts'

/** The journal's file name in a sweep's output folder and the page's download. */
export const OPTUNA_JOURNAL_FILE = 'optuna-journal.log'

/** Optuna's JournalOperation codes (optuna/storages/_journal/storage.py). */
const OP = {
  CREATE_STUDY: 0,
  DELETE_STUDY: 1,
  SET_STUDY_USER_ATTR: 2,
  SET_STUDY_SYSTEM_ATTR: 3,
  CREATE_TRIAL: 4,
  SET_TRIAL_PARAM: 5,
  SET_TRIAL_STATE_VALUES: 6,
  SET_TRIAL_INTERMEDIATE_VALUE: 7,
  SET_TRIAL_USER_ATTR: 8,
  SET_TRIAL_SYSTEM_ATTR: 9,
} as const

/** Optuna's StudyDirection values, in code order. */
const DIRECTIONS = ['not_set', 'minimize', 'maximize'] as const

/** One trial of a study as the journal's replay leaves it. */
export interface JournalTrial {
  /** Number within its study (0, 1, …). */
  number: number
  state: OptunaTrialState
  /** The objective value (a single-objective study's), or undefined. */
  value?: number
  /** Parameters in their external form (a float, an int, a choice). */
  params: Record<string, unknown>
  /** Intermediate values by step, ascending. */
  intermediate: Array<[step: number, value: number]>
  userAttrs: Record<string, unknown>
}

/** One study of a journal. */
export interface JournalStudy {
  id: number
  name: string
  directions: Array<(typeof DIRECTIONS)[number]>
  userAttrs: Record<string, unknown>
  trials: JournalTrial[]
}

/**
 * The journal lines of `state`, appended after `existing` (the text of the journal file it goes
 * into, '' for a new one): the study's id is the next free one there, as Optuna numbers studies.
 * Throws naming the study when `existing` already holds one of that name.
 */
export function optunaJournal(state: SweepState, family: SweepFamily, existing = ''): string {
  const before = replayJournal(existing, 'journal')
  if (before.studies.some(s => s.name === state.id))
    throw new Error(`journal: already holds a study named ${state.id} (Optuna refuses a second study of one name)`)
  const studyId = before.nextStudyId
  const c = state.config
  const space = parseSpace(c.space ?? defaultSpace(family))
  const worker = `snaptrain-${state.id}`
  const line = (op: number, fields: Record<string, unknown>): string =>
    JSON.stringify({ op_code: op, worker_id: worker, ...fields })
  const lines = [line(OP.CREATE_STUDY, { study_name: state.id, directions: [minimizes(c) ? 1 : 2] })]
  for (const [key, value] of Object.entries(studyAttrs(state, family, space)))
    lines.push(line(OP.SET_STUDY_USER_ATTR, { study_id: studyId, user_attr: { [key]: value } }))
  const states = trialStates(state, family)
  for (const t of [...state.trials].sort((a, b) => a.id - b.id))
    lines.push(
      line(OP.CREATE_TRIAL, { study_id: studyId, ...trialFields(t, states.get(t.id)!, space, state.updatedAt) }),
    )
  return lines.join('\n') + '\n'
}

/** The sweep's facts as study user attributes (what a result is traced back to). */
function studyAttrs(state: SweepState, family: SweepFamily, space: SearchSpace): Record<string, unknown> {
  const c = state.config
  const o = resolveStrategyOptions(family, {
    strategy: c.strategy,
    seed: c.seed,
    minResource: c.minResource,
    maxResource: c.maxResource,
    eta: c.eta,
  })
  const fixed = { ...c.fixed, ...fixedOf(space) }
  const attrs: Record<string, unknown> = {
    snaptrain_sweep: state.id,
    model: c.model,
    metric: c.metric ?? 'auc',
    table: c.table,
    table_version: c.version ?? null,
    label: c.label,
    strategy: c.strategy,
    seed: o.seed,
    min_resource: o.minResource,
    max_resource: o.maxResource,
    eta: o.eta,
    resource_param: family.resource.param,
    space: c.space ?? defaultSpace(family),
    fixed_params: fixed,
    snaptrain_status: state.status,
    snaptrain_best_trial: state.best?.trial ?? null,
    snaptrain_best_value: state.best?.metric ?? null,
    snaptrain_best_params: state.best?.params ?? null,
  }
  if (c.tablePath !== undefined) attrs.table_path = c.tablePath
  if (c.features) attrs.features = c.features
  if (c.filter) attrs.filter = c.filter
  if (c.validTable) attrs.valid_table = c.validTable
  if (c.validVersion !== undefined) attrs.valid_table_version = c.validVersion
  if (c.validFraction !== undefined) attrs.valid_fraction = c.validFraction
  if (c.warmStart)
    attrs.warm_start = { journal: c.warmStart.journal, study: c.warmStart.study, trials: c.warmStart.trials.length }
  return attrs
}

/** The space's fixed values. */
function fixedOf(space: SearchSpace): Record<string, unknown> {
  return Object.fromEntries(Object.entries(space).flatMap(([k, d]) => (d.type === 'fixed' ? [[k, d.value]] : [])))
}

/** A CREATE_TRIAL operation's fields for one trial (Optuna's template-trial form). */
function trialFields(
  t: TrialRecord,
  state: OptunaTrialState,
  space: SearchSpace,
  updatedAt: string,
): Record<string, unknown> {
  const distributions: Record<string, string> = {}
  const params: Record<string, number> = {}
  const fixed: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(t.config)) {
    const d = space[k]
    const internal = d && internalValue(d, v)
    if (internal === undefined) fixed[k] = v
    else {
      distributions[k] = distributionJson(d)
      params[k] = internal
    }
  }
  const curve = t.curve.filter(p => Number.isFinite(p.metric))
  const value = state === 'COMPLETE' ? t.metric : state === 'PRUNED' ? (curve.at(-1)?.metric ?? t.metric) : null
  const userAttrs: Record<string, unknown> = {
    snaptrain_trial: t.id,
    snaptrain_status: t.status,
    bracket: t.bracket,
    rung: t.rung,
    resource: t.resource,
    gpu_seconds: t.gpuSeconds,
  }
  if (t.curve.length) userAttrs.reached = t.curve.at(-1)!.resource
  if (t.promotedFrom !== undefined) userAttrs.promoted_from = t.promotedFrom
  if (t.params) userAttrs.train_params = t.params
  if (Object.keys(fixed).length) userAttrs.fixed_params = fixed
  if (t.error !== undefined) userAttrs.error = t.error
  else if (state === 'FAIL') userAttrs.error = 'no finite metric'
  const fields: Record<string, unknown> = {
    datetime_start: state === 'WAITING' ? null : pyTime(t.startedAt ?? updatedAt),
    state: OPTUNA_STATES.indexOf(state),
    value: value ?? null,
    values: null,
  }
  // Optuna reads datetime_complete whenever the key is there: only finished trials have one.
  if (state !== 'RUNNING' && state !== 'WAITING') fields.datetime_complete = pyTime(t.endedAt ?? updatedAt)
  return {
    ...fields,
    distributions,
    params,
    user_attrs: userAttrs,
    system_attrs: {},
    intermediate_values: Object.fromEntries(curve.map(p => [String(p.resource), p.metric])),
  }
}

/** Optuna's own choice types; any other choice (an array, an object) is written as its JSON text. */
function choiceValue(c: unknown): unknown {
  return c === null || ['boolean', 'number', 'string'].includes(typeof c) ? c : JSON.stringify(c)
}

/** `optuna.distributions.distribution_to_json` of a domain (attribute order as Optuna writes it). */
function distributionJson(d: ParamDomain): string {
  switch (d.type) {
    case 'uniform':
    case 'loguniform':
      return JSON.stringify({
        name: 'FloatDistribution',
        attributes: { step: null, low: d.low, high: d.high, log: d.type === 'loguniform' },
      })
    case 'int':
      return JSON.stringify({
        name: 'IntDistribution',
        attributes: { log: d.log === true, step: 1, low: d.low, high: d.high },
      })
    case 'categorical':
      return JSON.stringify({ name: 'CategoricalDistribution', attributes: { choices: d.choices.map(choiceValue) } })
    case 'fixed':
      throw new Error('a fixed parameter has no distribution')
  }
}

/** A searchable value's internal form (a choice's index); undefined for a fixed or foreign one. */
function internalValue(d: ParamDomain, v: unknown): number | undefined {
  if (d.type === 'fixed') return undefined
  if (d.type === 'categorical') {
    const i = choiceIndex(d.choices, v)
    return i < 0 ? undefined : i
  }
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** An ISO time as Optuna writes one: local-free, microseconds (`datetime.isoformat`); here UTC. */
function pyTime(iso: string): string {
  return new Date(iso).toISOString().replace(/\.(\d{3})Z$/, '.$1000')
}

// ——— reading ———

interface MutableTrial extends JournalTrial {
  studyId: number
}

/** What replaying a journal leaves: its live studies and the id the next new study gets. */
interface Replay {
  studies: JournalStudy[]
  nextStudyId: number
}

/**
 * The studies of a journal as Optuna's JournalStorage replays it: studies by id (a second
 * CREATE_STUDY of a name is ignored, a deleted study is gone), trials numbered per study,
 * operations on a finished trial ignored. A last line that is not JSON is ignored (Optuna's reader
 * skips a write in progress); any other is an error naming `source` and the line. Python's
 * NaN / Infinity values read as missing.
 */
export function readJournal(text: string, source = 'journal'): JournalStudy[] {
  return replayJournal(text, source).studies
}

function replayJournal(text: string, source: string): Replay {
  const studies = new Map<number, JournalStudy>()
  const trials: MutableTrial[] = []
  let nextStudyId = 0
  const lines = text.split('\n')
  while (lines.length && lines.at(-1)!.trim() === '') lines.pop()
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return
    const at = `${source} line ${i + 1}`
    const log = parseLine(raw, i === lines.length - 1, at)
    if (log === undefined) return
    if (typeof log !== 'object' || log === null) throw new RangeError(`${at}: not a journal operation`)
    const trial = (): MutableTrial | undefined => {
      const t = trials[log.trial_id as number]
      return t && !['COMPLETE', 'PRUNED', 'FAIL'].includes(t.state) ? t : undefined
    }
    switch (log.op_code) {
      case OP.CREATE_STUDY: {
        const name = String(log.study_name)
        if ([...studies.values()].some(s => s.name === name)) break
        const directions = (log.directions as number[]).map(d => DIRECTIONS[d] ?? 'not_set')
        studies.set(nextStudyId, { id: nextStudyId, name, directions, userAttrs: {}, trials: [] })
        nextStudyId++
        break
      }
      case OP.DELETE_STUDY:
        studies.delete(log.study_id as number)
        break
      case OP.SET_STUDY_USER_ATTR:
        Object.assign(studies.get(log.study_id as number)?.userAttrs ?? {}, log.user_attr)
        break
      case OP.CREATE_TRIAL: {
        const study = studies.get(log.study_id as number)
        if (!study) break
        const distributions = (log.distributions ?? {}) as Record<string, string>
        const params: Record<string, unknown> = {}
        for (const [k, p] of Object.entries((log.params ?? {}) as Record<string, number>))
          params[k] = externalValue(parseDistribution(distributions[k], `${at}: params.${k}`), p)
        const values = log.values as number[] | null | undefined
        const t: MutableTrial = {
          studyId: study.id,
          number: study.trials.length,
          state: OPTUNA_STATES[(log.state as number | undefined) ?? 0] ?? 'RUNNING',
          value: finiteOrUndefined(values?.length === 1 ? values[0] : log.value),
          params,
          intermediate: Object.entries((log.intermediate_values ?? {}) as Record<string, number>)
            .filter(([, v]) => typeof v === 'number')
            .map(([s, v]) => [Number(s), v]),
          userAttrs: { ...((log.user_attrs ?? {}) as Record<string, unknown>) },
        }
        trials.push(t)
        study.trials.push(t)
        break
      }
      case OP.SET_TRIAL_PARAM: {
        const t = trial()
        if (t) {
          const d = parseDistribution(log.distribution as string, `${at}: ${String(log.param_name)}`)
          t.params[String(log.param_name)] = externalValue(d, log.param_value_internal as number)
        }
        break
      }
      case OP.SET_TRIAL_STATE_VALUES: {
        const t = trial()
        if (!t) break
        t.state = OPTUNA_STATES[log.state as number] ?? t.state
        const values = log.values as number[] | null
        if (values) t.value = finiteOrUndefined(values.length === 1 ? values[0] : undefined)
        break
      }
      case OP.SET_TRIAL_INTERMEDIATE_VALUE: {
        const t = trial()
        const v = log.intermediate_value
        if (t && typeof v === 'number') {
          t.intermediate = t.intermediate.filter(([s]) => s !== log.step)
          t.intermediate.push([log.step as number, v])
        }
        break
      }
      case OP.SET_TRIAL_USER_ATTR:
        Object.assign(trial()?.userAttrs ?? {}, log.user_attr)
        break
      case OP.SET_STUDY_SYSTEM_ATTR:
      case OP.SET_TRIAL_SYSTEM_ATTR:
        break
      default:
        throw new RangeError(`${at}: unknown op_code ${JSON.stringify(log.op_code)} (an Optuna 3.x journal has 0 … 9)`)
    }
  })
  for (const t of trials) t.intermediate.sort((a, b) => a[0] - b[0])
  return { studies: [...studies.values()], nextStudyId }
}

/** One journal line as an object; undefined for a last line cut short. Python's NaN / ±Infinity become null. */
function parseLine(raw: string, last: boolean, at: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(raw) as Record<string, unknown>
  } catch {
    try {
      return JSON.parse(raw.replace(/(?<=[:,[]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, 'null')) as Record<string, unknown>
    } catch (e) {
      if (last) return undefined
      throw new RangeError(`${at}: not JSON (${(e as Error).message}): ${raw.slice(0, 80)}`)
    }
  }
}

function finiteOrUndefined(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** A distribution as the journal holds it (current names, the pre-3.0 ones, or the abbreviated form). */
type Distribution = { kind: 'float' } | { kind: 'int' } | { kind: 'categorical'; choices: unknown[] }

function parseDistribution(json: unknown, at: string): Distribution {
  let d: Record<string, unknown>
  try {
    d = JSON.parse(String(json)) as Record<string, unknown>
  } catch {
    throw new RangeError(`${at}: distribution is not JSON: ${String(json).slice(0, 80)}`)
  }
  const name = (d.name ?? d.type) as string
  const attrs = (d.attributes ?? d) as Record<string, unknown>
  if (/^(Float|Uniform|LogUniform|DiscreteUniform)Distribution$|^float$/.test(name)) return { kind: 'float' }
  if (/^Int(Uniform|LogUniform)?Distribution$|^int$/.test(name)) return { kind: 'int' }
  if (/^CategoricalDistribution$|^categorical$/.test(name) && Array.isArray(attrs.choices))
    return { kind: 'categorical', choices: attrs.choices }
  throw new RangeError(`${at}: unknown distribution ${JSON.stringify(name)}`)
}

/** `distribution.to_external_repr(internal)`. */
function externalValue(d: Distribution, internal: number): unknown {
  if (d.kind === 'float') return internal
  if (d.kind === 'int') return Math.trunc(internal)
  return d.choices[Math.trunc(internal)]
}

// ——— warm start ———

/** What a warm start reads from a journal. */
export interface WarmStartOptions {
  /** The journal as the user named it (file name: messages and SweepConfig.warmStart.journal). */
  journal: string
  /** The study to read; default the journal's only study. */
  study?: string
}

/**
 * The finished (COMPLETE, finite value) trials of a journal's study as `config`'s warm start,
 * each checked against the sweep's space: a parameter outside it, a value its domain does not
 * hold, or a searched parameter the trial lacks is an error naming the journal, study, trial and
 * parameter. The resource parameter (num_round / epochs), which a rung sweep's trials do not
 * carry, is taken from the trial's last intermediate step (clamped to its domain) when missing.
 * The study's direction must be the sweep's, and a study snaptrain wrote must have its metric.
 */
export function warmStartFromJournal(
  text: string,
  config: SweepConfig,
  family: SweepFamily,
  o: WarmStartOptions,
): WarmStart {
  const study = pickStudy(readJournal(text, o.journal), o)
  const at = `${o.journal}: study ${JSON.stringify(study.name)}`
  const direction = minimizes(config) ? 'minimize' : 'maximize'
  if (study.directions.length !== 1)
    throw new RangeError(`${at}: has ${study.directions.length} objectives; a sweep warm-starts from one`)
  if (study.directions[0] !== direction)
    throw new RangeError(
      `${at}: direction ${study.directions[0]}, but the sweep's metric ${config.metric ?? 'auc'} is to ${direction}`,
    )
  const metric = config.metric ?? 'auc'
  if (study.userAttrs.metric !== undefined && study.userAttrs.metric !== metric)
    throw new RangeError(`${at}: its trials measured ${JSON.stringify(study.userAttrs.metric)}, the sweep ${metric}`)
  const space = parseSpace(config.space ?? defaultSpace(family))
  const trials = study.trials
    .filter(t => t.state === 'COMPLETE' && t.value !== undefined)
    .map(t => priorTrial(t, space, family.resource.param, `${at}, trial ${t.number}: params`))
  if (trials.length === 0) throw new RangeError(`${at}: no COMPLETE trial with a value to warm-start from`)
  return { journal: o.journal, study: study.name, trials }
}

function pickStudy(studies: JournalStudy[], o: WarmStartOptions): JournalStudy {
  const names = studies.map(s => JSON.stringify(s.name)).join(', ')
  if (o.study !== undefined) {
    const s = studies.find(x => x.name === o.study)
    if (!s)
      throw new RangeError(`${o.journal}: no study named ${JSON.stringify(o.study)} (studies: ${names || 'none'})`)
    return s
  }
  if (studies.length === 1) return studies[0]
  throw new RangeError(
    studies.length === 0
      ? `${o.journal}: holds no study`
      : `${o.journal}: holds ${studies.length} studies (${names}); name the study to seed from`,
  )
}

/** One COMPLETE trial as a prior trial of the sweep (see warmStartFromJournal). */
function priorTrial(t: JournalTrial, space: SearchSpace, resourceParam: string, at: string): PriorTrial {
  const config: TrialConfig = {}
  for (const [k, v] of Object.entries(t.params)) config[k] = spaceValue(space[k], v)
  const resource = t.intermediate.at(-1)?.[0]
  const rd = space[resourceParam]
  if (!(resourceParam in config) && rd && rd.type === 'int')
    config[resourceParam] = Math.min(rd.high, Math.max(rd.low, Math.round(resource ?? rd.high)))
  for (const [k, d] of Object.entries(space)) if (d.type === 'fixed' && !(k in config)) config[k] = d.value
  checkConfig(space, config, at)
  const sorted = Object.fromEntries(
    Object.keys(config)
      .sort()
      .map(k => [k, config[k]]),
  )
  const p: PriorTrial = { number: t.number, config: sorted, metric: t.value! }
  if (resource !== undefined) p.resource = resource
  return p
}

/** A journal value in the space's terms: a choice written as JSON text (choiceValue) read back. */
function spaceValue(d: ParamDomain | undefined, v: unknown): unknown {
  if (d?.type !== 'categorical' || typeof v !== 'string' || choiceIndex(d.choices, v) >= 0) return v
  try {
    const parsed: unknown = JSON.parse(v)
    return choiceIndex(d.choices, parsed) >= 0 ? parsed : v
  } catch {
    return v
  }
}

/** The best metric among a warm start's trials, by the sweep's direction (the CLI's summary and the page's form line). */
export function warmStartBest(w: WarmStart, config: SweepConfig): number {
  const values = w.trials.map(t => t.metric)
  return minimizes(config) ? Math.min(...values) : Math.max(...values)
}
