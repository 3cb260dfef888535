/**
 * What the page proposes for the adapter it runs on, and what work costs there in minutes.
 * A software adapter (the browser's fallback, e.g. SwiftShader: WebGPU on the CPU) gets smaller
 * first-run parameters and a smaller default sweep, with the reason said under the form. Costs in
 * minutes come from a measured rate: each finished run keeps its rounds (GBDT) or steps
 * (recommender) per second under its adapter and model in localStorage, and the next estimate on
 * that adapter and model divides by it — saying which run it came from. No rate yet: no minutes.
 */
import { adapterLabel } from '../gpu/device.ts'
import { familyOf } from '../models/registry.ts'
import type { AdapterView } from './types.ts'

/** True for a fallback adapter or one whose name says SwiftShader (WebGPU in software, on the CPU). */
export function softwareAdapter(a: AdapterView | undefined): boolean {
  if (!a) return false
  return a.isFallbackAdapter || /swiftshader/i.test(`${a.vendor} ${a.architecture} ${a.device} ${a.description}`)
}

/**
 * First-run parameters on a software adapter, by family: GBDT shallower trees over fewer bins and
 * half the rounds; the recommender a smaller model over larger batches (a quarter of the steps).
 */
const SOFTWARE_PARAMS: Record<string, Record<string, unknown>> = {
  gbdt: { max_depth: 4, eta: 0.3, max_bin: 64, num_round: 10 },
  recsys: { epochs: 1, batch_size: 4096, embedding_dim: 8, layers: [32], lr: 0.003, eval_every: 10 },
}

/** A software adapter's sweep resource ceiling (max_resource) by family: a third of the usual. */
const SOFTWARE_MAX_RESOURCE: Record<string, number> = { gbdt: 27, recsys: 3, gblinear: 9 }

/** The parameters the train form starts with for `model` on `a` (JSON text). */
export function pageParamsFor(model: string, a: AdapterView | undefined): string {
  const small = softwareAdapter(a) ? SOFTWARE_PARAMS[model] : undefined
  return small ? JSON.stringify(small, null, 2) : familyOf(model).pageParams
}

/** The default sweep's max_resource on `a` ('' = the family's own, as the form leaves it). */
export function sweepMaxResourceFor(model: string, a: AdapterView | undefined): string {
  const n = softwareAdapter(a) ? SOFTWARE_MAX_RESOURCE[model] : undefined
  return n === undefined ? '' : String(n)
}

/** The line under a form that says why its defaults are smaller; undefined on a hardware adapter. */
export function softwareNote(a: AdapterView | undefined, what: 'run' | 'sweep'): string | undefined {
  if (!softwareAdapter(a)) return undefined
  const name = a!.vendor || a!.description || 'fallback'
  return what === 'run'
    ? `Software adapter (${name}): WebGPU runs on the CPU here, so the proposed parameters are smaller (fewer rounds, shallower trees; a smaller recommender) — raise them on a GPU.`
    : `Software adapter (${name}): WebGPU runs on the CPU here, so the default sweep's largest budget is smaller — raise max resource on a GPU.`
}

/** A measured speed: `perSecond` rounds or steps a second of the run `model` on `adapter` finished at `at`. */
export interface Rate {
  perSecond: number
  unit: 'round' | 'step'
  at: string
}

const KEY = 'snaptrain.rate'

/** The localStorage key of a rate: per adapter (adapterLabel: what a run's summary names) and model. */
export function rateKey(adapter: string, model: string): string {
  return `${KEY}:${adapter}:${model}`
}

/** The rate last kept for `model` on the adapter `a` (its adapterLabel), if any. */
export function readRate(
  a: AdapterView | undefined,
  model: string,
  storage: Storage | undefined = store(),
): Rate | undefined {
  if (!a || !storage) return undefined
  try {
    const r = JSON.parse(storage.getItem(rateKey(adapterLabel(a), model)) ?? 'null') as Rate | null
    return r && r.perSecond > 0 && Number.isFinite(r.perSecond) ? r : undefined
  } catch {
    return undefined
  }
}

/** Keeps a finished run's speed: `done` rounds or steps in `seconds` on `adapter` (the summary's label). */
export function keepRate(
  adapter: string,
  model: string,
  done: number,
  seconds: number,
  unit: 'round' | 'step',
  storage: Storage | undefined = store(),
): void {
  if (!storage || !(done > 0 && seconds > 0)) return
  const rate: Rate = { perSecond: done / seconds, unit, at: new Date().toISOString() }
  try {
    storage.setItem(rateKey(adapter, model), JSON.stringify(rate))
  } catch {
    // A full or refused storage only loses the estimate.
  }
}

/**
 * "about 4 min (120 rounds at 0.5 rounds/s, measured on this adapter's last gbdt run; …)"; ''
 * without a rate. A rate in other units than asked (steps vs rounds) gives '' too. `assumed`
 * ends the parenthesis: what the count took for granted.
 */
export function minutesText(
  units: number,
  unit: 'round' | 'step',
  model: string,
  rate: Rate | undefined,
  assumed = 'larger trees or tables take longer',
): string {
  if (!rate || rate.unit !== unit || !(units > 0)) return ''
  const s = units / rate.perSecond
  const time = s < 60 ? `${Math.max(1, Math.round(s))} s` : `${Math.round(s / 60)} min`
  const speed = rate.perSecond >= 1 ? rate.perSecond.toFixed(1) : rate.perSecond.toPrecision(2)
  return `about ${time} (${units} ${unit}s at ${speed} ${unit}s/s, measured on this adapter's last ${model} run; ${assumed})`
}

/** What a recommender estimate rests on: the open table's live rows (undefined: its log has no stats). */
export interface StepsBasis {
  rows: number | undefined
  /** batch_size; undefined = the recommender's default (said so). */
  batch: number | undefined
  epochs: number
  /** The validation share of rows; undefined = validation from another table (every row trains). */
  validFraction: number | undefined
  /** Where the batch size came from when not the parameters' own, e.g. "the space's smallest". */
  batchFrom?: string
}

/**
 * A sweep's batch size for the step count: a fixed value as is; a searched one at its smallest
 * (categorical choices, or an int range's low: the most steps, so an upper bound); none = the default.
 */
export function sweepBatch(
  model: string,
  space: Record<string, unknown> | undefined,
  fixed?: Record<string, unknown>,
): Pick<StepsBasis, 'batch' | 'batchFrom'> {
  const param = familyOf(model).batches?.param
  if (param === undefined) return { batch: undefined }
  const d = space?.[param] ?? fixed?.[param]
  if (typeof d === 'number') return { batch: d }
  const o = (d ?? {}) as { type?: string; choices?: unknown[]; low?: unknown; value?: unknown }
  if (o.type === 'fixed' && typeof o.value === 'number') return { batch: o.value }
  const sizes = o.type === 'categorical' ? (o.choices ?? []) : o.type === 'int' ? [o.low] : []
  const n = sizes.filter((v): v is number => typeof v === 'number' && v > 0)
  return n.length ? { batch: Math.min(...n), batchFrom: "the space's smallest: an upper bound" } : { batch: undefined }
}

/**
 * The recommender's cost in minutes at the measured steps/s: epochs × ⌈rows / batch⌉ steps, with
 * what it assumed (rows, batch size, validation share). '' without a rate; without a row count
 * (a log without stats) it says so instead of a number.
 */
export function stepsMinutesText(model: string, b: StepsBasis, rate: Rate | undefined): string {
  const batches = familyOf(model).batches
  if (rate?.unit !== 'step' || !batches) return ''
  if (b.rows === undefined)
    return "no estimate in minutes: the table's log has no row counts (file stats), so its steps per epoch are unknown"
  const size = b.batch ?? batches.default
  const from = b.batch === undefined ? `the ${familyOf(model).noun}'s default` : b.batchFrom
  const perEpoch = batches.stepsPerEpoch(b.rows, size)
  const valid =
    b.validFraction === undefined
      ? 'validation from another table'
      : b.validFraction > 0
        ? `the ${Math.round(b.validFraction * 100)}% validation rows ride in the same batches, masked`
        : 'no validation rows'
  const batch = from ? `${size} (${from})` : `${size}`
  const assumed = `assumed ${b.rows} live rows from the log's stats, batch size ${batch}: ${perEpoch} steps an epoch × ${b.epochs} epoch${b.epochs === 1 ? '' : 's'}; ${valid}; a filter makes it fewer`
  return minutesText(perEpoch * b.epochs, 'step', model, rate, assumed)
}

function store(): Storage | undefined {
  try {
    return globalThis.localStorage
  } catch {
    return undefined
  }
}
