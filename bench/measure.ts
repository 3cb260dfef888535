/**
 * Timing and statistics: warmup + repeats, min/median/max, and the direction-aware ratio.
 * Wall time is performance.now() around submit → onSubmittedWorkDone (the encode is done before
 * the clock starts); GPU time comes from timestamp queries where the device has them.
 */
import type { TimestampQueryManager } from '../src/gpu/timestamp.ts'
import type { Sample, Stats } from './types.ts'

/** How many untimed and timed runs. */
export interface MeasureOptions {
  warmup: number
  repeats: number
}

/** Min, median (mean of the middle two for even counts) and max of `values`; throws when empty. */
export function summarize(values: readonly number[]): Stats {
  if (values.length === 0) throw new RangeError('summarize: no values')
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
  return { min: s[0], median, max: s[s.length - 1] }
}

/** True for units where bigger numbers are better (throughput, AUC), false for times (latency). */
export function higherIsBetter(unit: string): boolean {
  if (/^(µs|us|ms|s|ns)$/.test(unit)) return false
  if (/\/s$/.test(unit) || unit === 'AUC') return true
  throw new RangeError(`higherIsBetter: unknown unit '${unit}'`)
}

/** How many times better `value` is than `peer` (> 1 better), given which way the unit points. */
export function betterRatio(value: number, peer: number, unit: string): number {
  return higherIsBetter(unit) ? value / peer : peer / value
}

/** Runs `once` warmup + repeats times; returns the timed samples only. */
export async function measure(once: () => Promise<Sample>, opts: MeasureOptions): Promise<Sample[]> {
  for (let i = 0; i < opts.warmup; i++) await once()
  const samples: Sample[] = []
  for (let i = 0; i < opts.repeats; i++) samples.push(await once())
  return samples
}

/**
 * Converts samples into per-sample metric values with `fromSeconds` (e.g. bytes / s / 1e9),
 * using GPU time when every sample has it, else wall time.
 */
export function metricValues(
  samples: readonly Sample[],
  fromSeconds: (s: number) => number,
): { values: number[]; timing: 'gpu' | 'wall' } {
  const gpu = samples.length > 0 && samples.every(s => s.gpuMs !== undefined && s.gpuMs > 0)
  const values = samples.map(s => fromSeconds((gpu ? s.gpuMs! : s.wallMs) / 1000))
  return { values, timing: gpu ? 'gpu' : 'wall' }
}

/**
 * Encodes with `record`, then times submit → onSubmittedWorkDone. When `ts` is given, `record`
 * should pass `ts.addTimestampWrites()` to its compute pass; the GPU time is read afterwards.
 */
export async function timeSubmit(
  device: GPUDevice,
  record: (enc: GPUCommandEncoder) => void,
  ts?: TimestampQueryManager,
): Promise<Sample> {
  const enc = device.createCommandEncoder()
  record(enc)
  ts?.resolve(enc)
  const cmd = enc.finish()
  const t0 = performance.now()
  device.queue.submit([cmd])
  await device.queue.onSubmittedWorkDone()
  const wallMs = performance.now() - t0
  const gpuNs = await ts?.read()
  return { wallMs, gpuMs: gpuNs === undefined ? undefined : gpuNs / 1e6 }
}
