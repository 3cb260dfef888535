/**
 * Names and one-line summaries of the bench suites. Kept free of GPU and WGSL imports so the
 * Node CLI can validate `--suite` and print help without a browser.
 */

/** Every suite, in the order `--suite all` runs them. */
export const SUITES = {
  device: 'device ceilings: memory bandwidth, atomics (storage vs workgroup), matmul GFLOP/s, dispatch overhead',
  loader:
    'snapshot loader on clicks: rows/s and MB/s with 1/2/4 workers vs main-thread hyparquet and parquet-wasm in as many workers; CSV export path vs direct read',
  gbdt: 'GBDT hist training on synthetic 100k/1M × 28: s/round, per-stage time, histogram vs atomic ceiling, XGBoost hist (2 threads) peer',
  recsys:
    'recommender on clicks: samples/s ours (GpuModel) vs TF.js WebGPU on the same batches, step time split, validation AUC vs Bayes AUC',
  sweep:
    'tuning sweeps: Hyperband vs random search over the same configurations at full budget (gbdt on marketing, recsys on a clicks slice): best validation AUC, GPU-seconds, ratio',
  scaleout:
    'recommender across ranks on clicks and marketing: R = 1, 2, 4 (a) lr unchanged, (b) lr × √R or × R + warmup — wall time, samples/s, validation AUC; writes <out>.svg',
} as const

/** A registered suite name. */
export type SuiteName = keyof typeof SUITES

/** Registered suite names. */
export const SUITE_NAMES = Object.keys(SUITES) as SuiteName[]

/** True when `name` is a registered suite. */
export function isSuiteName(name: string): name is SuiteName {
  return Object.hasOwn(SUITES, name)
}

/** Throws an error naming `name` and listing the suites unless it is one (or 'all' when allowed). */
export function assertSuiteName(name: string, allowAll = false): void {
  if (isSuiteName(name) || (allowAll && name === 'all')) return
  throw new Error(`unknown bench suite '${name}' (suites: ${SUITE_NAMES.join(', ')}${allowAll ? ', all' : ''})`)
}
