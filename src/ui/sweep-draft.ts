/**
 * The sweep setup form as data: what the user typed (SweepForm, all text where the user types
 * numbers, so half-typed input is kept as is) and its conversion to a SweepConfig with the
 * form-level errors (bad JSON, a number that is not one, no features) named by field. The
 * engine's own validation (planSweep) runs on the result. A warm start is an uploaded Optuna
 * journal, read with tune/optuna.ts `warmStartFromJournal` as `snaptrain sweep --warm-start-journal`.
 */
import { warmStartBest, warmStartFromJournal } from '../tune/optuna.ts'
import type { WarmStart } from '../tune/types.ts'
import { familyOf } from '../models/registry.ts'
import { sweepMetric } from '../sweep/plan.ts'
import type { StrategyName, SweepConfig, SweepModel } from './types.ts'
import { DEFAULT_VALID_FRACTION } from '../eval/validation.ts'

/** What the setup form holds. */
export interface SweepForm {
  name: string
  model: SweepModel
  label: string
  /** Chosen feature columns (all non-label columns by default). */
  features: string[]
  filter: string
  validMode: 'fraction' | 'table'
  validFraction: string
  validTable: string
  /** Search space JSON text. */
  spaceText: string
  strategy: StrategyName
  trials: string
  parallel: string
  seed: string
  minResource: string
  maxResource: string
  eta: string
  /** '' = the objective's own default (sweep/plan.ts sweepMetric). */
  metric: NonNullable<SweepConfig['metric']>
  /** An uploaded Optuna journal to warm-start from: its file name and text. */
  journal?: { name: string; text: string }
  /** The journal's study to read ('' = its only study). */
  journalStudy: string
}

/** The table a sweep runs on. */
export interface SweepTableRef {
  url: string
  version?: number
}

/** Strategies offered, in menu order. */
export const STRATEGIES: StrategyName[] = ['hyperband', 'asha', 'random', 'grid', 'tpe', 'bohb']

/**
 * A fresh form for `model` with `space` (defaultSpace) filled in and every feature chosen. η and
 * the resource range start blank: blank means the engine's per-model default (planSweep shows
 * what it costs), so the form never disagrees with the engine.
 */
export function defaultForm(
  model: SweepModel,
  space: Record<string, unknown>,
  label: string,
  features: string[],
): SweepForm {
  return {
    name: '',
    model,
    label,
    features,
    filter: '',
    validMode: 'fraction',
    validFraction: String(DEFAULT_VALID_FRACTION),
    validTable: '',
    spaceText: JSON.stringify(space, null, 2),
    strategy: 'hyperband',
    trials: '',
    parallel: '',
    seed: '0',
    minResource: '',
    maxResource: '',
    eta: '',
    metric: '',
    journalStudy: '',
  }
}

/** The form of an existing sweep's config (Clone and edit); `allFeatures` when the config chose none. */
export function formFromConfig(c: SweepConfig, allFeatures: string[], space: Record<string, unknown>): SweepForm {
  const txt = (v: number | undefined) => (v === undefined ? '' : String(v))
  return {
    name: c.name ? `${c.name} (copy)` : '',
    model: c.model,
    label: c.label,
    features: c.features ?? allFeatures.filter(f => f !== c.label),
    filter: c.filter ?? '',
    validMode: c.validTable ? 'table' : 'fraction',
    validFraction: txt(c.validFraction ?? DEFAULT_VALID_FRACTION),
    validTable: c.validTable ?? '',
    spaceText: JSON.stringify(c.space ?? space, null, 2),
    strategy: c.strategy,
    trials: txt(c.trials),
    parallel: txt(c.parallel),
    seed: txt(c.seed ?? 0),
    minResource: txt(c.minResource),
    maxResource: txt(c.maxResource),
    eta: txt(c.eta),
    metric: c.metric ?? '',
    // The journal's text is not in the config: a clone is warm-started only from a journal uploaded again.
    journalStudy: '',
  }
}

/** `text` as a number, undefined when blank; pushes an error naming `field` when it is not a finite number. */
function num(text: string, field: string, errors: string[]): number | undefined {
  if (text.trim() === '') return undefined
  const v = Number(text)
  if (!Number.isFinite(v)) errors.push(`${field}: "${text}" is not a number`)
  return Number.isFinite(v) ? v : undefined
}

/** The space JSON text as an object, or an error naming the space. */
function parseSpace(text: string, errors: string[]): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text)
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>
    errors.push(
      'space: must be a JSON object of parameter → domain, e.g. {"eta": {"type": "loguniform", "low": 0.01, "high": 0.3}}',
    )
  } catch (e) {
    errors.push(`space: not valid JSON (${(e as Error).message})`)
  }
  return undefined
}

/**
 * The config the form describes for `table`, or the form-level errors. `allFeatures` are the
 * candidate feature columns: when every one is chosen, `features` is left out (all by default).
 */
export function draftConfig(
  form: SweepForm,
  table: SweepTableRef,
  allFeatures: string[],
): { config?: SweepConfig; errors: string[] } {
  const errors: string[] = []
  if (!form.label) errors.push('label: choose the column to predict')
  const candidates = allFeatures.filter(f => f !== form.label)
  const features = form.features.filter(f => candidates.includes(f))
  if (features.length === 0) errors.push('features: choose at least one feature column')
  const space = parseSpace(form.spaceText, errors)
  const validFraction = form.validMode === 'fraction' ? num(form.validFraction, 'validation share', errors) : undefined
  if (form.validMode === 'table' && !form.validTable.trim())
    errors.push('validation table: give its URL, or use a validation share')
  const config: SweepConfig = {
    model: form.model,
    table: table.url,
    version: table.version,
    label: form.label,
    strategy: form.strategy,
    space,
    features: features.length === candidates.length ? undefined : features,
    filter: form.filter.trim() || undefined,
    validFraction,
    validTable: form.validMode === 'table' ? form.validTable.trim() : undefined,
    trials: num(form.trials, 'trials', errors),
    parallel: num(form.parallel, 'parallel', errors),
    seed: num(form.seed, 'seed', errors),
    minResource: num(form.minResource, 'min resource', errors),
    maxResource: num(form.maxResource, 'max resource', errors),
    eta: num(form.eta, 'η', errors),
    metric: form.metric || undefined,
    name: form.name.trim() || undefined,
  }
  for (const k of Object.keys(config) as Array<keyof SweepConfig>) if (config[k] === undefined) delete config[k]
  config.metric = sweepMetric(config)
  if (form.journal && !errors.length) {
    try {
      config.warmStart = warmStartFromJournal(form.journal.text, config, familyOf(config.model), {
        journal: form.journal.name,
        study: form.journalStudy || undefined,
      })
    } catch (e) {
      errors.push(`warm start: ${(e as Error).message}`)
    }
  }
  return errors.length ? { errors } : { config, errors }
}

/** The line the form shows for a warm start: how many trials seed the sweep and the best of their values. */
export function warmStartLine(w: WarmStart, config: SweepConfig): string {
  const best = warmStartBest(w, config)
  const n = w.trials.length
  return `seeded ${n} trial${n === 1 ? '' : 's'} from study ${JSON.stringify(w.study)} of ${w.journal}, best value ${best.toFixed(5)} (${config.metric ?? 'auc'}); the first trial runs its configuration`
}
