/**
 * Entry of bench.html: exposes the bench API as `window.snaptrainBench` for the CLI (the app
 * page exposes the same function as `window.snaptrain.bench`). No UI.
 */
import { describeAdapter, runBenchSuite, SUITE_NAMES } from './index.ts'

/** What bench.html puts on `window`. */
export interface SnaptrainBenchApi {
  runBenchSuite: typeof runBenchSuite
  describeAdapter: typeof describeAdapter
  suites: readonly string[]
}

declare global {
  interface Window { snaptrainBench?: SnaptrainBenchApi }
}

window.snaptrainBench = { runBenchSuite, describeAdapter, suites: SUITE_NAMES }
