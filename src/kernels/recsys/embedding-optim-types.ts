/**
 * Shapes and hyperparameters of the recommender kernels.
 * Legend: B = batch rows, S = sparse features, D = embedding dim, R = total embedding rows over
 * all tables, U = unique rows a batch touched, P = parameters of a dense tensor.
 */

/** embedding_forward: `positions` = B·S lookups of `dim` = D floats from a table of `totalRows` = R rows. */
export interface EmbeddingForwardShape {
  positions: number
  dim: number
  totalRows: number
}

/** embedding_backward: `uniq` = U segments of `dim` = D floats, summed from `positions` = B·S rows of dout. */
export interface EmbeddingBackwardShape {
  uniq: number
  dim: number
  positions: number
}

/**
 * embedding_bag_forward: `b` = B rows × `k` = K bags, each pooled from its items' rows of `dim` =
 * D floats in a table of `totalRows` = R rows.
 */
export interface EmbeddingBagForwardShape {
  b: number
  k: number
  dim: number
  totalRows: number
}

/**
 * embedding_bag_backward: `items` = M item gradients of `dim` = D floats from the pooled
 * gradients of `b` = B rows × `k` = K bags, read from rows of `stride` floats at column `offset`
 * (bag k at offset + k·D); written from position `base` of dItems.
 */
export interface EmbeddingBagBackwardShape {
  b: number
  k: number
  dim: number
  items: number
  stride: number
  offset: number
  base: number
}

/** adam: `params` = P elements of one dense tensor (weights, m, v, grads all of length P). */
export interface AdamShape {
  params: number
}

/** adagrad / rowwise_adam: `uniq` = U touched rows of `dim` = D in a table of `totalRows` = R rows. */
export interface RowUpdateShape {
  uniq: number
  dim: number
  totalRows: number
}

/**
 * AdamW hyperparameters (PyTorch `torch.optim.AdamW` semantics): decoupled `weightDecay`
 * (p ← p·(1 − lr·wd) before the Adam step), bias correction with `t` = 1-based step number.
 */
export interface AdamHyper {
  lr: number
  beta1: number
  beta2: number
  eps: number
  weightDecay: number
  /** Step number, ≥ 1 (the first update is t = 1). */
  t: number
}

/** Row-wise (lazy) Adam: like AdamHyper, but each row's step comes from the rowStep buffer. */
export type RowwiseAdamHyper = Omit<AdamHyper, 't'>

/** Adagrad (PyTorch `torch.optim.Adagrad` without lr_decay / weight_decay). */
export interface AdagradHyper {
  lr: number
  eps: number
}
