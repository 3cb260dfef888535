/**
 * Search spaces: parse and validate a space JSON, sample it, and map configurations to and from
 * the unit cube (one coordinate per searchable parameter, keys sorted) that TPE and the importance
 * estimate work in. d = number of searchable (non-fixed) parameters.
 */
import type { ModelParamCheck, ParamDomain, SearchSpace, TrialConfig } from './types.ts'
import type { Rng } from '../util/rng.ts'

const TYPES = ['uniform', 'loguniform', 'int', 'categorical', 'fixed'] as const

/**
 * Validates a space JSON (parameter → domain, or a bare value = fixed) into a SearchSpace with
 * keys sorted. With `model`, names must be the model's parameters, every bound / choice must be a
 * value the model accepts, and the configuration in the middle of the space, over `fixed` (the
 * sweep's parameters outside the space), must be accepted as a whole (e.g. recsys weight_decay
 * needs optimizer 'adamw'). Throws RangeError naming the parameter (`space.eta: …`).
 */
export function parseSpace(raw: unknown, model?: ModelParamCheck, fixed: Record<string, unknown> = {}): SearchSpace {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new RangeError(`space must be a JSON object of parameter → domain, got ${JSON.stringify(raw)}`)
  }
  const out: SearchSpace = {}
  for (const name of Object.keys(raw).sort()) {
    const d = parseDomain(name, (raw as Record<string, unknown>)[name])
    if (model) checkModel(model, name, d)
    out[name] = d
  }
  if (model)
    checkModelConfig(model, {
      ...withoutParams(fixed, Object.keys(out)),
      ...decode(
        out,
        searchDims(out).map(() => 0.5),
      ),
    })
  return out
}

function parseDomain(name: string, v: unknown): ParamDomain {
  const isDomain = typeof v === 'object' && v !== null && !Array.isArray(v) && 'type' in v
  if (!isDomain) return { type: 'fixed', value: v }
  const d = v as Record<string, unknown>
  const fail = (msg: string): never => {
    throw new RangeError(`space.${name}: ${msg}`)
  }
  if (!TYPES.includes(d.type as never)) fail(`unknown type ${JSON.stringify(d.type)} (one of ${TYPES.join(', ')})`)
  if (d.type === 'fixed') return { type: 'fixed', value: d.value }
  if (d.type === 'categorical') {
    if (!Array.isArray(d.choices) || d.choices.length === 0)
      fail(`categorical needs a non-empty "choices" array, got ${JSON.stringify(d.choices)}`)
    return { type: 'categorical', choices: [...(d.choices as unknown[])] }
  }
  const { low, high } = d
  if (typeof low !== 'number' || !Number.isFinite(low) || typeof high !== 'number' || !Number.isFinite(high)) {
    fail(
      `${d.type} needs finite numbers "low" and "high", got low ${JSON.stringify(low)}, high ${JSON.stringify(high)}`,
    )
  }
  const lo = low as number,
    hi = high as number
  if (lo > hi) fail(`low ${lo} > high ${hi}`)
  const log = d.type === 'loguniform' || (d.type === 'int' && d.log === true)
  if (log && lo <= 0) fail(`log scale needs low > 0, got ${lo}`)
  if (d.type === 'int') {
    if (!Number.isInteger(lo) || !Number.isInteger(hi)) fail(`int needs integer bounds, got low ${lo}, high ${hi}`)
    return d.log === true ? { type: 'int', low: lo, high: hi, log: true } : { type: 'int', low: lo, high: hi }
  }
  return { type: d.type as 'uniform' | 'loguniform', low: lo, high: hi }
}

function checkModel(model: ModelParamCheck, name: string, d: ParamDomain): void {
  if (!model.names.includes(name))
    throw new RangeError(`space.${name}: unknown parameter for ${model.model} (known: ${model.names.join(', ')})`)
  if (d.type === 'fixed') checkModelValue(model, name, d.value)
  else if (d.type === 'categorical') d.choices.forEach(c => checkModelValue(model, name, c))
  else {
    checkModelValue(model, name, d.low)
    checkModelValue(model, name, d.high)
  }
}

/** Throws RangeError `space.<name>: …` when the model refuses `value` for `name` alone. */
function checkModelValue(model: ModelParamCheck, name: string, value: unknown): void {
  try {
    model.check(model.probe?.(name, value) ?? { [name]: value })
  } catch (e) {
    throw new RangeError(`space.${name}: ${(e as Error).message}`)
  }
}

/** Throws RangeError when the model refuses `config` as a whole (e.g. weight_decay without adamw). */
function checkModelConfig(model: ModelParamCheck, config: TrialConfig): void {
  try {
    model.check(config)
  } catch (e) {
    throw new RangeError(
      `space: a configuration from the middle of this space is refused by ${model.model}: ${(e as Error).message}`,
    )
  }
}

/**
 * Checks a configuration from elsewhere (a prior trial) against `space`: every parameter must be
 * in the space with a value its domain holds (a fixed one: that value), and every searchable
 * parameter must be there. Throws RangeError `<at>.<name>: …`.
 */
export function checkConfig(space: SearchSpace, config: TrialConfig, at: string): void {
  const fail = (name: string, msg: string): never => {
    throw new RangeError(`${at}.${name}: ${msg}`)
  }
  for (const [name, v] of Object.entries(config)) {
    const d = space[name]
    if (!d) fail(name, `not in the sweep's space (space: ${Object.keys(space).join(', ') || 'empty'})`)
    const why = outsideDomain(d, v)
    if (why) fail(name, why)
  }
  for (const name of searchDims(space)) if (!(name in config)) fail(name, 'missing: the sweep searches it')
}

/** Why `v` is not a value of `d`, or undefined when it is. */
function outsideDomain(d: ParamDomain, v: unknown): string | undefined {
  const got = JSON.stringify(v)
  switch (d.type) {
    case 'fixed':
      return got === JSON.stringify(d.value)
        ? undefined
        : `fixed at ${JSON.stringify(d.value)} in the space, got ${got}`
    case 'categorical':
      return choiceIndex(d.choices, v) >= 0
        ? undefined
        : `${got} is not one of the choices ${JSON.stringify(d.choices)}`
    case 'int':
    case 'uniform':
    case 'loguniform': {
      if (d.type === 'int' && !Number.isInteger(v)) return `must be an integer, got ${got}`
      if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a finite number, got ${got}`
      // A journal written elsewhere may round a bound in its last digit.
      const eps = 1e-9 * Math.max(1, Math.abs(d.low), Math.abs(d.high))
      return v >= d.low - eps && v <= d.high + eps ? undefined : `${v} is outside [${d.low}, ${d.high}]`
    }
  }
}

/** Searchable (non-fixed) parameter names, sorted: the unit cube's coordinate order. */
export function searchDims(space: SearchSpace): string[] {
  return Object.keys(space)
    .sort()
    .filter(k => space[k].type !== 'fixed')
}

/** `space` without `names` (e.g. the resource parameter Hyperband sets itself). */
export function withoutParams<T extends Record<string, unknown>>(space: T, names: readonly string[]): T {
  return Object.fromEntries(Object.entries(space).filter(([k]) => !names.includes(k))) as T
}

/** One configuration drawn uniformly (log-uniformly on log scales); one rng draw per searchable dim. */
export function sample(space: SearchSpace, rng: Rng): TrialConfig {
  return decode(
    space,
    searchDims(space).map(() => rng.next()),
  )
}

/** A domain's value at unit coordinate u ∈ [0, 1]. */
export function decodeDim(d: ParamDomain, u: number): unknown {
  const t = Math.min(Math.max(u, 0), 1)
  switch (d.type) {
    case 'fixed':
      return clone(d.value)
    case 'categorical':
      return clone(d.choices[Math.min(d.choices.length - 1, Math.floor(t * d.choices.length))])
    case 'uniform':
      return d.low + t * (d.high - d.low)
    case 'loguniform':
      return Math.exp(Math.log(d.low) + t * (Math.log(d.high) - Math.log(d.low)))
    case 'int': {
      // Each integer owns an equal share of [lo − ½, hi + ½] (on the log scale for log ints).
      if (!d.log) return Math.min(d.high, d.low + Math.floor(t * (d.high - d.low + 1)))
      const a = Math.log(d.low - 0.5),
        b = Math.log(d.high + 0.5)
      return Math.min(d.high, Math.max(d.low, Math.round(Math.exp(a + t * (b - a)))))
    }
  }
}

/** A value's unit coordinate (inverse of decodeDim; categoricals map to their cell centre). */
export function encodeDim(d: ParamDomain, v: unknown): number {
  const x = Number(v)
  switch (d.type) {
    case 'fixed':
      return 0.5
    case 'categorical':
      return (Math.max(0, choiceIndex(d.choices, v)) + 0.5) / d.choices.length
    case 'uniform':
      return d.high === d.low ? 0.5 : clamp01((x - d.low) / (d.high - d.low))
    case 'loguniform':
      return d.high === d.low ? 0.5 : clamp01(Math.log(x / d.low) / Math.log(d.high / d.low))
    case 'int': {
      if (!d.log) return clamp01((x - d.low + 0.5) / (d.high - d.low + 1))
      const a = Math.log(d.low - 0.5),
        b = Math.log(d.high + 0.5)
      return clamp01((Math.log(x) - a) / (b - a))
    }
  }
}

/** Configuration → unit-cube point, one coordinate per searchDims entry. */
export function encode(space: SearchSpace, config: TrialConfig): number[] {
  return searchDims(space).map(k => encodeDim(space[k], config[k]))
}

/** Unit-cube point (length d, searchDims order) → configuration, fixed values included. */
export function decode(space: SearchSpace, u: readonly number[]): TrialConfig {
  const dims = searchDims(space)
  const out: TrialConfig = {}
  for (const k of Object.keys(space).sort()) {
    const i = dims.indexOf(k)
    out[k] = decodeDim(space[k], i < 0 ? 0.5 : u[i])
  }
  return out
}

/** Index of `v` among `choices` by JSON equality (choices may be arrays), −1 when absent. */
export function choiceIndex(choices: readonly unknown[], v: unknown): number {
  const key = JSON.stringify(v)
  return choices.findIndex(c => JSON.stringify(c) === key)
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0.5
}

function clone<T>(v: T): T {
  return typeof v === 'object' && v !== null ? (JSON.parse(JSON.stringify(v)) as T) : v
}
