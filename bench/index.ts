/**
 * Bench entry point for bench.html (window.snaptrainBench, page.ts) and the CLI: runs a named suite
 * on a fresh device and returns its rows. Suites are registered here; names live in suites.ts.
 */
import { adapterSummary, assertAdapter, assertGpu, requestDevice } from '../src/gpu/device.ts'
import { PipelineCache } from '../src/gpu/pipeline-cache.ts'
import type { AdapterSummary } from '../src/gpu/types.ts'
import { runDeviceSuite } from './device-suite.ts'
import { runLoaderSuite } from './loader-suite.ts'
import { runGbdtSuite } from './gbdt-suite.ts'
import { runRecsysSuite } from './recsys-suite.ts'
import { runSweepSuite } from './sweep-suite.ts'
import { runScaleoutSuite } from './scaleout-suite.ts'
import type { SuiteName } from './suites.ts'
import { assertSuiteName, SUITE_NAMES, SUITES } from './suites.ts'
import type { BenchOptions, BenchRow, SuiteRunner } from './types.ts'

export type { BenchOptions, BenchRow } from './types.ts'
export { SUITE_NAMES, SUITES }

/** Runner of each suite; the Record type makes a name without a runner a compile error. */
const RUNNERS: Record<SuiteName, SuiteRunner> = {
  device: runDeviceSuite,
  loader: runLoaderSuite,
  gbdt: runGbdtSuite,
  recsys: runRecsysSuite,
  sweep: runSweepSuite,
  scaleout: runScaleoutSuite,
}

/**
 * Runs suite `name` on a new device (destroyed afterwards) and resolves to its rows.
 * Throws an error naming `name` and listing the suites when it is unknown.
 */
export async function runBenchSuite(name: string, opts: BenchOptions = {}): Promise<BenchRow[]> {
  assertSuiteName(name)
  const { adapter, device } = await requestDevice()
  const progress = (msg: string): void => opts.onProgress?.(`${name}: ${msg}`)
  try {
    return await RUNNERS[name as SuiteName]({
      suite: name,
      device,
      cache: new PipelineCache(device),
      adapter: adapterSummary(adapter),
      quick: opts.quick ?? false,
      commit: opts.commit ?? '',
      date: new Date().toISOString(),
      progress,
      loader: opts.loader,
      gbdt: opts.gbdt,
      gbdtRows: opts.gbdtRows,
    })
  } finally {
    device.destroy()
  }
}

/** Summary of the adapter the suites run on (for result files and the page). */
export async function describeAdapter(): Promise<AdapterSummary> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu
  assertGpu(gpu)
  const adapter = await gpu.requestAdapter()
  assertAdapter(adapter)
  return adapterSummary(adapter)
}
