/**
 * The GBDT driver (XGBoost `LearnerImpl::UpdateOneIter` + hist `Driver` / `UpdateTree`): sketch →
 * cuts → binned matrix once, then per round grow one tree through a backend (depthwise: level by
 * level; lossguide: best loss change first), add it to the margins and evaluate the metrics.
 * N = rows, F = features, V = validation rows.
 */
import type { BinnedMatrix, Booster, Cuts, GbdtParams, SplitCandidate, Tree } from './types.ts'
import type { AppliedSplit, BackendFactory, GbdtBackend, NodeSums } from './backend.ts'
import { buildCuts, type CategoricalFeatures } from './cuts.ts'
import { categoricalFlags, trainedFeatureTypes } from './features.ts'
import { binMatrix } from './binned.ts'
import { baseMargin, leafQuantile, transform } from './objective.ts'
import { checkLabels, estimateBaseScore } from '../../eval/labels.ts'
import { labelQuantile, refreshLeaves } from './leaf-refresh.ts'
import { rowSampled } from './sampling.ts'
import type { TrainData } from '../../eval/dataset.ts'
import { evaluate, maximize } from '../../eval/metrics.ts'
import { calcWeight, RT_EPS } from './evaluate.ts'
import { expandNode, finishTree, newTree, type TreeBuilder } from './tree.ts'
import { ColumnSampler } from './sampling.ts'
import { createCpuBackend } from './cpu-backend.ts'
import { continueFrom } from './init-model.ts'
import { type Constraints, resolveConstraints, TreeConstraints } from './constraints.ts'

/** Options of one training run. */
export interface TrainOptions {
  /** Called after each round with the validation metrics; 'stop' ends training after this round (a sweep's rung said so). */
  onRound?: (round: number, metrics: Record<string, number>) => void | 'stop'
  /** Precomputed cuts (e.g. merged from workers' sketches); default: sketched here. */
  cuts?: Cuts
  /** The binned matrix of `cuts` (a sweep's data cache shares it between trials); default: binned here. */
  binned?: BinnedMatrix
  /** base_score computed elsewhere (across ranks: from label sums over all ranks); default: params or estimated here. */
  baseScore?: number
  /**
   * Data-parallel runs: called by every rank each round with its metrics (only the rank
   * holding the validation set has any) and resolving to the metrics every rank uses, so early
   * stopping decides alike everywhere. Set, it also lets this rank have no validation set.
   */
  shareMetrics?: (metrics: Record<string, number>) => Promise<Record<string, number>>
  /**
   * Continue boosting from this model (XGBoost's `xgb_model`): margins start at its base margin
   * plus its trees, its base_score is kept, num_round trees are added after its trees and rounds
   * are numbered after them (init-model.ts). onRound still counts this run's rounds from 0.
   */
  initModel?: Booster
  /** Hears each round's validation predictions (after the objective's transform, V values): the run's ROC. */
  onValidScores?: (pred: Float32Array) => void
}

/** A node waiting for a decision, with its best split. */
interface Entry {
  nid: number
  split: SplitCandidate
}

/** Per-tree growth state shared by the two grow policies. */
interface Growth {
  b: GbdtBackend
  p: GbdtParams
  cuts: Cuts
  sampler: ColumnSampler
  t: TreeBuilder
  sums: Map<number, NodeSums>
  /** Monotone bounds and interaction sets of this tree's nodes. */
  c: TreeConstraints
}

/** Trains a booster (XGBoost `xgb.train`). `backend` defaults to the CPU reference backend. */
export async function train(
  data: TrainData,
  p: GbdtParams,
  backend: BackendFactory = createCpuBackend,
  opts: TrainOptions = {},
): Promise<Booster> {
  checkData(data, p, opts.shareMetrics !== undefined)
  const categorical = categoricalOf(data, p)
  const cuts = opts.cuts ?? buildCuts(data.columns, p.max_bin, data.weights, categorical)
  checkCutsCategorical(cuts, categorical)
  const binned = opts.binned ?? binMatrix(data.columns, cuts)
  const constraints = resolveConstraints(p, featureNamesOf(data), categorical.flags)
  const init = opts.initModel && continueFrom(opts.initModel, data, p.objective)
  // XGBoost holds base_score as an f32; rounding here keeps exported and trained margins identical.
  const baseScore = Math.fround(init?.baseScore ?? opts.baseScore ?? p.base_score ?? defaultBaseScore(p, data))
  const b = await backend({
    params: p,
    cuts,
    binned,
    labels: data.labels,
    weights: data.weights,
    baseMargin: Math.fround(baseMargin(p.objective, baseScore)),
    validColumns: data.valid?.columns,
    initMargins: init?.margins ?? rowBaseMargins(data),
    monotone: constraints.monotone,
  })
  const sampler = new ColumnSampler(data.columns.length, p, p.seed)
  const trees: Tree[] = init ? init.trees.slice() : [],
    history: Array<Record<string, number>> = []
  const stop = earlyStopper(p)
  const first = trees.length
  try {
    for (let round = first; round < first + p.num_round; round++) {
      sampler.beginTree(round)
      const tree = await growTree(b, p, cuts, sampler, round, constraints)
      await refreshTreeLeaves(b, tree, data, p, round)
      await b.finishTree(tree)
      trees.push(tree)
      const own = await evalRound(b, data, p, opts.onValidScores)
      const metrics = opts.shareMetrics ? await opts.shareMetrics(own) : own
      history.push(metrics)
      const asked = opts.onRound?.(round - first, metrics)
      if (stop.update(round, metrics) || asked === 'stop') break
    }
  } finally {
    b.dispose()
  }
  return {
    params: p,
    featureNames: data.featureNames ?? data.columns.map((_, f) => `f${f}`),
    featureTypes: trainedFeatureTypes(featureTypesOf(data), categorical.flags),
    baseScore,
    trees,
    history,
    bestIteration: stop.best < 0 ? trees.length - 1 : stop.best,
  }
}

/**
 * The rows' own starting margins (TrainData.baseMargin, XGBoost's base_margin: base_score is then
 * not added to these rows), training and validation; undefined without them.
 */
function rowBaseMargins(d: TrainData): { train: Float32Array; valid?: Float32Array } | undefined {
  if (!d.baseMargin) return undefined
  if (d.baseMargin.length !== d.labels.length)
    throw new RangeError(`base margin: ${d.baseMargin.length} values for ${d.labels.length} rows (one output per row)`)
  if (d.valid && !d.valid.baseMargin) throw new RangeError('base margin: the validation rows have none')
  return { train: d.baseMargin, valid: d.valid?.baseMargin }
}

/** Feature names of the data (f0, f1, … when not given). */
function featureNamesOf(d: TrainData): string[] {
  return d.featureNames ?? d.columns.map((_, f) => `f${f}`)
}

/** XGBoost feature types of the data ('float' when not given). */
function featureTypesOf(d: TrainData): string[] {
  return d.featureTypes ?? d.columns.map(() => 'float')
}

/** Which features split as categories (features.ts categoricalFlags), with their names. */
export function categoricalOf(d: TrainData, p: GbdtParams): CategoricalFeatures {
  const names = featureNamesOf(d)
  return { flags: categoricalFlags(names, featureTypesOf(d), p), names }
}

/** Precomputed cuts must have been built for the same categorical features. */
function checkCutsCategorical(cuts: Cuts, c: CategoricalFeatures): void {
  const same = c.flags.every((x, f) => x === (cuts.categorical?.[f] ?? 0))
  if (!same) throw new Error('train: the given cuts were built for other categorical features than the parameters ask')
}

function checkData(d: TrainData, p: GbdtParams, shared: boolean): void {
  const n = d.labels.length
  if (n === 0) throw new RangeError('training data: no rows (empty table or filter result)')
  if (d.columns.length === 0) throw new RangeError('training data: no feature columns')
  if (d.valid && d.valid.columns.length !== d.columns.length) {
    throw new RangeError(`validation data: ${d.valid.columns.length} feature columns, training has ${d.columns.length}`)
  }
  d.columns.forEach((c, f) => {
    if (c.length !== n) throw new RangeError(`feature ${d.featureNames?.[f] ?? f}: ${c.length} values for ${n} labels`)
  })
  checkLabels(p.objective, d.labels, d.labelName)
  if (d.valid) checkLabels(p.objective, d.valid.labels, d.labelName)
  if (shared && leafQuantile(p) !== undefined)
    throw new RangeError(
      `objective: ${p.objective} refreshes leaf values from residual quantiles, not supported across ranks yet (train on one rank)`,
    )
  if (p.early_stopping_rounds !== undefined && !d.valid && !shared)
    throw new RangeError('early_stopping_rounds: needs a validation set')
}

/**
 * base_score when neither the parameters nor the caller give one: the weighted label mean
 * (labels.ts), for the quantile objectives the label quantile (XGBoost 2.0's InitEstimation).
 */
function defaultBaseScore(p: GbdtParams, d: TrainData): number {
  const alpha = leafQuantile(p)
  return alpha === undefined
    ? estimateBaseScore(p.objective, d.labels, d.weights)
    : labelQuantile(alpha, d.labels, d.weights)
}

/**
 * The quantile objectives' leaf values (leaf-refresh.ts, XGBoost UpdateTreeLeaf): eta × the
 * residual quantile of each leaf's rows at the margins before this tree. Other objectives: nothing.
 */
async function refreshTreeLeaves(b: GbdtBackend, tree: Tree, d: TrainData, p: GbdtParams, round: number) {
  const alpha = leafQuantile(p)
  if (alpha === undefined) return
  const rows = {
    positions: await b.leafPositions(),
    margins: await b.trainMargins(),
    labels: d.labels,
    weights: d.weights,
    sampled: (i: number) => rowSampled(p.seed, round, i, p.subsample),
  }
  refreshLeaves(tree, rows, alpha, p.eta)
}

/** Grows one tree (XGBoost UpdateTree): root, then expand by the grow policy. */
async function growTree(
  b: GbdtBackend,
  p: GbdtParams,
  cuts: Cuts,
  sampler: ColumnSampler,
  round: number,
  constraints: Constraints,
): Promise<Tree> {
  const root = await b.beginRound(round)
  const g: Growth = {
    b,
    p,
    cuts,
    sampler,
    t: newTree(p.eta * calcWeight(p, root.g, root.h), root.h),
    sums: new Map([[0, root]]),
    c: new TreeConstraints(constraints),
  }
  await b.buildHistograms([0])
  const [rootEntry] = await evaluateNodes(g, [0])
  if (p.grow_policy === 'lossguide') await growLossguide(g, rootEntry)
  else await growDepthwise(g, rootEntry)
  return finishTree(g.t)
}

/** Depthwise: split every valid node of a level, then build the next level's histograms at once. */
async function growDepthwise(g: Growth, root: Entry): Promise<void> {
  let level = [root]
  let leaves = 1
  while (level.length > 0) {
    const chosen: Entry[] = []
    for (const e of level)
      if (canSplit(g, e, leaves)) {
        chosen.push(e)
        leaves++
      }
    const applied = chosen.map(e => expand(g, e))
    await g.b.applySplits(applied)
    const open = applied.filter(a => !atMaxDepth(g, a.left))
    g.b.releaseHistograms(level.filter(e => !open.some(a => a.nid === e.nid)).map(e => e.nid))
    level = await buildChildren(g, open)
  }
}

/** Lossguide: always split the open node with the largest loss change, up to max_leaves. */
async function growLossguide(g: Growth, root: Entry): Promise<void> {
  const queue = [root]
  let leaves = 1
  while (queue.length > 0) {
    // Largest gain first; ties by node id, the order XGBoost's queue breaks them (timestamp).
    queue.sort((x, y) => y.split.gain - x.split.gain || x.nid - y.nid)
    const e = queue.shift()!
    if (!canSplit(g, e, leaves)) {
      g.b.releaseHistograms([e.nid])
      continue
    }
    const a = expand(g, e)
    leaves++
    await g.b.applySplits([a])
    if (atMaxDepth(g, a.left)) {
      g.b.releaseHistograms([e.nid])
      continue
    }
    queue.push(...(await buildChildren(g, [a])))
  }
}

/** Histograms of the children of `splits` (smaller one built, sibling by subtraction), evaluated. */
async function buildChildren(g: Growth, splits: AppliedSplit[]): Promise<Entry[]> {
  if (splits.length === 0) return []
  // Build the child with the smaller hessian sum (fewer rows, roughly): less histogram work.
  const small = splits.map(a => (a.split.leftH <= a.split.rightH ? a.left : a.right))
  await g.b.buildHistograms(small)
  await g.b.subtractHistograms(
    splits.map((a, i) => ({ parent: a.nid, built: small[i], sibling: small[i] === a.left ? a.right : a.left })),
  )
  g.b.releaseHistograms(splits.map(a => a.nid))
  return evaluateNodes(
    g,
    splits.flatMap(a => [a.left, a.right]),
  )
}

async function evaluateNodes(g: Growth, nids: number[]): Promise<Entry[]> {
  const requests = nids.map(nid => ({
    nid,
    featureMask: g.c.restrict(nid, g.sampler.mask(g.t.depth[nid], nid)),
    bounds: g.c.monotone ? g.c.nodeBounds(nid) : undefined,
  }))
  const splits = await g.b.evaluateSplits(requests)
  return nids.map((nid, i) => ({ nid, split: splits[i] }))
}

/** XGBoost ExpandEntry::IsValid: gain above kRtEps and γ (greedy, no post-pruning), both children with hessian, within max_leaves. */
function canSplit(g: Growth, e: Entry, leaves: number): boolean {
  const s = e.split
  if (s.feature < 0 || !(s.gain > RT_EPS) || s.gain < g.p.gamma) return false
  if (s.leftH === 0 || s.rightH === 0) return false
  return !(g.p.max_leaves > 0 && leaves >= g.p.max_leaves)
}

function atMaxDepth(g: Growth, nid: number): boolean {
  return g.p.max_depth > 0 && g.t.depth[nid] >= g.p.max_depth
}

/**
 * Adds the split to the tree: children become leaves with eta-scaled weights. Under monotone
 * constraints the weights are the split search's, clamped to the node's bounds (XGBoost's
 * evaluator), and the children get their bounds from them.
 */
function expand(g: Growth, e: Entry): AppliedSplit {
  const s = e.split,
    p = g.p
  const parent = g.sums.get(e.nid)!
  const [lo, hi] = g.c.nodeBounds(e.nid)
  const bounded = g.c.monotone
  const base = calcWeight(p, parent.g, parent.h)
  const wl = bounded ? s.leftWeight! : calcWeight(p, s.leftG, s.leftH),
    wr = bounded ? s.rightWeight! : calcWeight(p, s.rightG, s.rightH)
  const [left, right] = expandNode(
    g.t,
    e.nid,
    s,
    g.cuts,
    bounded ? Math.min(Math.max(base, lo), hi) : base,
    p.eta * wl,
    p.eta * wr,
  )
  g.c.split(e.nid, left, right, s.feature, wl, wr)
  g.sums.set(left, { g: s.leftG, h: s.leftH })
  g.sums.set(right, { g: s.rightG, h: s.rightH })
  return { nid: e.nid, left, right, split: s }
}

/** Validation metrics of the current model (empty without a validation set). */
async function evalRound(
  b: GbdtBackend,
  d: TrainData,
  p: GbdtParams,
  onScores?: (pred: Float32Array) => void,
): Promise<Record<string, number>> {
  const margins = await b.validMargins()
  if (!margins || !d.valid) return {}
  const pred = margins.map(m => transform(p.objective, m))
  onScores?.(pred)
  const out: Record<string, number> = {}
  // Every metric sees the learner's parameters (mphe: huber_slope; quantile: quantile_alpha), as in XGBoost.
  for (const m of p.eval_metric) out[m] = evaluate(m, pred, d.valid.labels, d.valid.weights, p)
  return out
}

/** XGBoost's EarlyStopping callback on the last eval metric: stop after N rounds without gain. */
function earlyStopper(p: GbdtParams): { best: number; update: (round: number, m: Record<string, number>) => boolean } {
  const metric = p.eval_metric[p.eval_metric.length - 1]
  const sign = maximize(metric) ? 1 : -1
  let bestScore = -Infinity
  const state = {
    best: -1,
    update(round: number, m: Record<string, number>): boolean {
      if (p.early_stopping_rounds === undefined || m[metric] === undefined) return false
      const score = sign * m[metric]
      if (score > bestScore || state.best < 0) {
        bestScore = score
        state.best = round
      }
      return round - state.best >= p.early_stopping_rounds
    },
  }
  return state
}
