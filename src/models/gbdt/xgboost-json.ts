/**
 * XGBoost JSON model format (doc/model.schema, XGBoost 2.x): export of a trained booster that
 * `xgboost.Booster().load_model('model.json')` reads, and import of such a file (ours or
 * XGBoost's, categorical splits included) for prediction and continued training. The model object
 * is the same for JSON text and UBJSON (model-file.ts). Numbers are written deterministically (f32
 * values as their shortest round-tripping decimal), so the same booster always gives the same
 * bytes. T = trees, K = nodes of a tree.
 */
import type { Booster, Tree } from './types.ts'
import { DEFAULT_PARAMS, defaultMetric } from './params.ts'
import { isMulticlass, objectiveJson, objectiveParamsFromJson, type Objective } from './objective.ts'
import { parseXGBoostJsonText } from './json-text.ts'
import { LABEL_VALUES_ATTRIBUTE, labelValuesOf } from './model-attributes.ts'
import { shortestFloat32 } from '../../util/float32.ts'
import type { UbjArrayType } from './ubjson.ts'

/** Root's parent in XGBoost's arrays (kInvalidNodeId as stored). */
const NO_PARENT = 2147483647

/** XGBoost writes scalar parameters as strings; floats in its compact form (0.5 → "5E-1" there). */
function floatString(x: number): string {
  return String(shortestFloat32(x))
}

/**
 * Categorical nodes' sets in XGBoost's layout: node ids, start offsets, counts and the flat codes,
 * in node order (rebuilt from the sets, whatever catBegin holds).
 */
function categoriesJson(t: Tree): Record<string, number[]> {
  const nodes: number[] = [],
    segments: number[] = [],
    sizes: number[] = [],
    codes: number[] = []
  for (let k = 0; k < t.left.length; k++) {
    if (t.splitType[k] !== 1 || t.left[k] < 0) continue
    nodes.push(k)
    segments.push(codes.length)
    sizes.push(t.catSize[k])
    for (let c = t.catBegin[k]; c < t.catBegin[k] + t.catSize[k]; c++) codes.push(t.categories[c])
  }
  return { categories: codes, categories_nodes: nodes, categories_segments: segments, categories_sizes: sizes }
}

function treeJson(t: Tree, id: number, numFeature: number): Record<string, unknown> {
  const k = t.left.length
  const cats = categoriesJson(t)
  return {
    base_weights: Array.from(t.baseWeight, shortestFloat32),
    categories: cats.categories,
    categories_nodes: cats.categories_nodes,
    categories_segments: cats.categories_segments,
    categories_sizes: cats.categories_sizes,
    default_left: Array.from(t.defaultLeft),
    id,
    left_children: Array.from(t.left),
    loss_changes: Array.from(t.lossChange, shortestFloat32),
    parents: Array.from(t.parent, p => (p < 0 ? NO_PARENT : p)),
    right_children: Array.from(t.right),
    // XGBoost writes NaN as a categorical node's condition; we write 0.0, which keeps the file
    // valid JSON (JSON.parse and every JSON tool read it). XGBoost never reads the condition of a
    // node whose split_type is 1 (its predictor and SHAP go by the categories), so it loads this
    // file and predicts the same (tests/unit/gbdt/categorical-interop.test.ts checks that).
    split_conditions: Array.from(t.splitCondition, (c, n) =>
      t.splitType[n] === 1 && t.left[n] >= 0 ? 0 : shortestFloat32(c),
    ),
    split_indices: Array.from(t.splitIndex),
    split_type: Array.from(t.splitType),
    sum_hessian: Array.from(t.sumHessian, shortestFloat32),
    tree_param: { num_deleted: '0', num_feature: String(numFeature), num_nodes: String(k), size_leaf_vector: '1' },
  }
}

/** Features with a categorical split in some tree. */
function categoricalFeatures(b: Booster): Set<number> {
  const out = new Set<number>()
  for (const t of b.trees)
    for (let k = 0; k < t.left.length; k++) if (t.splitType[k] === 1 && t.left[k] >= 0) out.add(t.splitIndex[k])
  return out
}

/**
 * XGBoost feature types: a feature with a categorical split is 'c' (XGBoost then builds its
 * DMatrix with categories). Without any categorical split in the model, categorical codes ('c')
 * are written as 'int': their splits are numeric thresholds on the codes, which XGBoost
 * evaluates the same way only for a numeric feature type.
 */
function featureTypesJson(b: Booster): string[] {
  const cat = categoricalFeatures(b)
  if (cat.size === 0) return b.featureTypes.map(t => (t === 'c' ? 'int' : t))
  return b.featureTypes.map((t, f) => (t === 'c' || cat.has(f) ? 'c' : t))
}

/**
 * Checks a booster's class count against its trees: K ≥ 2 when given, and whole rounds of K
 * trees (round-major, class k = tree index % K). Throws RangeError naming what is wrong.
 */
export function checkClasses(b: Pick<Booster, 'numClass' | 'trees' | 'labelValues'>): void {
  const K = b.numClass
  if (K === undefined) {
    if (b.labelValues) throw new RangeError('model: label values without num_class (only multiclass models have them)')
    return
  }
  if (!Number.isInteger(K) || K < 2) throw new RangeError(`model: num_class ${K} must be a whole number ≥ 2`)
  if (b.trees.length % K !== 0)
    throw new RangeError(`model: ${b.trees.length} trees are not whole rounds of ${K} (one tree per class a round)`)
  if (b.labelValues && b.labelValues.length !== K)
    throw new RangeError(`model: ${b.labelValues.length} label values for num_class ${K}`)
}

/**
 * The booster as an XGBoost JSON model object (learner → gradient_booster gbtree → trees): the
 * one object both model files serialise (JSON text here, UBJSON in model-file.ts). A multiclass
 * booster writes XGBoost 1.7.4's form: num_class in learner_model_param and in the objective's
 * softmax_multiclass_param, tree_info = each tree's class (tree index % K), and its label
 * dictionary in the learner attributes (model-attributes.ts LABEL_VALUES_ATTRIBUTE).
 */
export function toXGBoostJson(b: Booster): Record<string, unknown> {
  checkClasses(b)
  const F = b.featureNames.length
  const K = b.numClass ?? 1
  const attributes: Record<string, string> = {}
  if (b.params.early_stopping_rounds !== undefined) {
    attributes.best_iteration = String(b.bestIteration)
    const metric = b.params.eval_metric[b.params.eval_metric.length - 1]
    // history holds this run's rounds, the last history.length rounds (a continued model's first
    // rounds were trained before); bestIteration counts every round, as XGBoost's.
    const best = b.history[b.bestIteration - (b.trees.length / K - b.history.length)]?.[metric]
    if (best !== undefined && Number.isFinite(best)) attributes.best_score = String(best)
  }
  if (b.labelValues) attributes[LABEL_VALUES_ATTRIBUTE] = JSON.stringify(b.labelValues)
  return {
    learner: {
      attributes,
      feature_names: b.featureNames.slice(),
      feature_types: featureTypesJson(b),
      gradient_booster: {
        model: {
          gbtree_model_param: { num_parallel_tree: '1', num_trees: String(b.trees.length) },
          // XGBoost 2.0's round boundaries (1.7.4 ignores the field): K trees a round.
          iteration_indptr: Array.from({ length: b.trees.length / K + 1 }, (_, i) => i * K),
          tree_info: Array.from(b.trees, (_, t) => t % K),
          trees: b.trees.map((t, i) => treeJson(t, i, F)),
        },
        name: 'gbtree',
      },
      learner_model_param: {
        base_score: floatString(b.baseScore),
        boost_from_average: '1',
        num_class: String(b.numClass ?? 0),
        num_feature: String(F),
        num_target: '1',
      },
      objective: objectiveJson({ ...b.params, num_class: b.numClass ?? 0 }),
    },
    version: [2, 0, 0],
  }
}

/**
 * Element types of the tree arrays, as XGBoost's RegTree saves them: in UBJSON they are typed
 * arrays of exactly these types (XGBoost's loader refuses others); in JSON text the float arrays
 * need float tokens (its JSON parser refuses an integer token there).
 */
export const ARRAY_TYPES: Readonly<Record<string, UbjArrayType>> = {
  base_weights: 'f32',
  loss_changes: 'f32',
  split_conditions: 'f32',
  sum_hessian: 'f32',
  left_children: 'i32',
  right_children: 'i32',
  parents: 'i32',
  split_indices: 'i32',
  categories: 'i32',
  categories_nodes: 'i32',
  categories_segments: 'i64',
  categories_sizes: 'i64',
  default_left: 'u8',
  split_type: 'u8',
}

/** A float token: always with a fraction or exponent ("0" → "0.0"), as XGBoost's reader needs. */
export function floatToken(x: number): string {
  const s = String(shortestFloat32(x))
  return /[.eE]/.test(s) ? s : `${s}.0`
}

/**
 * A number in XGBoost's JSON dialect. Only a model read from elsewhere has non-finite values
 * (an XGBoost categorical node's NaN condition): they are written back as XGBoost's own tokens,
 * which json-text.ts reads; toXGBoostJson never produces one (shortestFloat32 refuses them).
 */
function numberToken(x: number, float: boolean): string {
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity'
  return float ? floatToken(x) : JSON.stringify(x)
}

function write(v: unknown, floats: boolean): string {
  if (Array.isArray(v)) return `[${v.map(x => (floats ? numberToken(x as number, true) : write(x, false))).join(',')}]`
  if (typeof v === 'number') return numberToken(v, false)
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${write(x, ARRAY_TYPES[k] === 'f32')}`)
      .join(',')}}`
  }
  return JSON.stringify(v)
}

/**
 * An XGBoost model object (toXGBoostJson's, or one read from a file) as JSON text, deterministic:
 * keys in the object's order, f32 values as their shortest round-tripping decimal.
 */
export function xgboostJsonText(model: unknown): string {
  return write(model, false)
}

/** The model as a JSON string (deterministic: same booster ⇒ same bytes; keys in fixed order). */
export function toXGBoostJsonString(b: Booster): string {
  return xgboostJsonText(toXGBoostJson(b))
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

/** An optional array (XGBoost before 1.6 wrote no categorical arrays): [] when absent. */
function optionalNumbers(o: unknown, key: string, where: string): number[] {
  return typeof o === 'object' && o !== null && key in o ? numbers(o, key, where) : []
}

/**
 * The categorical nodes' sets of tree `w` into the Tree's catBegin / catSize / categories: each
 * node's codes sorted ascending (inCategorySet searches them), duplicates dropped. Checks the
 * four arrays against each other and the tree (which validateTree cannot see once flattened).
 */
function categoriesFromJson(j: unknown, w: string, splitType: Uint8Array, isLeaf: (n: number) => boolean) {
  const n = splitType.length
  const nodes = optionalNumbers(j, 'categories_nodes', w),
    segments = optionalNumbers(j, 'categories_segments', w),
    sizes = optionalNumbers(j, 'categories_sizes', w),
    codes = optionalNumbers(j, 'categories', w)
  const where = `XGBoost model: ${w}`
  if (segments.length !== nodes.length || sizes.length !== nodes.length)
    throw new RangeError(
      `${where}: categories_nodes has ${nodes.length} entries, categories_segments ${segments.length}, categories_sizes ${sizes.length}`,
    )
  const sets = new Map<number, number[]>()
  nodes.forEach((node, i) => {
    if (!Number.isInteger(node) || node < 0 || node >= n)
      throw new RangeError(`${where}: categories_nodes[${i}] = ${node} is not a node of the tree (0 to ${n - 1})`)
    if (splitType[node] !== 1 || isLeaf(node))
      throw new RangeError(`${where} node ${node}: has categories but is not a categorical split (split_type 1)`)
    if (sets.has(node)) throw new RangeError(`${where} node ${node}: listed twice in categories_nodes`)
    const start = segments[i],
      size = sizes[i]
    if (!Number.isInteger(start) || !Number.isInteger(size) || start < 0 || size < 0 || start + size > codes.length)
      throw new RangeError(
        `${where} node ${node}: categories segment [${start}, ${start} + ${size}) is outside categories (${codes.length} codes)`,
      )
    const set = codes.slice(start, start + size)
    const bad = set.find(c => !Number.isInteger(c) || c < 0 || c > MAX_CATEGORY)
    if (bad !== undefined)
      throw new RangeError(`${where} node ${node}: category ${bad} is not a whole number in [0, ${MAX_CATEGORY}]`)
    sets.set(
      node,
      [...new Set(set)].sort((x, y) => x - y),
    )
  })
  const catBegin = new Uint32Array(n),
    catSize = new Uint32Array(n),
    flat: number[] = []
  for (let k = 0; k < n; k++) {
    const set = sets.get(k)
    if (!set) continue
    catBegin[k] = flat.length
    catSize[k] = set.length
    flat.push(...set)
  }
  return { catBegin, catSize, categories: Int32Array.from(flat) }
}

/**
 * Largest category code a model may use: XGBoost's own limit (codes are exact in f32 below 2^24).
 * Bounds the predict kernel's bitsets too (at most 2^19 words per node).
 */
const MAX_CATEGORY = 2 ** 24 - 1

function treeFromJson(j: unknown, i: number): Tree {
  const w = `trees[${i}]`
  const left = numbers(j, 'left_children', w)
  const right = numbers(j, 'right_children', w)
  const splitType = Uint8Array.from(numbers(j, 'split_type', w), (s, n) => {
    if (s !== 0 && s !== 1)
      throw new RangeError(`XGBoost model: ${w} node ${n}: split_type ${s} (0 numeric, 1 categorical)`)
    return s
  })
  const cats = categoriesFromJson(j, w, splitType, n => left[n] === -1 && right[n] === -1)
  // XGBoost writes NaN (1.7) as a categorical node's condition: it is unused, held as 0 here
  // (types.ts Tree.splitType), so every condition left is a number validateTree can check.
  const splitCondition = Float32Array.from(numbers(j, 'split_conditions', w), (c, n) =>
    splitType[n] === 1 && left[n] !== -1 ? 0 : c,
  )
  return {
    left: Int32Array.from(left),
    right: Int32Array.from(right),
    parent: Int32Array.from(numbers(j, 'parents', w), p => (p === NO_PARENT ? -1 : p)),
    splitIndex: Int32Array.from(numbers(j, 'split_indices', w)),
    splitCondition,
    // Bin indices are not part of the format: imported trees predict on raw values only.
    splitBin: new Int32Array(left.length).fill(-1),
    defaultLeft: Uint8Array.from(numbers(j, 'default_left', w)),
    baseWeight: Float32Array.from(numbers(j, 'base_weights', w)),
    lossChange: Float32Array.from(numbers(j, 'loss_changes', w)),
    sumHessian: Float32Array.from(numbers(j, 'sum_hessian', w)),
    splitType,
    ...cats,
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
    split_type: t.splitType,
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

/** Most u32 words the categorical nodes' bitsets may take in all (layout.ts packTrees): 128 MiB. */
const MAX_BITSET_WORDS = 2 ** 25

/** Refuses categorical sets whose bitsets (one bit per code up to the largest) would not fit in memory. */
function checkBitsetWords(trees: Tree[]): void {
  let words = 0
  for (const t of trees)
    for (let k = 0; k < t.left.length; k++)
      if (t.catSize[k] > 0) words += (t.categories[t.catBegin[k] + t.catSize[k] - 1] >> 5) + 1
  if (words > MAX_BITSET_WORDS)
    throw new RangeError(
      `XGBoost model: its categorical splits need ${words} bitset words (category codes too large; at most ${MAX_BITSET_WORDS})`,
    )
}

/**
 * A booster from an XGBoost model: the parsed object (JSON or UBJSON, model-file.ts) or JSON text
 * (XGBoost's NaN tokens allowed). Its trees predict on raw values and continue training
 * (driver.ts TrainOptions.initModel).
 */
export function fromXGBoostJson(json: unknown): Booster {
  const root = typeof json === 'string' ? parseXGBoostJsonText(json) : json
  const learner = field(root, 'learner', 'model')
  const gb = field(learner, 'gradient_booster', 'learner')
  if (field(gb, 'name', 'gradient_booster') !== 'gbtree')
    throw new RangeError('XGBoost model: only gbtree boosters are supported')
  const mp = field(learner, 'learner_model_param', 'learner')
  const objectiveParams = objectiveParamsFromJson(field(learner, 'objective', 'learner'))
  const gbModel = field(gb, 'model', 'gradient_booster')
  const rawTrees = field(gbModel, 'trees', 'model')
  if (!Array.isArray(rawTrees)) throw new RangeError('XGBoost model: model.trees is not an array')
  const numClass = classesFromJson(mp, objectiveParams.objective, gbModel, rawTrees.length)
  const F = Number(field(mp, 'num_feature', 'learner_model_param'))
  if (!Number.isInteger(F) || F < 0)
    throw new RangeError(`XGBoost model: num_feature ${String(F)} is not a whole number ≥ 0`)
  const trees = rawTrees.map(treeFromJson)
  trees.forEach((t, i) => validateTree(t, i, F))
  checkBitsetWords(trees)
  const names = (learner as Json).feature_names as string[] | undefined
  const types = (learner as Json).feature_types as string[] | undefined
  const labelValues = labelValuesOf(root)
  const rounds = trees.length / (numClass ?? 1)
  const objective = { ...objectiveParams, num_class: numClass ?? 0 }
  const booster: Booster = {
    params: {
      ...DEFAULT_PARAMS,
      ...objective,
      eval_metric: [defaultMetric({ ...DEFAULT_PARAMS, ...objective })],
      num_round: Math.max(1, rounds),
    },
    featureNames: names && names.length === F ? names : Array.from({ length: F }, (_, f) => `f${f}`),
    featureTypes: types && types.length === F ? types : new Array<string>(F).fill('float'),
    baseScore: Math.fround(parseScalar(field(mp, 'base_score', 'learner_model_param'), 'base_score')),
    trees,
    ...(numClass !== undefined ? { numClass } : {}),
    ...(labelValues ? { labelValues } : {}),
    history: [],
    bestIteration: rounds - 1,
  }
  try {
    checkClasses(booster)
  } catch (e) {
    throw new RangeError(`XGBoost ${(e as Error).message}`)
  }
  return booster
}

/**
 * The class count K of a model file (undefined: one output per row), checked against XGBoost
 * 1.7.4's layout of a multiclass gbtree: learner_model_param num_class ≥ 2 only with a multi:*
 * objective, num_parallel_tree 1 (forests are not supported), num_trees = the trees, and
 * tree_info (each tree's class) round-major: tree t of class t % K. Throws RangeError naming the
 * field.
 */
function classesFromJson(mp: unknown, objective: Objective, gbModel: unknown, trees: number): number | undefined {
  const K = parseScalar(field(mp, 'num_class', 'learner_model_param'), 'num_class')
  const multi = isMulticlass(objective)
  if (!Number.isInteger(K) || K < 0) throw new RangeError(`XGBoost model: num_class ${K} is not a whole number ≥ 0`)
  if (multi && K < 2) throw new RangeError(`XGBoost model: objective ${objective} with num_class ${K} (needs ≥ 2)`)
  if (!multi && K > 1)
    throw new RangeError(`XGBoost model: num_class ${K} with objective ${objective} (only multi:* has classes)`)
  const param = (gbModel as Json).gbtree_model_param as Json | undefined
  const parallel = param?.num_parallel_tree === undefined ? 1 : Number(param.num_parallel_tree)
  if (parallel !== 1)
    throw new RangeError(
      `XGBoost model: num_parallel_tree ${String(param?.num_parallel_tree)} (boosted forests) is not supported, only 1`,
    )
  if (param?.num_trees !== undefined && Number(param.num_trees) !== trees)
    throw new RangeError(
      `XGBoost model: gbtree_model_param.num_trees is ${String(param.num_trees)}, the model has ${trees} trees`,
    )
  const classes = multi ? K : 1
  const info = (gbModel as Json).tree_info
  if (info !== undefined) {
    if (!Array.isArray(info) || info.length !== trees)
      throw new RangeError(`XGBoost model: tree_info must list the class of each of the ${trees} trees`)
    const bad = info.findIndex((c, t) => Number(c) !== t % classes)
    if (bad >= 0)
      throw new RangeError(
        `XGBoost model: tree_info[${bad}] is ${String(info[bad])}, expected ${bad % classes}: only round-major models (tree t of class t % ${classes}) are supported`,
      )
  }
  if (trees % classes !== 0)
    throw new RangeError(
      `XGBoost model: ${trees} trees are not whole rounds of ${classes} (one tree per class a round)`,
    )
  return multi ? K : undefined
}
