/**
 * Sizes, seeds and CLI-prepared inputs of the `gbdt` bench suite. Free of GPU and WGSL imports:
 * the Node CLI uses the same constants to export the data the XGBoost peer trains on.
 */

/** One measured size: training rows (validation = rows / 10) and boosting rounds. */
export interface GbdtSize {
  rows: number
  rounds: number
}

/** Full run: 100k rows × 10 rounds and 1M rows × 4 rounds (round 0 is a warm-up, not counted). */
export const GBDT_SIZES: readonly GbdtSize[] = [
  { rows: 100_000, rounds: 10 },
  { rows: 1_000_000, rounds: 4 },
]

/** --quick: one small size, for smoke tests. */
export const GBDT_SIZES_QUICK: readonly GbdtSize[] = [{ rows: 20_000, rounds: 3 }]

/** Fewest training rows `--rows` accepts (validation = rows / 10 must hold both classes). */
export const GBDT_MIN_ROWS = 100

/**
 * The sizes a run measures: the full or quick preset, or with `rows` (`--rows N`) one size of
 * that many training rows at the preset's rounds for its first size (10, --quick 3). The CLI (the
 * XGBoost peer and the Delta tables) and the page call it with the same arguments.
 */
export function gbdtSizes(quick: boolean, rows?: number): readonly GbdtSize[] {
  const preset = quick ? GBDT_SIZES_QUICK : GBDT_SIZES
  if (rows === undefined) return preset
  if (!Number.isInteger(rows) || rows < GBDT_MIN_ROWS)
    throw new RangeError(`gbdt bench: rows must be an integer ≥ ${GBDT_MIN_ROWS}, got ${rows}`)
  return [{ rows, rounds: preset[0].rounds }]
}

/** Seeds of the synthetic training and validation tables (tools/datagen/synthetic.ts). */
export const GBDT_TRAIN_SEED = 42
export const GBDT_VALID_SEED = 43

/** Validation rows for `rows` training rows. */
export function validRows(rows: number): number {
  return Math.max(1, Math.floor(rows / 10))
}

/** The training parameters both sides use (XGBoost names; tree_method=hist on the peer). */
export const GBDT_BENCH_PARAMS = {
  objective: 'binary:logistic',
  eval_metric: 'auc',
  max_depth: 6,
  eta: 0.3,
  max_bin: 256,
  seed: 0,
} as const

/** Threads the XGBoost peer runs with (the comparison point). */
export const GBDT_PEER_THREADS = 2

/** What `bench/gbdt_peer.py` reports for one size (parsed from its JSON line). */
export interface GbdtPeerResult {
  rows: number
  rounds: number
  /** Seconds of each round (after_iteration to after_iteration; round 0 from train start). */
  roundSeconds: number[]
  /** DMatrix construction from the numpy array (not part of any round). */
  dmatrixSeconds: number
  /**
   * Seconds of each QuantileDMatrix construction (max_bin 256, the peer's threads) from the
   * training features as float32 columns: XGBoost's sketch + cuts + binning.
   */
  quantileSeconds?: number[]
  /** Validation AUC after the last round (when auc is an eval_metric: always but in quality tasks). */
  validAuc?: number
  /** Validation AUC after every round. */
  validAucs?: number[]
  /** Every eval_metric on the validation rows after every round, by XGBoost's name. */
  validMetrics?: Record<string, number[]>
  xgboost: string
  nthread: number
}

/** Inputs of the `gbdt` suite prepared in Node by the CLI. */
export interface GbdtBenchInput {
  /** Peer results per training size; empty when the peer could not run (see `peerNote`). */
  peers: GbdtPeerResult[]
  /** Why there are no peer rows, e.g. "python3 not found" (absent when the peer ran). */
  peerNote?: string
  /** The same rows as Delta tables served over HTTP, per training size (the `open → first round` row). */
  tables?: GbdtTableUrls[]
}

/** Where the CLI serves one size's training and validation rows as Delta tables (root URLs, ending in '/'). */
export interface GbdtTableUrls {
  rows: number
  train: string
  valid: string
}

/** Label column of the suite's Delta tables (the features keep the generator's names). */
export const GBDT_TABLE_LABEL = 'label'
