/**
 * The per-round operations the driver asks of a compute backend (CPU reference or WebGPU). The
 * interface is shaped so a GPU backend keeps gradients, positions, histograms and margins on the
 * device: only node ids, feature masks and per-level split results cross to the CPU, plus the
 * validation margins once per round for the metrics.
 *
 * A round grows K trees (K = outputsOf(params): num_class for multiclass, else 1), one per class,
 * in lockstep. Node ids are ROUND node ids: class k's root is k, every later node gets the next id
 * when it is made (driver.ts Growth), so with K = 1 they are the tree's node indices. The backend
 * holds K (row, class) entries per row: margins, gradient pairs and positions N × K row-major
 * (row i, class k at i·K + k); a histogram pass reads each row's bins once for all K classes.
 * N = rows (training), V = validation rows, F = features, B = total bins.
 */
import type { BinnedMatrix, Cuts, GbdtParams, SplitCandidate, Tree } from './types.ts'

/** What a backend is built from (all host arrays; a GPU backend uploads them once). */
export interface BackendSetup {
  params: GbdtParams
  cuts: Cuts
  binned: BinnedMatrix
  /** Float32Array, length N. */
  labels: Float32Array
  /** Float32Array, length N, or undefined (all 1). */
  weights?: Float32Array
  /** Initial margin of every row and class: baseMargin(objective, base_score). */
  baseMargin: number
  /**
   * Continued training (driver.ts TrainOptions.initModel) or the rows' own base margins: the
   * starting margins of this backend's training rows (N × K) and validation rows (V × K), used
   * instead of baseMargin.
   */
  initMargins?: { train: Float32Array; valid?: Float32Array }
  /** Validation features (F Float32Arrays of V values, NaN = missing), predicted on raw values. */
  validColumns?: Float32Array[]
  /**
   * Global index of this backend's first row when it holds one rank's contiguous slice of the
   * rows: subsampling hashes rowOffset + i, so it is per row, not per rank. Default 0.
   */
  rowOffset?: number
  /** Data-parallel hooks: set when this backend holds one rank's rows. */
  reduce?: BackendReduce
  /**
   * Monotone constraints resolved per feature (constraints.ts: 1, −1, 0), when any feature has
   * one: the split search then bounds weights and every EvalRequest carries `bounds`.
   */
  monotone?: Int8Array
  /**
   * Ranking objectives (rank-objective.ts): the round's gradient pairs computed on the host from
   * this backend's training margins — 2 × N f32, g and h interleaved; `rowOffset` as above —
   * used instead of the gradient kernel (a measured CPU hand-off: a GPU backend reads its margins
   * back and uploads the pairs). Unsampled rows still get (0, 0).
   */
  hostGradients?: (round: number, margins: Float32Array, rowOffset: number) => Float32Array
}

/**
 * How a rank's backend combines its partial results with the other ranks' (allreduce). With
 * these, quantisation scales come from the global max |g|, |h| and the root sums and every built
 * node histogram are global sums — exact integers — so every rank grows the tree R = 1 grows.
 */
export interface BackendReduce {
  /** Element-wise max over ranks (here [max |g|, max |h|]). */
  max(v: Float32Array): Promise<Float32Array>
  /** Element-wise sum over ranks of integers held exactly in doubles (|x| < 2^53). */
  sum(v: Float64Array): Promise<Float64Array>
}

/** Fixed-point exact node sums are kept by the backend; these are their dequantised values. */
export interface NodeSums {
  g: number
  h: number
}

/** A node to evaluate with the features it may split on (Uint8Array(F), 1 = allowed). */
export interface EvalRequest {
  nid: number
  featureMask: Uint8Array
  /** Weight bounds (constraints.ts NodeBounds) when the setup has monotone constraints. */
  bounds?: readonly number[]
}

/** One histogram subtraction: hist[sibling] = hist[parent] − hist[built]. */
export interface SubtractJob {
  parent: number
  built: number
  sibling: number
}

/** A split the driver accepted: rows of `nid` move to `left` / `right` (new node ids). */
export interface AppliedSplit {
  nid: number
  left: number
  right: number
  split: SplitCandidate
}

/** Everything is awaitable so a GPU backend can queue work and read back only where needed. */
export interface GbdtBackend {
  /**
   * Starts round `round`: gradients at the current margins (unsampled rows of class k's tree —
   * rowSampled(seed, treeIndex(round, k, K), row, subsample) false — get (0, 0) but stay
   * partitioned, as XGBoost), quantised with one scale pair over all classes; every row at its
   * class's root (node k). Returns the K roots' sums.
   */
  beginRound(round: number): Promise<NodeSums[]> | NodeSums[]
  /** Builds the histograms of nodes `nids` (each gets its own slot). */
  buildHistograms(nids: number[]): Promise<void> | void
  /** Fills siblings' histograms by subtraction (the parent's stays until released). */
  subtractHistograms(jobs: SubtractJob[]): Promise<void> | void
  /** Best split per node (gain −∞ / feature −1 = none), in request order. */
  evaluateSplits(nodes: EvalRequest[]): Promise<SplitCandidate[]> | SplitCandidate[]
  /** Moves rows of the split nodes to their children; children's exact sums come from the split. */
  applySplits(splits: AppliedSplit[]): Promise<void> | void
  /** Frees the histogram slots of `nids`. */
  releaseHistograms(nids: number[]): void
  /**
   * Adds the round's finished trees (trees[k] is class k's) to training and validation margins:
   * `values` holds the leaf value of each round node id (K = 1: trees[0].splitCondition).
   */
  finishTrees(trees: Tree[], values: Float32Array): Promise<void> | void
  /** Current validation margins (Float32Array, V × K), or undefined without a valid set. */
  validMargins(): Promise<Float32Array | undefined> | Float32Array | undefined
  /**
   * The node each training row sits in (Uint32Array, length N) once the tree is grown, before
   * finishTree: the leaves, for objectives that refresh leaf values from their rows' residuals.
   */
  leafPositions(): Promise<Uint32Array> | Uint32Array
  /** Current training margins (Float32Array, N × K): for train metrics and tests. */
  trainMargins(): Promise<Float32Array> | Float32Array
  /** Releases buffers. */
  dispose(): void
}

/** Builds a backend for one training run. */
export type BackendFactory = (setup: BackendSetup) => Promise<GbdtBackend> | GbdtBackend
