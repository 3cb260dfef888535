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
import { baseMargin, isMulticlass, leafQuantile, outputsOf, transformRows } from './objective.ts'
import { checkLabels, estimateBaseScore, inferNumClass } from '../../eval/labels.ts'
import { labelQuantile, refreshLeaves } from './leaf-refresh.ts'
import { rowSampled, treeIndex } from './sampling.ts'
import { checkRankData, hostRankGradients, isRanking } from './rank-objective.ts'
import type { TrainData } from '../../eval/dataset.ts'
import { evaluate, maximize, TRAIN_PREFIX } from '../../eval/metrics.ts'
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
  /**
   * Also evaluate every eval_metric on the training rows each round, as XGBoost's
   * evals=[(dtrain, 'train'), …] (`train-auc`, … after the validation names; evalTrainRound). Not
   * with shareMetrics (a rank holds a share of the rows). Metrics only: the trees are the same.
   */
  evalTrain?: boolean
}

/** A node waiting for a decision, with its best split; `nid` is its round node id (Growth). */
interface Entry {
  nid: number
  split: SplitCandidate
}

/** One class's tree of the round (K = 1: the round's only tree). */
interface ClassTree {
  t: TreeBuilder
  sampler: ColumnSampler
  /** Monotone bounds and interaction sets of this tree's nodes. */
  c: TreeConstraints
  leaves: number
}

/**
 * Per-round growth state shared by the two grow policies. The round's K trees (one per class)
 * grow in lockstep so one histogram pass serves every class: the backend sees ROUND node ids —
 * class k's root is k, later nodes are numbered in the order they are made — and the driver maps
 * them to (class, tree node). With K = 1 round ids are the tree's node ids.
 */
interface Growth {
  b: GbdtBackend
  p: GbdtParams
  cuts: Cuts
  trees: ClassTree[]
  /** Class and tree node of each round node id. */
  classOf: number[]
  localOf: number[]
  sums: Map<number, NodeSums>
}

/** Trains a booster (XGBoost `xgb.train`). `backend` defaults to the CPU reference backend. */
export async function train(
  data: TrainData,
  given: GbdtParams,
  backend: BackendFactory = createCpuBackend,
  opts: TrainOptions = {},
): Promise<Booster> {
  // Continuing a multiclass model: its num_class unless the parameters give one (continueFrom checks they agree).
  const fromModel = opts.initModel?.numClass
  const p = resolveNumClass(fromModel && given.num_class === 0 ? { ...given, num_class: fromModel } : given, data)
  checkData(data, p, opts.shareMetrics !== undefined)
  if (opts.evalTrain && opts.shareMetrics)
    throw new RangeError('training-rows metrics (eval train) are not computed across ranks: train with 1 rank')
  const categorical = categoricalOf(data, p)
  const cuts = opts.cuts ?? buildCuts(data.columns, p.max_bin, data.weights, categorical)
  checkCutsCategorical(cuts, categorical)
  const binned = opts.binned ?? binMatrix(data.columns, cuts)
  const constraints = resolveConstraints(p, featureNamesOf(data), categorical.flags)
  const K = outputsOf(p)
  const init = opts.initModel && continueFrom(opts.initModel, data, p.objective, K)
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
    initMargins: init?.margins ?? rowBaseMargins(data, K),
    monotone: constraints.monotone,
    hostGradients: isRanking(p.objective) ? hostRankGradients(p, data.labels, data.groups!) : undefined,
  })
  const samplers = Array.from({ length: K }, () => new ColumnSampler(data.columns.length, p, p.seed))
  const trees: Tree[] = init ? init.trees.slice() : [],
    history: Array<Record<string, number>> = []
  const stop = earlyStopper(p)
  const first = trees.length / K
  try {
    for (let round = first; round < first + p.num_round; round++) {
      const grown = await growRound(b, p, cuts, samplers, round, constraints)
      if (K === 1) await refreshTreeLeaves(b, grown.trees[0], data, p, round)
      await b.finishTrees(grown.trees, roundValues(grown))
      trees.push(...grown.trees)
      const own = await evalRound(b, data, p, opts.onValidScores)
      if (opts.evalTrain) Object.assign(own, await evalTrainRound(b, data, p))
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
    bestIteration: stop.best < 0 ? trees.length / K - 1 : stop.best,
    ...(K > 1 ? { numClass: K } : {}),
  }
}

/**
 * The rows' own starting margins (TrainData.baseMargin, XGBoost's base_margin: base_score is then
 * not added to these rows), training and validation; undefined without them.
 */
function rowBaseMargins(d: TrainData, K: number): { train: Float32Array; valid?: Float32Array } | undefined {
  if (!d.baseMargin) return undefined
  if (d.baseMargin.length !== d.labels.length * K)
    throw new RangeError(
      `base margin: ${d.baseMargin.length} values for ${d.labels.length} rows (${K} output${K > 1 ? 's' : ''} per row)`,
    )
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

/**
 * The parameters with num_class set for a multiclass objective given num_class 0: max label + 1
 * over the training and validation rows (inferNumClass; XGBoost needs it given). A data-parallel
 * run resolves it over all rows before splitting them (ranks.ts), so every rank has it.
 */
export function resolveNumClass(p: GbdtParams, d: Pick<TrainData, 'labels' | 'valid' | 'labelName'>): GbdtParams {
  if (!isMulticlass(p.objective) || p.num_class > 0) return p
  const num_class = inferNumClass(d.labels, d.valid?.labels ?? [])
  if (num_class < 2)
    throw new RangeError(
      `num_class: ${p.objective} needs at least 2 classes; label column ${d.labelName ?? 'label'} has ${Math.max(num_class, 0)} (labels 0 … K−1)`,
    )
  return { ...p, num_class }
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
  const K = isMulticlass(p.objective) ? p.num_class : undefined
  checkLabels(p.objective, d.labels, d.labelName, K)
  if (d.valid) checkLabels(p.objective, d.valid.labels, d.labelName, K)
  if (isRanking(p.objective)) checkRankData(d, p)
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

/** The round's trees with the (class, tree node) of each round node id. */
interface Round {
  trees: Tree[]
  classOf: number[]
  localOf: number[]
}

/** Leaf value of each round node id (read after any leaf refresh): what the backend adds to the margins. */
function roundValues(r: Round): Float32Array {
  return Float32Array.from(r.classOf, (k, nid) => r.trees[k].splitCondition[r.localOf[nid]])
}

/**
 * Grows the round's K trees (XGBoost UpdateTree per output group), in lockstep: root, then
 * expand by the grow policy.
 */
async function growRound(
  b: GbdtBackend,
  p: GbdtParams,
  cuts: Cuts,
  samplers: ColumnSampler[],
  round: number,
  constraints: Constraints,
): Promise<Round> {
  const roots = await b.beginRound(round)
  const K = roots.length
  const g: Growth = {
    b,
    p,
    cuts,
    trees: roots.map((root, k) => {
      samplers[k].beginTree(treeIndex(round, k, K))
      return {
        t: newTree(p.eta * calcWeight(p, root.g, root.h), root.h),
        sampler: samplers[k],
        c: new TreeConstraints(constraints),
        leaves: 1,
      }
    }),
    classOf: roots.map((_, k) => k),
    localOf: roots.map(() => 0),
    sums: new Map(roots.map((root, k) => [k, root])),
  }
  const rootIds = roots.map((_, k) => k)
  await b.buildHistograms(rootIds)
  const rootEntries = await evaluateNodes(g, rootIds)
  if (p.grow_policy === 'lossguide') await growLossguide(g, rootEntries)
  else await growDepthwise(g, rootEntries)
  return { trees: g.trees.map(c => finishTree(c.t)), classOf: g.classOf, localOf: g.localOf }
}

/** Depthwise: split every valid node of a level (of every class tree), then build the next level's histograms at once. */
async function growDepthwise(g: Growth, roots: Entry[]): Promise<void> {
  let level = roots
  while (level.length > 0) {
    const chosen: Entry[] = []
    for (const e of level)
      if (canSplit(g, e)) {
        chosen.push(e)
        classTree(g, e.nid).leaves++
      }
    const applied = chosen.map(e => expand(g, e))
    await g.b.applySplits(applied)
    const open = applied.filter(a => !atMaxDepth(g, a.left))
    g.b.releaseHistograms(level.filter(e => !open.some(a => a.nid === e.nid)).map(e => e.nid))
    level = await buildChildren(g, open)
  }
}

/**
 * Lossguide: each class tree always splits its open node with the largest loss change, up to
 * max_leaves; the K trees take one step each per histogram pass.
 */
async function growLossguide(g: Growth, roots: Entry[]): Promise<void> {
  const queues = roots.map(e => [e])
  while (queues.some(q => q.length > 0)) {
    const applied: AppliedSplit[] = []
    for (const queue of queues) {
      if (queue.length === 0) continue
      // Largest gain first; ties by node id, the order XGBoost's queue breaks them (timestamp).
      queue.sort((x, y) => y.split.gain - x.split.gain || x.nid - y.nid)
      const e = queue.shift()!
      if (!canSplit(g, e)) {
        g.b.releaseHistograms([e.nid])
        continue
      }
      applied.push(expand(g, e))
      classTree(g, e.nid).leaves++
    }
    if (applied.length === 0) continue
    await g.b.applySplits(applied)
    const done = applied.filter(a => atMaxDepth(g, a.left))
    if (done.length > 0) g.b.releaseHistograms(done.map(a => a.nid))
    for (const e of await buildChildren(
      g,
      applied.filter(a => !atMaxDepth(g, a.left)),
    ))
      queues[g.classOf[e.nid]].push(e)
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

/** The class tree round node `nid` belongs to. */
function classTree(g: Growth, nid: number): ClassTree {
  return g.trees[g.classOf[nid]]
}

async function evaluateNodes(g: Growth, nids: number[]): Promise<Entry[]> {
  const requests = nids.map(nid => {
    const c = classTree(g, nid),
      local = g.localOf[nid]
    return {
      nid,
      featureMask: c.c.restrict(local, c.sampler.mask(c.t.depth[local], local)),
      bounds: c.c.monotone ? c.c.nodeBounds(local) : undefined,
    }
  })
  const splits = await g.b.evaluateSplits(requests)
  return nids.map((nid, i) => ({ nid, split: splits[i] }))
}

/** XGBoost ExpandEntry::IsValid: gain above kRtEps and γ (greedy, no post-pruning), both children with hessian, within max_leaves. */
function canSplit(g: Growth, e: Entry): boolean {
  const s = e.split
  if (s.feature < 0 || !(s.gain > RT_EPS) || s.gain < g.p.gamma) return false
  if (s.leftH === 0 || s.rightH === 0) return false
  return !(g.p.max_leaves > 0 && classTree(g, e.nid).leaves >= g.p.max_leaves)
}

function atMaxDepth(g: Growth, nid: number): boolean {
  return g.p.max_depth > 0 && classTree(g, nid).t.depth[g.localOf[nid]] >= g.p.max_depth
}

/**
 * Adds the split to its class tree: children become leaves with eta-scaled weights. Under
 * monotone constraints the weights are the split search's, clamped to the node's bounds
 * (XGBoost's evaluator), and the children get their bounds from them. The children get the next
 * round node ids.
 */
function expand(g: Growth, e: Entry): AppliedSplit {
  const s = e.split,
    p = g.p
  const k = g.classOf[e.nid],
    local = g.localOf[e.nid],
    ct = g.trees[k]
  const parent = g.sums.get(e.nid)!
  const [lo, hi] = ct.c.nodeBounds(local)
  const bounded = ct.c.monotone
  const base = calcWeight(p, parent.g, parent.h)
  const wl = bounded ? s.leftWeight! : calcWeight(p, s.leftG, s.leftH),
    wr = bounded ? s.rightWeight! : calcWeight(p, s.rightG, s.rightH)
  const [l, r] = expandNode(
    ct.t,
    local,
    s,
    g.cuts,
    bounded ? Math.min(Math.max(base, lo), hi) : base,
    p.eta * wl,
    p.eta * wr,
  )
  ct.c.split(local, l, r, s.feature, wl, wr)
  const left = g.classOf.length,
    right = left + 1
  g.classOf.push(k, k)
  g.localOf.push(l, r)
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
  const pred = transformRows(p.objective, margins, outputsOf(p))
  onScores?.(pred)
  const out: Record<string, number> = {}
  // Every metric sees the learner's parameters (mphe: huber_slope; quantile: quantile_alpha), as in XGBoost.
  // Ranking metrics score each query group (XGBoost's group_ptr).
  const options = d.valid.groups ? { ...p, group_ptr: d.valid.groups } : p
  for (const m of p.eval_metric) out[m] = evaluate(m, pred, d.valid.labels, d.valid.weights, options)
  return out
}

/**
 * Every eval_metric on the training rows at the current margins (XGBoost's `train-…` lines): the
 * margins the gradients are computed from (with any base margins), all rows (not a round's
 * subsample), the row weights and query groups.
 */
async function evalTrainRound(b: GbdtBackend, d: TrainData, p: GbdtParams): Promise<Record<string, number>> {
  const pred = transformRows(p.objective, await b.trainMargins(), outputsOf(p))
  const options = d.groups ? { ...p, group_ptr: d.groups } : p
  const out: Record<string, number> = {}
  for (const m of p.eval_metric) out[`${TRAIN_PREFIX}${m}`] = evaluate(m, pred, d.labels, d.weights, options)
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
