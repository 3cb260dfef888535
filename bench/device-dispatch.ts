/**
 * Overhead floors: µs per dispatch (many noop dispatches in one pass, one submit) and µs per
 * submit → onSubmittedWorkDone round trip of an empty command buffer.
 */
import { prepareKernel } from '../src/kernels/runner.ts'
import { noopCall } from './kernels/noop.ts'
import { measure, timeSubmit } from './measure.ts'
import { timeKernel } from './pass.ts'
import { makeRow } from './rows.ts'
import type { BenchRow, DeviceSizes, SuiteContext } from './types.ts'

/** Dispatch-overhead and round-trip rows (wall time: timestamps would hide the submit cost). */
export async function dispatchRows(ctx: SuiteContext, z: DeviceSizes): Promise<BenchRow[]> {
  const d = z.noopDispatches
  ctx.progress(`noop ×${d} dispatches`)
  const kernel = prepareKernel(ctx.cache, noopCall({ workgroups: 1 }))
  const dispatchSamples = await measure(() => timeKernel(ctx.device, kernel, d), z)
  kernel.destroy()
  ctx.progress('submit → done round trip')
  // Round trips are short and noisy, so take several per sample and report the mean.
  const trips = 20
  const tripSamples = await measure(async () => {
    let wallMs = 0
    for (let i = 0; i < trips; i++) wallMs += (await timeSubmit(ctx.device, () => {})).wallMs
    return { wallMs }
  }, z)
  return [
    makeRow(ctx, {
      workload: `noop dispatch ×${d} wg=64`,
      metric: 'latency',
      unit: 'µs',
      samples: dispatchSamples,
      fromSeconds: s => (s * 1e6) / d,
    }),
    makeRow(ctx, {
      workload: `empty submit→done ×${trips}`,
      metric: 'latency',
      unit: 'µs',
      samples: tripSamples,
      fromSeconds: s => (s * 1e6) / trips,
    }),
  ]
}
