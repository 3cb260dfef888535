/**
 * Buffer layouts the GBDT kernels, their references and the backends share: row and objective
 * codes, the split record and split table, and trees packed for the predict kernel. These are
 * formats, not maths, so the backends import them here rather than from a `.ref.ts`.
 * N = rows, M = nodes evaluated, F = features, K = nodes, T = trees.
 */
import type { SplitCandidate, Tree } from '../../models/gbdt/types.ts'

/** Objective ids of the gradient kernel's `objective` uniform (models/gbdt/objective.ts maps names to them). */
export const OBJECTIVE_LOGISTIC = 0
/** Objective id of `reg:squarederror`. */
export const OBJECTIVE_SQUARED_ERROR = 1
/** `reg:squaredlogerror`. */
export const OBJECTIVE_SQUARED_LOG = 2
/** `reg:pseudohubererror` (objParam = huber_slope). */
export const OBJECTIVE_PSEUDO_HUBER = 3
/** `count:poisson` (objParam = max_delta_step). */
export const OBJECTIVE_POISSON = 4
/** `reg:gamma`. */
export const OBJECTIVE_GAMMA = 5
/** `reg:tweedie` (objParam = tweedie_variance_power). */
export const OBJECTIVE_TWEEDIE = 6
/** `reg:absoluteerror`. */
export const OBJECTIVE_ABSOLUTE = 7
/** `binary:hinge`. */
export const OBJECTIVE_HINGE = 8
/** `reg:quantileerror` (objParam = quantile_alpha). */
export const OBJECTIVE_QUANTILE = 9
/** Number of objective ids (valid ids are 0 … OBJECTIVE_COUNT − 1). */
export const OBJECTIVE_COUNT = 10
/**
 * multi:softprob / multi:softmax: not a per-row id of the gradient kernel's switch — its pairs
 * come from the K margins of a row at once (gradient.ref.ts softmaxGradient), N × K of them.
 */
export const OBJECTIVE_SOFTMAX = 100

/** Row position meaning "not sampled this round": its gradient pair is (0, 0). */
export const ROW_UNUSED = 0xffffffff

/** u32 words of a bitset over one feature's bins (at most 256 bins: u8 bins). */
export const CAT_WORDS = 8
/** u32 words per node in split_evaluate's `out` buffer (layout at `decodeSplit`). */
export const SPLIT_WORDS = 19 + CAT_WORDS
/** `feature` word of a node without any valid split (gain ≤ 0 everywhere). */
export const NO_FEATURE = 0xffffffff

/** Regularisation of the split gain (XGBoost names), as f32 uniforms. */
export interface SplitParams {
  lambda: number
  alpha: number
  minChildWeight: number
  /** Most categories a partition split scans on one side (XGBoost max_cat_threshold; default 64). */
  maxCatThreshold?: number
  /** XGBoost max_delta_step (default 0 = none): node weights clipped to ±maxDeltaStep. */
  maxDeltaStep?: number
  /**
   * Monotone constraints are on (XGBoost's TreeEvaluator has_constraint): `nodeSums` carries each
   * node's weight bounds (NODE_BOUND_WORDS) and child weights are clamped to them.
   */
  constrained?: boolean
}

/**
 * Words per node of the weight bounds that follow the node sums in split_evaluate's `nodeSums`
 * when SplitParams.constrained (f32 bits): [lower, upper] of the node's children's weights (XGBoost
 * lower/upper_bounds of the node) and [lower, upper] of its parent's, which clamp the node's own
 * weight in its score (XGBoost root_gain = CalcGain(parent id, …)). Unbounded = ±MAX_WEIGHT_BOUND.
 */
export const NODE_BOUND_WORDS = 4
/** XGBoost's initial weight bounds: ±FLT_MAX. */
export const MAX_WEIGHT_BOUND = 3.4028234663852886e38

/** XGBoost's default max_cat_threshold, where SplitParams leaves it out. */
export const DEFAULT_MAX_CAT_THRESHOLD = 64

/** How split_evaluate searches feature f (its `featureKind` buffer, u32 [F]). */
export const FEATURE_NUMERIC = 0
/** Categorical, one category vs the rest (XGBoost EnumerateOneHot). */
export const FEATURE_ONE_HOT = 1
/** Categorical, categories sorted by weight and partitioned (XGBoost EnumeratePart). */
export const FEATURE_PARTITION = 2
/** Bits of a `featureKind` word holding the kind; the monotone constraint sits above them. */
export const FEATURE_KIND_BITS = 3
/** `featureKind` bits (>> 2) of a feature constrained increasing (XGBoost monotone +1). */
export const MONOTONE_INCREASING = 1
/** `featureKind` bits (>> 2) of a feature constrained decreasing (XGBoost monotone −1). */
export const MONOTONE_DECREASING = 2

/**
 * split_evaluate's `featureKind` for features with bins [cutPtrs[f], cutPtrs[f + 1]):
 * numeric unless `categorical[f]`; a categorical feature with fewer bins than
 * `maxCatToOnehot` is split one-hot, else by partition (XGBoost `UseOneHot`: n < max_cat_to_onehot).
 * `monotone[f]` (1, −1, 0; XGBoost monotone_constraints) goes in bits 2–3: MONOTONE_INCREASING,
 * MONOTONE_DECREASING or 0.
 */
export function featureKinds(
  cutPtrs: Uint32Array,
  categorical: Uint8Array | undefined,
  maxCatToOnehot: number,
  monotone?: ArrayLike<number>,
): Uint32Array<ArrayBuffer> {
  const F = cutPtrs.length - 1
  return Uint32Array.from({ length: Math.max(F, 1) }, (_, f) => {
    const c = monotone?.[f] ?? 0
    const mono = (c > 0 ? MONOTONE_INCREASING : c < 0 ? MONOTONE_DECREASING : 0) << 2
    if (f >= F || !categorical?.[f]) return FEATURE_NUMERIC | mono
    return (cutPtrs[f + 1] - cutPtrs[f] < maxCatToOnehot ? FEATURE_ONE_HOT : FEATURE_PARTITION) | mono
  })
}

/** Shape: `nodes` = M, `features` = F; `maskPerNode` 1 = featureMask is [M × F], 0 = [F]. */
export interface SplitShape {
  nodes: number
  features: number
  maskPerNode: number
}

/** A SplitCandidate plus the exact integer child sums (children's `nodeSums` next level). */
export interface SplitResult extends SplitCandidate {
  /** [gLo, gHi, hLo, hHi] of the left / right child, two's complement 64-bit. */
  leftSum: Uint32Array
  rightSum: Uint32Array
}

/**
 * Decodes node m of a split_evaluate `out` buffer (from the kernel or the reference): 27 words
 * [gain f32, feature (NO_FEATURE = none), splitBin i32, defaultLeft, f32 leftG, leftH, rightG,
 * rightH, [gLo, gHi, hLo, hHi] of the left child and of the right child, categorical (0 / 1),
 * then CAT_WORDS words: the bitset of bins going right of a categorical split (else 0), then the
 * left and right child weights f32 (XGBoost's evaluator CalcWeight: clamped to the node's bounds
 * when constrained; 0 without a split)].
 */
export function decodeSplit(out: Uint32Array, m: number): SplitResult {
  const o = m * SPLIT_WORDS
  const f = new Float32Array(out.slice(o, o + 8).buffer)
  const w = new Float32Array(out.slice(o + 17 + CAT_WORDS, o + SPLIT_WORDS).buffer)
  const cat = out[o + 16] !== 0 ? { catBins: out.slice(o + 17, o + 17 + CAT_WORDS) } : {}
  return {
    ...cat,
    leftWeight: w[0],
    rightWeight: w[1],
    gain: f[0],
    feature: out[o + 1] === NO_FEATURE ? -1 : out[o + 1],
    splitBin: out[o + 2] | 0,
    defaultLeft: out[o + 3] !== 0,
    leftG: f[4],
    leftH: f[5],
    rightG: f[6],
    rightH: f[7],
    leftSum: out.slice(o + 8, o + 12),
    rightSum: out.slice(o + 12, o + 16),
  }
}

/**
 * Words per node in the split table: [feature, splitBin (i32), defaultLeft, leftChild, rightChild,
 * categorical (0 / 1), then CAT_WORDS words: the bitset of bins going right of a categorical split].
 */
export const SPLIT_TABLE_WORDS = 6 + CAT_WORDS
/** Position of a row that takes no part (not sampled); also "no child" in the split table. */
export const NO_NODE = 0xffffffff

/** Shape: `rows` = N, `rowWords` = ceil(N / 4) of the binned matrix, `nodes` = K. */
export interface PartitionShape {
  rows: number
  rowWords: number
  nodes: number
  /** Entries per row (multiclass: K, one per class tree); default 1. */
  classes?: number
}

/**
 * Words per packed node: left, right (i32, −1 = leaf, tree-local), feature | defaultLeft << 31,
 * splitBin (i32), value (f32 bits), catStart, catWords. A categorical node (Tree.splitType 1) has
 * catWords ≥ 1: its set is the bitset catBits[catStart, catStart + catWords) over category codes
 * (bit c of word c >> 5 set = code c goes right); a numeric node has catWords 0.
 */
export const NODE_WORDS = 7

/** Trees packed for the predict kernels. */
export interface PackedTrees {
  /** u32 [K × NODE_WORDS]; value = split condition at internal nodes, leaf value (eta applied) at leaves. */
  nodes: Uint32Array<ArrayBuffer>
  /** u32 bitsets of the categorical nodes (at least one word, so it can always be bound). */
  catBits: Uint32Array<ArrayBuffer>
  /** u32 [T]: index of each tree's root in `nodes`. */
  treeOffsets: Uint32Array<ArrayBuffer>
  /** Longest root-to-leaf path in edges (bounds the kernel's walk). */
  maxDepth: number
}

/** Packs `trees` (types.ts Tree arrays) into one flat node buffer. */
export function packTrees(trees: readonly Tree[]): PackedTrees {
  const total = trees.reduce((s, t) => s + t.left.length, 0)
  const nodes = new Uint32Array(total * NODE_WORDS),
    f32 = new Float32Array(nodes.buffer)
  const treeOffsets = new Uint32Array(trees.length)
  const bits: number[] = [0]
  let at = 0,
    maxDepth = 0
  trees.forEach((t, ti) => {
    treeOffsets[ti] = at
    for (let k = 0; k < t.left.length; k++, at++) {
      const o = at * NODE_WORDS
      nodes[o] = t.left[k] >>> 0
      nodes[o + 1] = t.right[k] >>> 0
      nodes[o + 2] = ((t.splitIndex[k] & 0x7fffffff) | (t.defaultLeft[k] ? 0x80000000 : 0)) >>> 0
      nodes[o + 3] = t.splitBin[k] >>> 0
      f32[o + 4] = t.splitCondition[k]
      if (t.splitType[k] === 1 && t.left[k] >= 0) {
        const set = t.categories.subarray(t.catBegin[k], t.catBegin[k] + t.catSize[k])
        const words = Math.max(1, set.length > 0 ? (set[set.length - 1] >> 5) + 1 : 1)
        nodes[o + 5] = bits.length
        nodes[o + 6] = words
        const start = bits.length
        for (let w = 0; w < words; w++) bits.push(0)
        for (const c of set) bits[start + (c >> 5)] = (bits[start + (c >> 5)] | (1 << (c & 31))) >>> 0
      }
    }
    maxDepth = Math.max(maxDepth, treeDepth(t))
  })
  return { nodes, catBits: Uint32Array.from(bits), treeOffsets, maxDepth }
}

/**
 * Each node's cover (XGBoost uses sum_hessian as cover) in packTrees' node order, f32 [K] (at
 * least one entry, so it can always be bound): the tree_shap kernel's second input.
 */
export function packCovers(trees: readonly Tree[]): Float32Array<ArrayBuffer> {
  const covers = new Float32Array(
    Math.max(
      1,
      trees.reduce((s, t) => s + t.left.length, 0),
    ),
  )
  let at = 0
  for (const t of trees) {
    covers.set(t.sumHessian, at)
    at += t.left.length
  }
  return covers
}

/**
 * Longest root-to-leaf path of `t` in edges (0 for a single leaf or an empty tree). Walks the
 * children from node 0, not `parent`: XGBoost's JSON stores 2147483647 as the root's parent.
 */
function treeDepth(t: Tree): number {
  let max = 0
  const stack: Array<[number, number]> = t.left.length ? [[0, 0]] : []
  while (stack.length) {
    const [k, d] = stack.pop()!
    if (d > t.left.length) throw new RangeError(`packTrees: tree has a cycle at node ${k}`)
    max = Math.max(max, d)
    if (t.left[k] >= 0) stack.push([t.left[k], d + 1], [t.right[k], d + 1])
  }
  return max
}

/** Hessian floor of the logistic loss (XGBoost `kRtEps`-style clamp, keeps H > 0). */
export const LOGISTIC_MIN_HESS = 1e-16

/** FLT_MIN: XGBoost 1.7.4's softmax starts its running max there (numeric_limits<float>::min()). */
const FLT_MIN = 2 ** -126

/** Hessian floor of the softmax loss (XGBoost 1.7.4 multiclass_obj.cu: eps = 1e-16f). */
export const SOFTMAX_MIN_HESS = 1e-16

/**
 * Softmax of `k` margins at `margins[at …]` into `out[at …]`, in XGBoost 1.7.4's steps
 * (common::Softmax / multiclass_obj.cu): wmax = max(FLT_MIN, margins) in f32, e_j = expf(m_j − wmax),
 * wsum = Σ e_j in double, p_j = e_j / float(wsum) in f32.
 */
export function softmaxAt(margins: ArrayLike<number>, out: Float32Array, at: number, k: number): void {
  let wmax = FLT_MIN
  for (let j = 0; j < k; j++) wmax = Math.max(wmax, margins[at + j])
  let wsum = 0
  for (let j = 0; j < k; j++) wsum += Math.fround(Math.exp(Math.fround(margins[at + j] - wmax)))
  const s = Math.fround(wsum)
  for (let j = 0; j < k; j++) out[at + j] = Math.fround(Math.fround(Math.exp(Math.fround(margins[at + j] - wmax))) / s)
}
