/**
 * XGBoost JSON model format (doc/model.schema, XGBoost 2.x): export of a trained booster that
 * `xgboost.Booster().load_model('model.json')` reads, and import of such a file for prediction.
 * Numbers are written deterministically (f32 values as their shortest round-tripping decimal),
 * so the same booster always gives the same bytes. T = trees, K = nodes of a tree.
 */
import type { Booster, GbdtParams, Tree } from './types.ts'
import { DEFAULT_PARAMS, defaultMetric } from './params.ts'

/** Root's parent in XGBoost's arrays (kInvalidNodeId as stored). */
const NO_PARENT = 2147483647

/** Shortest decimal that reads back as the same f32 (the value as XGBoost holds it). */
export function f32Short(x: number): number {
  const f = Math.fround(x)
  if (!Number.isFinite(f)) throw new RangeError(`model: non-finite value ${x} cannot be written to JSON`)
  for (let p = 1; p < 9; p++) {
    const s = Number(f.toPrecision(p))
    if (Math.fround(s) === f) return s
  }
  return Number(f.toPrecision(9))
}

/** XGBoost writes scalar parameters as strings; floats in its compact form (0.5 → "5E-1" there). */
function floatString(x: number): string {
  return String(f32Short(x))
}

function treeJson(t: Tree, id: number, numFeature: number): Record<string, unknown> {
  const k = t.left.length
  return {
    base_weights: Array.from(t.baseWeight, f32Short),
    categories: [],
    categories_nodes: [],
    categories_segments: [],
    categories_sizes: [],
    default_left: Array.from(t.defaultLeft),
    id,
    left_children: Array.from(t.left),
    loss_changes: Array.from(t.lossChange, f32Short),
    parents: Array.from(t.parent, p => (p < 0 ? NO_PARENT : p)),
    right_children: Array.from(t.right),
    split_conditions: Array.from(t.splitCondition, f32Short),
    split_indices: Array.from(t.splitIndex),
    split_type: new Array<number>(k).fill(0),
    sum_hessian: Array.from(t.sumHessian, f32Short),
    tree_param: { num_deleted: '0', num_feature: String(numFeature), num_nodes: String(k), size_leaf_vector: '1' },
  }
}

/**
 * The booster as an XGBoost JSON model object (learner → gradient_booster gbtree → trees).
 * Categorical codes ('c') are written as 'int': our splits on them are numeric thresholds,
 * which XGBoost evaluates the same way only for a numeric feature type.
 */
export function toXGBoostJson(b: Booster): Record<string, unknown> {
  const F = b.featureNames.length
  const attributes: Record<string, string> = {}
  if (b.params.early_stopping_rounds !== undefined) {
    attributes.best_iteration = String(b.bestIteration)
    const metric = b.params.eval_metric[b.params.eval_metric.length - 1]
    const best = b.history[b.bestIteration]?.[metric]
    if (best !== undefined && Number.isFinite(best)) attributes.best_score = String(best)
  }
  return {
    learner: {
      attributes,
      feature_names: b.featureNames.slice(),
      feature_types: b.featureTypes.map(t => (t === 'c' ? 'int' : t)),
      gradient_booster: {
        model: {
          gbtree_model_param: { num_parallel_tree: '1', num_trees: String(b.trees.length) },
          iteration_indptr: Array.from({ length: b.trees.length + 1 }, (_, i) => i),
          tree_info: new Array<number>(b.trees.length).fill(0),
          trees: b.trees.map((t, i) => treeJson(t, i, F)),
        },
        name: 'gbtree',
      },
      learner_model_param: {
        base_score: floatString(b.baseScore),
        boost_from_average: '1',
        num_class: '0',
        num_feature: String(F),
        num_target: '1',
      },
      objective: {
        name: b.params.objective,
        reg_loss_param: { scale_pos_weight: floatString(b.params.scale_pos_weight) },
      },
    },
    version: [2, 0, 0],
  }
}

/** Tree arrays XGBoost reads as float arrays: its JSON parser refuses an integer token there. */
const FLOAT_ARRAYS = new Set(['base_weights', 'loss_changes', 'split_conditions', 'sum_hessian'])

/** A float token: always with a fraction or exponent ("0" → "0.0"), as XGBoost's reader needs. */
export function floatToken(x: number): string {
  const s = String(f32Short(x))
  return /[.eE]/.test(s) ? s : `${s}.0`
}

function write(v: unknown, floats: boolean): string {
  if (Array.isArray(v)) return `[${v.map(x => (floats ? floatToken(x as number) : write(x, false))).join(',')}]`
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${write(x, FLOAT_ARRAYS.has(k))}`)
      .join(',')}}`
  }
  return JSON.stringify(v)
}

/** The model as a JSON string (deterministic: same booster ⇒ same bytes; keys in fixed order). */
export function toXGBoostJsonString(b: Booster): string {
  return write(toXGBoostJson(b), false)
}

type Json = Record<string, unknown>

function field(o: unknown, key: string, where: string): unknown {
  if (typeof o !== 'object' || o === null || !(key in o)) throw new RangeError(`XGBoost model: missing ${where}.${key}`)
  return (o as Json)[key]
}

function numbers(o: unknown, key: string, where: string): number[] {
  const v = field(o, key, where)
  if (!Array.isArray(v)) throw new RangeError(`XGBoost model: ${where}.${key} is not an array`)
  return v.map(x => (typeof x === 'boolean' ? (x ? 1 : 0) : Number(x)))
}

/** Parses "0.5", "5E-1" or XGBoost 3's "[5E-1]". */
function parseScalar(v: unknown, where: string): number {
  const x = Number(String(v).replace(/^\[|\]$/g, ''))
  if (!Number.isFinite(x)) throw new RangeError(`XGBoost model: ${where} is not a number: ${String(v)}`)
  return x
}

function treeFromJson(j: unknown, i: number): Tree {
  const w = `trees[${i}]`
  const left = numbers(j, 'left_children', w)
  const splitIndex = numbers(j, 'split_indices', w)
  if (numbers(j, 'split_type', w).some(s => s !== 0))
    throw new RangeError(`XGBoost model: ${w} has categorical splits (not supported)`)
  return {
    left: Int32Array.from(left),
    right: Int32Array.from(numbers(j, 'right_children', w)),
    parent: Int32Array.from(numbers(j, 'parents', w), p => (p === NO_PARENT ? -1 : p)),
    splitIndex: Int32Array.from(splitIndex),
    splitCondition: Float32Array.from(numbers(j, 'split_conditions', w)),
    // Bin indices are not part of the format: imported trees predict on raw values only.
    splitBin: new Int32Array(left.length).fill(-1),
    defaultLeft: Uint8Array.from(numbers(j, 'default_left', w)),
    baseWeight: Float32Array.from(numbers(j, 'base_weights', w)),
    lossChange: Float32Array.from(numbers(j, 'loss_changes', w)),
    sumHessian: Float32Array.from(numbers(j, 'sum_hessian', w)),
    splitType: new Uint8Array(left.length),
    catBegin: new Uint32Array(left.length),
    catSize: new Uint32Array(left.length),
    categories: new Int32Array(0),
  }
}

/**
 * Refuses a tree that is not one: arrays of unequal length, a child or feature index out of range,
 * a node reached twice or never from the root (a cycle or shared children: walking it would loop
 * or take exponential time), a non-finite threshold or leaf value. Every path that loads a model
 * (CPU and GPU prediction, the CLI's check) goes through `fromXGBoostJson`, so this runs once.
 *
 * @param numFeature the model's feature count (split indices must be below it)
 * @throws RangeError naming the tree and node
 */
export function validateTree(t: Tree, index: number, numFeature: number): void {
  const w = `XGBoost model: trees[${index}]`
  const n = t.left.length
  if (n === 0) throw new RangeError(`${w} has no nodes`)
  const arrays = {
    right_children: t.right,
    parents: t.parent,
    split_indices: t.splitIndex,
    split_conditions: t.splitCondition,
    default_left: t.defaultLeft,
    base_weights: t.baseWeight,
    loss_changes: t.lossChange,
    sum_hessian: t.sumHessian,
  }
  for (const [name, a] of Object.entries(arrays)) {
    if (a.length !== n) throw new RangeError(`${w}: ${name} has ${a.length} entries, left_children has ${n}`)
  }
  const seen = new Uint8Array(n)
  const stack = [0]
  seen[0] = 1
  let reached = 1
  while (stack.length) {
    const id = stack.pop()!
    const l = t.left[id],
      r = t.right[id]
    if (!Number.isFinite(t.splitCondition[id]))
      throw new RangeError(`${w} node ${id}: split condition / leaf value is not finite`)
    if (l === -1 && r === -1) continue
    if (l < 0 || l >= n || r < 0 || r >= n)
      throw new RangeError(
        `${w} node ${id}: child ${l < 0 || l >= n ? l : r} is not a node of the tree (0 to ${n - 1})`,
      )
    if (t.splitIndex[id] < 0 || t.splitIndex[id] >= numFeature) {
      throw new RangeError(
        `${w} node ${id}: splits on feature ${t.splitIndex[id]}, the model has ${numFeature} features`,
      )
    }
    for (const c of [l, r]) {
      if (seen[c]) throw new RangeError(`${w} node ${id}: child ${c} is reached twice (the nodes do not form a tree)`)
      seen[c] = 1
      reached++
      stack.push(c)
    }
  }
  if (reached !== n)
    throw new RangeError(`${w}: node ${seen.indexOf(0)} is not reached from the root (${n - reached} such nodes)`)
}

/** A predict-only booster from an XGBoost JSON model (object or string). */
export function fromXGBoostJson(json: unknown): Booster {
  const root = typeof json === 'string' ? (JSON.parse(json) as unknown) : json
  const learner = field(root, 'learner', 'model')
  const gb = field(learner, 'gradient_booster', 'learner')
  if (field(gb, 'name', 'gradient_booster') !== 'gbtree')
    throw new RangeError('XGBoost model: only gbtree boosters are supported')
  const mp = field(learner, 'learner_model_param', 'learner')
  if (Number(field(mp, 'num_class', 'learner_model_param')) > 1)
    throw new RangeError('XGBoost model: multi-class models are not supported')
  const objective = String(
    field(field(learner, 'objective', 'learner'), 'name', 'objective'),
  ) as GbdtParams['objective']
  if (!['binary:logistic', 'reg:squarederror', 'reg:logistic'].includes(objective))
    throw new RangeError(`XGBoost model: objective ${objective} is not supported`)
  const rawTrees = field(field(gb, 'model', 'gradient_booster'), 'trees', 'model')
  if (!Array.isArray(rawTrees)) throw new RangeError('XGBoost model: model.trees is not an array')
  const F = Number(field(mp, 'num_feature', 'learner_model_param'))
  if (!Number.isInteger(F) || F < 0)
    throw new RangeError(`XGBoost model: num_feature ${String(F)} is not a whole number ≥ 0`)
  const trees = rawTrees.map(treeFromJson)
  trees.forEach((t, i) => validateTree(t, i, F))
  const names = (learner as Json).feature_names as string[] | undefined
  const types = (learner as Json).feature_types as string[] | undefined
  return {
    params: {
      ...DEFAULT_PARAMS,
      objective,
      eval_metric: [defaultMetric(objective)],
      num_round: Math.max(1, trees.length),
    },
    featureNames: names && names.length === F ? names : Array.from({ length: F }, (_, f) => `f${f}`),
    featureTypes: types && types.length === F ? types : new Array<string>(F).fill('float'),
    baseScore: Math.fround(parseScalar(field(mp, 'base_score', 'learner_model_param'), 'base_score')),
    trees,
    history: [],
    bestIteration: trees.length - 1,
  }
}
