/**
 * Entry of bench.html: exposes the bench API as `window.snaptrainBench` for the CLI (bench/cli.ts)
 * and the tests. The app page (index.html, window.snaptrain) has no bench entry and never loads
 * this folder; bench.html is served by the dev server only (not a `vite build` input). No UI.
 */
import { describeAdapter, runBenchSuite, SUITE_NAMES } from './index.ts'

/** What bench.html puts on `window`. */
export interface SnaptrainBenchApi {
  runBenchSuite: typeof runBenchSuite
  describeAdapter: typeof describeAdapter
  suites: readonly string[]
}

declare global {
  interface Window {
    snaptrainBench?: SnaptrainBenchApi
  }
}

window.snaptrainBench = { runBenchSuite, describeAdapter, suites: SUITE_NAMES }
