/**
 * Types of the histogram GBDT (XGBoost `hist`). This file is the contract between the CPU stages
 * (params, sketch, cuts, binned, objective, metrics, reference trainer), the WGSL kernels in
 * shaders/gbdt/ with their references in src/kernels/gbdt/, the driver and the XGBoost JSON model.
 *
 * Legend: N = rows, F = features, B = total bins over all features (cutPtrs[F]),
 * M = nodes in the current level (or nodes whose histogram is built), T = trees.
 *
 * GPU buffer layouts (all little-endian; kernels and .ref.ts use exactly these):
 * - bins (binned matrix), u8 packed in u32 words, FEATURE-MAJOR: the byte of (row i, feature f)
 *   is byte (i & 3) of word `f * rowWords + (i >> 2)`, rowWords = ceil(N / 4). Adjacent
 *   invocations (rows) read adjacent bytes/words of one feature: coalesced reads, and one feature
 *   is one contiguous slice (colsample and chunking by feature are slices).
 *   Stored byte s for feature f: bin = s − missOff[f]; s < missOff[f] (i.e. missOff = 1, s = 0)
 *   means missing. missOff[f] = 1 when the feature has missing values in the training data, else
 *   0 — so a feature without missing values can use all 256 byte values (max_bin = 256), one with
 *   missing values at most 255 bins.
 * - Global bin index of (f, bin) = cutPtrs[f] + bin (CSC layout as XGBoost's HistogramCuts).
 * - Gradient pairs per row: quantised to i32 with per-round scales (GradientQuantiser):
 *   qg = round(g · gScale), qh = round(h · hScale), as `array<vec2<i32>>` (qg, qh) of length N.
 *   Scales are chosen so |q| ≤ 2^30 per row (see quantiseScales).
 *   [G2] Scale formula (kernel + ref agree bit for bit): src/kernels/gbdt/quantise.ref.ts
 *   `quantiseScale(maxAbs)` = 2^(30 − ceil(log2 maxAbs)) (a power of two, exact in WGSL), rounding
 *   half to even (WGSL `round`); the GPU scales buffer is f32 × 4 [maxAbsG, maxAbsH, gScale, hScale].
 * - Histograms: exact 64-bit integer sums kept as u32 pairs (two's complement, carry on atomic
 *   overflow): for histogram slot m, global bin b: 4 u32 at `(m * B + b) * 4`:
 *   [gLo, gHi, hLo, hHi]. Order-independent, hence deterministic and exact vs the reference.
 * - positions: u32 per row = node id (index into the tree's node arrays) the row currently sits
 *   in; rows that no longer take part (not sampled) hold 0xFFFFFFFF.
 */
import type { MetricName } from '../../eval/metrics.ts'

/** Validated XGBoost parameters (XGBoost names and defaults). */
export interface GbdtParams {
  /** XGBoost objective name (models/gbdt/objective.ts OBJECTIVES: formulas, transforms, model config). */
  objective:
    | 'binary:logistic'
    | 'reg:squarederror'
    | 'reg:logistic'
    | 'binary:logitraw'
    | 'binary:hinge'
    | 'reg:squaredlogerror'
    | 'reg:pseudohubererror'
    | 'reg:absoluteerror'
    | 'reg:quantileerror'
    | 'count:poisson'
    | 'reg:gamma'
    | 'reg:tweedie'
    | 'multi:softprob'
    | 'multi:softmax'
    | 'rank:ndcg'
    | 'rank:pairwise'
    | 'rank:map'
  /**
   * Classes of multi:softprob / multi:softmax (XGBoost num_class; K outputs per row, K trees per
   * round). 0 = not given: the driver infers max label + 1 (driver.ts resolveNumClass).
   */
  num_class: number
  /** Metric names as XGBoost prints them (src/eval/metrics.ts parseMetric). */
  eval_metric: MetricName[]
  num_round: number
  eta: number
  max_depth: number
  min_child_weight: number
  lambda: number
  alpha: number
  gamma: number
  subsample: number
  colsample_bytree: number
  colsample_bylevel: number
  colsample_bynode: number
  max_bin: number
  /** undefined = estimated from the labels as XGBoost ≥ 2 does. */
  base_score?: number
  scale_pos_weight: number
  seed: number
  early_stopping_rounds?: number
  grow_policy: 'depthwise' | 'lossguide'
  /** 0 = unlimited (lossguide needs max_leaves or max_depth). */
  max_leaves: number
  /** Tree leaf step bound (0 = none); count:poisson's default is 0.7, also its hessian's offset (XGBoost). */
  max_delta_step: number
  /** reg:pseudohubererror's δ (XGBoost huber_slope, default 1). */
  huber_slope: number
  /** reg:tweedie's ρ in (1, 2) (XGBoost tweedie_variance_power, default 1.5). */
  tweedie_variance_power: number
  /** reg:quantileerror's quantile in (0, 1) (XGBoost 2.0 quantile_alpha; one value: one output per row). */
  quantile_alpha?: number
  /**
   * Split string (dictionary-coded) features and the `categorical` columns natively, as XGBoost's
   * enable_categorical; false = every feature is split as an ordered number (codes included).
   */
  enable_categorical: boolean
  /** A categorical feature with fewer bins (categories) than this gets one-vs-rest splits (XGBoost). */
  max_cat_to_onehot: number
  /** Most categories a partition split scans on one side (XGBoost max_cat_threshold). */
  max_cat_threshold: number
  /** Integer or boolean feature columns to split as categories (needs enable_categorical). */
  categorical: string[]
  /**
   * XGBoost monotone_constraints: per feature in column order (1 increasing, −1 decreasing, 0 free),
   * or by feature name; [] = none (constraints.ts parses and resolves it).
   */
  monotone_constraints: number[] | Record<string, number>
  /** XGBoost interaction_constraints: sets of features (indices or names) that may interact; [] = none. */
  interaction_constraints: Array<Array<number | string>>
  /** rank:*: how pairs are made (XGBoost 2.0, default 'topk': every pair with one of the top k by score). */
  lambdarank_pair_method: 'topk' | 'mean'
  /** rank:*: k of topk, or pairs drawn per document with mean; undefined = XGBoost 2.0's default (32 / 1). */
  lambdarank_num_pair_per_sample?: number
  /** rank:ndcg: gain 2^rel − 1 (true, XGBoost's default; labels ≤ 31) or rel. */
  ndcg_exp_gain: boolean
}

/** Quantile cuts (XGBoost HistogramCuts): feature f's bins are [cutPtrs[f], cutPtrs[f+1]). */
export interface Cuts {
  /** Length F + 1; cutPtrs[F] = B. */
  cutPtrs: Uint32Array
  /**
   * Length B: upper bound of each bin (XGBoost `cut_values`): value v of feature f falls in the
   * first bin b with v < cutValues[cutPtrs[f] + b]; the last cut of a feature is above its max.
   * A split "at bin b" sends v < cutValues[cutPtrs[f] + b] left (XGBoost split_condition).
   */
  cutValues: Float32Array
  /** Length F: smallest value seen per feature (XGBoost `min_vals`). */
  minValues: Float32Array
  /**
   * Length F when any feature is split as categories: 1 = feature f is categorical. Its bins are
   * the codes 0 … max code seen (XGBoost's categorical HistogramCuts: bin b holds code b, empty
   * bins for codes not seen included) and cut b is b + 1, so the bin search above finds a code's
   * bin like any value's. Absent = every feature numeric.
   */
  categorical?: Uint8Array
}

/** The binned training matrix on the CPU (uploaded as is). */
export interface BinnedMatrix {
  rows: number
  features: number
  /** ceil(rows / 4). */
  rowWords: number
  /** Length features * rowWords; layout in the file comment. */
  bins: Uint32Array
  /** Length F: 1 when the feature has missing values (byte 0 = missing), else 0. */
  missOff: Uint32Array
}

/** Best split found for one node (split evaluation output, one per node). */
export interface SplitCandidate {
  /** loss_chg as XGBoost: gainL + gainR − gainParent (before γ); −Infinity / ≤ 0 = no split. */
  gain: number
  feature: number
  /** Bin index within the feature: rows with bin ≤ splitBin go left. */
  splitBin: number
  /** Missing values go left. */
  defaultLeft: boolean
  /** Sums of the left child (dequantised). */
  leftG: number
  leftH: number
  rightG: number
  rightH: number
  /**
   * Child weights as the split search computed them (f32, XGBoost's evaluator CalcWeight: clamped
   * to the node's monotone bounds); leaves of monotone-constrained runs take these.
   */
  leftWeight?: number
  rightWeight?: number
  /**
   * Categorical splits only (splitBin −1 then): the bins (= category codes) going right, a bitset
   * over the feature's bins (bit b & 31 of word b >> 5); every other bin goes left, missing by
   * defaultLeft (XGBoost's one-hot and partition splits).
   */
  catBins?: Uint32Array
}

/** One regression tree in XGBoost's array form (what the JSON model stores). */
export interface Tree {
  /** Per node; −1 for leaves. */
  left: Int32Array
  right: Int32Array
  /** −1 for the root (the JSON file stores 2147483647 there, as XGBoost). */
  parent: Int32Array
  /** Feature index; 0 for leaves. */
  splitIndex: Int32Array
  /** Threshold (rows with value < condition go left); leaf value (eta applied) for leaves. */
  splitCondition: Float32Array
  /**
   * Bin index of the split (−1 for leaves): bin ≤ splitBin goes left. A split may also have −1:
   * only missing values go left (condition = the feature's min value); imported trees have −1
   * everywhere (bins are not part of the XGBoost format; they predict on raw values).
   */
  splitBin: Int32Array
  defaultLeft: Uint8Array
  /**
   * XGBoost base_weights: for a leaf its value (eta applied); for a split node its unscaled weight
   * −T(G)/(H+λ), as XGBoost's ExpandNode stores it.
   */
  baseWeight: Float32Array
  lossChange: Float32Array
  sumHessian: Float32Array
  /**
   * XGBoost split_type per node: 0 numeric (value < splitCondition goes left), 1 categorical:
   * a row whose category (the value as an integer code) is in the node's set goes RIGHT, every
   * other category (also negative or unseen codes) goes left, missing takes defaultLeft —
   * XGBoost's `common::Decision`. splitCondition of a categorical node is unused (0; XGBoost NaN).
   */
  splitType: Uint8Array
  /** Per node: index of its first category in `categories` (0 where it has none). */
  catBegin: Uint32Array
  /** Per node: how many categories its set holds (0 for numeric nodes and leaves). */
  catSize: Uint32Array
  /** The sets of all categorical nodes, each ascending, in node order (XGBoost `categories`). */
  categories: Int32Array
}

/** A trained model. */
export interface Booster {
  params: GbdtParams
  /** Feature names in column order (what F indexes). */
  featureNames: string[]
  /** 'float' or 'int' per feature, or 'c' for categorical codes (XGBoost feature_types). */
  featureTypes: string[]
  /** base_score in probability space for logistic objectives (XGBoost's convention). */
  baseScore: number
  /**
   * Trees ROUND-MAJOR: round r's K trees are trees[r·K + k], class k = tree index % K (XGBoost's
   * tree_info with num_parallel_tree = 1); K = numClass ?? 1.
   */
  trees: Tree[]
  /** K ≥ 2 for a multiclass model (multi:*), undefined otherwise. */
  numClass?: number
  /**
   * The sorted label dictionary of a multiclass model trained on a string label: class k means
   * labelValues[k] (stored in the model file's learner attributes, model-attributes.ts); absent
   * when the labels were the class numbers 0…K−1 themselves.
   */
  labelValues?: Array<string | number>
  /** Per round metrics on the validation set (and train when asked). */
  history: Array<Record<string, number>>
  /** Best round (not tree: a multiclass round has K trees). */
  bestIteration: number
}
