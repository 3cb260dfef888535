/**
 * Types of the recommender: parameters, feature layout, model shape and state.
 * Legend: B = batch rows, S = sparse (embedding) features, K = bag (multi-hot list) features,
 * M = bag items of a batch, D = embedding dim, R = total embedding rows over all tables,
 * Cd = dense inputs, C0 = (S + K)·D + Cd (MLP input), H_l = hidden width of layer l, L = hidden layers,
 * Kc = cross layers, r = cross rank.
 */

/** Dense-weight optimizer: Adam (coupled L2 off) or AdamW (decoupled weight decay). */
export type DenseOptimizer = 'adam' | 'adamw'
/** Embedding optimizer: both update only the rows a batch touched. */
export type EmbeddingOptimizer = 'adagrad' | 'rowwise_adam'
/** LR decay after warmup (optimizer.ts lrAt). */
export type ScheduleName = 'constant' | 'cosine' | 'step'
/** 'mlp': the MLP reads the concatenated inputs; 'dcn': a DCN-v2 cross network between them and the MLP. */
export type Architecture = 'mlp' | 'dcn'

/** Validated training parameters (names as in `--params`, snake_case like the issue). */
export interface RecsysParams {
  epochs: number
  batch_size: number
  embedding_dim: number
  /** Hidden layer widths, input to output (the 1-logit output layer is added). */
  layers: number[]
  /** 'dcn' puts `cross_layers` cross layers before the MLP (DCN-v2, stacked). */
  architecture: Architecture
  /** Kc, cross layers of 'dcn' (only with 'dcn'). */
  cross_layers: number
  /** r: 0 = full-rank cross weights [C0 × C0], else low-rank U V with 1 ≤ r ≤ C0 (only with 'dcn'). */
  cross_rank: number
  lr: number
  optimizer: DenseOptimizer
  embedding_optimizer: EmbeddingOptimizer
  /** Peak lr of the embedding optimizer (follows the same schedule shape as `lr`). */
  embedding_lr: number
  /** AdamW decoupled weight decay of the dense weights (0 for 'adam'). */
  weight_decay: number
  /** Buckets per sparse or bag feature: one number for all, or per feature (others default). */
  buckets?: number | Record<string, number>
  /** Pooling of the bag features' item embeddings: one for all, or per bag column (others 'mean'). */
  pooling: BagPooling | Record<string, BagPooling>
  warmup_steps: number
  schedule: ScheduleName
  seed: number
  /** Steps between metric read-backs / validation passes. */
  eval_every: number
  /** Stop when the early-stopping metric has not improved for this many evaluations (0 = never). */
  early_stopping_rounds: number
  /** What early stopping and restore_best follow: 'auc' (default) or 'gauc' maximised, 'logloss' minimised. */
  early_stopping_metric: 'auc' | 'logloss' | 'gauc'
  /**
   * Column whose values group the validation rows for grouped AUC (`gauc`, e.g. a user id); any
   * column of the table, feature or not. Unset: no gauc.
   */
  gauc_group?: string
  /**
   * At the end of the run (early stop or last epoch), put back the weights of the best validation
   * evaluation (Keras' restore_best_weights; optimizer state stays the last step's). Default:
   * early_stopping_rounds > 0.
   */
  restore_best: boolean
  /**
   * Multi-rank runs (`--ranks R`): peak lr and embedding_lr × 1 ('none'), × R ('linear') or × √R
   * ('sqrt'), reached after warmup_steps. No effect with one rank.
   */
  lr_scaling: 'none' | 'linear' | 'sqrt'
  /** Dense columns transformed by log1p(max(x, 0)) before normalisation. */
  log1p: string[]
  /** Adam moments (dense and row-wise): fixed, not in `--params`. */
  beta1: number
  beta2: number
  eps: number
}

/**
 * Delta type of a hashed value (a sparse column, or a bag column's items): integers and booleans
 * hash as int64 (8 little-endian bytes), strings by their UTF-8 bytes, binary by its bytes.
 */
export type HashedType = 'string' | 'binary' | 'boolean' | 'byte' | 'short' | 'integer' | 'long'

/** How one sparse column maps to embedding rows. */
export interface SparseFeature {
  name: string
  /** The column's Delta type (absent in layouts written before it was recorded; ONNX export needs it). */
  type?: HashedType
  /** Distinct values seen in the training data (capped, see features.ts). */
  cardinality: number
  buckets: number
  /** First global row of this feature's table. */
  tableOffset: number
  /** Bytes of the table's weights (buckets · D · 4). */
  bytes: number
}

/** How one dense input column is normalised: x' = (t(x) − mean) / std, t = log1p or identity. */
export interface DenseFeature {
  name: string
  log1p: boolean
  mean: number
  std: number
  /** Adds a 0/1 missing-indicator input after the value (the column had nulls in training data). */
  indicator: boolean
}

/** How a bag's item embeddings become one vector: their sum or their mean (empty bag → zeros). */
export type BagPooling = 'sum' | 'mean'

/**
 * A multi-hot list column (array of ids, strings, integers, booleans): each item hashed as a
 * scalar value is, bucket = hash mod buckets, the row's items pooled into one D-vector. Its table
 * fields are a sparse feature's (type = the items' type, cardinality = distinct items; bag tables
 * follow the sparse tables in the stack).
 */
export interface BagFeature extends SparseFeature {
  pooling: BagPooling
}

/** A fixed-length array column copied as it is (NaN → 0), `length` inputs. */
export interface ListFeature {
  name: string
  length: number
}

/** Everything featurize() needs; JSON-serialisable (stored in checkpoints). */
export interface FeatureLayout {
  label: string
  sparse: SparseFeature[]
  dense: DenseFeature[]
  lists: ListFeature[]
  /** Bag features, in MLP input order (absent in layouts written before bags existed: none). */
  bags?: BagFeature[]
  /** R = Σ buckets (sparse, then bag tables). */
  totalRows: number
  /** Cd = dense values + indicators + list elements. */
  denseInputs: number
}

/** One batch ready for the model. */
export interface ModelBatch {
  /** Rows in the batch (B). */
  n: number
  /** u32 [B × S]: global embedding row per lookup. */
  rows: Uint32Array<ArrayBuffer>
  /** f32 [B × Cd]. */
  dense: Float32Array<ArrayBuffer>
  /** f32 [B], 0/1. */
  labels: Float32Array<ArrayBuffer>
  /**
   * With K > 0 bag features: u32 [M] global embedding rows of every bag item, row-major (row b,
   * bag k, its items in list order); absent when K = 0.
   */
  bagRows?: Uint32Array<ArrayBuffer>
  /** u32 [B·K + 1]: the items of (row b, bag k) are bagRows[bagOffsets[b·K + k] .. bagOffsets[b·K + k + 1]). */
  bagOffsets?: Uint32Array<ArrayBuffer>
  /** Validation rows with a gauc_group: [B] the group column's decoded value (hash or float) per row. */
  groups?: Float64Array<ArrayBuffer>
}

/** Sizes of the model. */
export interface ModelShape {
  /** S */
  sparse: number
  /** K: bag features, each one pooled D-vector of the MLP input (absent = 0). */
  bags?: number
  /** Pooling of each bag feature, [K] in layout order (absent: all 'mean'). */
  pooling?: BagPooling[]
  /** D */
  dim: number
  /** R */
  totalRows: number
  /** Cd */
  dense: number
  /** Hidden widths H_0 … H_{L−1}. */
  layers: number[]
  /**
   * Cross network before the MLP: Kc = `layers` cross layers of rank `rank` (0 = full). Absent or
   * layers 0: none ('mlp', and checkpoints written before the cross network existed).
   */
  cross?: CrossShape
}

/** Cross network sizes: Kc layers x_{k+1} = x0 ⊙ (W_k x_k + b_k) + x_k, W_k full or U_k V_k of rank r. */
export interface CrossShape {
  /** Kc (0 = no cross network). */
  layers: number
  /** r: 0 = full rank W_k [C0 × C0]; else V_k [r × C0], U_k [C0 × r]. */
  rank: number
}

/**
 * A dense tensor: cross `c{k}.w` [C0 × C0] (or `c{k}.v` [r × C0], `c{k}.u` [C0 × r]) and `c{k}.b` [C0];
 * MLP `w{l}` [OC × C] or `b{l}` [OC], the output layer is l = L.
 */
export interface DenseTensor {
  name: string
  length: number
  rows: number
  cols: number
}

/** Weights: embeddings f32 [R × D] and the dense tensors (cross, then MLP) in layout order. */
export interface ModelWeights {
  embeddings: Float32Array<ArrayBuffer>
  dense: Float32Array<ArrayBuffer>[]
}

/** Optimizer state; only the fields of the chosen optimizers are present. */
export interface OptimizerState {
  /** Updates applied so far (Adam's t of the next update is step + 1). */
  step: number
  /** Adam m, v per dense tensor, layout order. */
  m: Float32Array<ArrayBuffer>[]
  v: Float32Array<ArrayBuffer>[]
  /** adagrad: f32 [R × D]. */
  accum?: Float32Array<ArrayBuffer>
  /** rowwise_adam: f32 [R × D] each, and u32 [R] row steps. */
  embM?: Float32Array<ArrayBuffer>
  embV?: Float32Array<ArrayBuffer>
  rowStep?: Uint32Array<ArrayBuffer>
}

/** Learning rates of one step. */
export interface StepLr {
  dense: number
  embedding: number
}
