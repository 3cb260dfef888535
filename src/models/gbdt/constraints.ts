/**
 * XGBoost's monotone and interaction constraints (1.7.4): the parameters' parsing, their
 * resolution against the training features, and the per-tree state the driver keeps.
 * - monotone_constraints (TreeEvaluator, src/tree/split_evaluator.h): every node has weight bounds
 *   [lower, upper] (the root ±FLT_MAX); children's weights are clamped to their parent's bounds, a
 *   split on a constrained feature whose clamped weights break the order is refused (gain −∞), and
 *   the children inherit the bounds, cut at the mid weight (wl + wr) / 2 on the constrained side.
 * - interaction_constraints (FeatureInteractionConstraintHost, src/tree/constraints.cc): the root
 *   may split on any feature; a node below may split on the features used on its path plus every
 *   feature of each set that holds all of them (so after a feature in no set, only that feature).
 * The split search enforces both (split_evaluate: bounds per node, a feature mask per node).
 * F = features.
 */
import { MAX_WEIGHT_BOUND } from '../../kernels/gbdt/layout.ts'
import type { GbdtParams } from './types.ts'

type Monotone = GbdtParams['monotone_constraints']
type Interaction = GbdtParams['interaction_constraints']

/**
 * monotone_constraints as given: XGBoost's tuple string "(1,0,-1)" (or "[1,0,-1]"), an array in
 * feature order, or an object {feature name: 1 | −1 | 0}. Values other than −1, 0, 1 are refused
 * naming the parameter and the value.
 */
export function parseMonotone(given: string, value: unknown): Monotone {
  const bad = (what: string): RangeError =>
    new RangeError(`${given}: ${what}; expected "(1,0,-1)" in feature order or {"feature": 1}`)
  const check = (v: unknown, at: string): number => {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
    if (n !== -1 && n !== 0 && n !== 1) throw bad(`${at} is ${JSON.stringify(v)}, not -1, 0 or 1`)
    return n
  }
  if (typeof value === 'string') {
    // XGBoost writes a one-feature tuple "(1,)": a trailing comma is allowed.
    const body = value
      .trim()
      .replace(/^[([]|[)\]]$/g, '')
      .replace(/,\s*$/, '')
    if (body.trim() === '') return []
    return body.split(',').map((v, i) => check(v.trim(), `value ${i + 1}`))
  }
  if (Array.isArray(value)) return value.map((v, i) => check(v, `value ${i + 1}`))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, check(v, `feature ${k}`)]))
  throw bad(`got ${JSON.stringify(value)}`)
}

/**
 * interaction_constraints as given: XGBoost's string "[[0, 1], [2, 3, 4]]", or a list of lists of
 * feature indices or names ([["age", "job"], ["balance"]]).
 */
export function parseInteraction(given: string, value: unknown): Interaction {
  const bad = (what: string): RangeError =>
    new RangeError(`${given}: ${what}; expected a list of feature lists, e.g. [[0, 1], [2, 3]] or [["age", "job"]]`)
  let list = value
  if (typeof value === 'string') {
    try {
      list = value.trim() === '' ? [] : JSON.parse(value)
    } catch {
      throw bad(`${JSON.stringify(value)} is not a list`)
    }
  }
  if (!Array.isArray(list)) throw bad(`got ${JSON.stringify(value)}`)
  return list.map((set, i) => {
    if (!Array.isArray(set)) throw bad(`set ${i + 1} is ${JSON.stringify(set)}, not a list`)
    return set.map(f => {
      if ((typeof f === 'number' && Number.isInteger(f) && f >= 0) || (typeof f === 'string' && f !== '')) return f
      throw bad(`set ${i + 1} has ${JSON.stringify(f)}, not a feature index or name`)
    })
  })
}

/** Constraints resolved to feature indices. */
export interface Constraints {
  /** Per feature: 1 increasing, −1 decreasing, 0 free; undefined when no feature is constrained. */
  monotone?: Int8Array
  /** Interaction sets of feature indices; undefined when none are given. */
  interaction?: number[][]
}

/**
 * The run's constraints over features `names` (column order): names and indices checked, a
 * monotone list of another length than the features refused, and a monotone constraint on a
 * categorical feature (`categorical[f]` 1) refused: its categories have no order.
 */
export function resolveConstraints(
  p: Pick<GbdtParams, 'monotone_constraints' | 'interaction_constraints'>,
  names: string[],
  categorical?: Uint8Array,
): Constraints {
  const F = names.length
  const listed = `(features: ${names.join(', ')})`
  const index = (given: string, f: number | string): number => {
    if (typeof f === 'number') {
      if (f >= F) throw new RangeError(`${given}: feature index ${f} is out of range: ${F} features ${listed}`)
      return f
    }
    const i = names.indexOf(f)
    if (i < 0) throw new RangeError(`${given}: no feature column ${f} ${listed}`)
    return i
  }
  const out: Constraints = {}
  const m = p.monotone_constraints
  const byName = !Array.isArray(m)
  if (!byName && m.length > 0 && m.length !== F)
    throw new RangeError(`monotone_constraints: ${m.length} values for ${F} features ${listed}`)
  const monotone = new Int8Array(F)
  if (byName) for (const [name, c] of Object.entries(m)) monotone[index('monotone_constraints', name)] = c
  else monotone.set(m)
  monotone.forEach((c, f) => {
    if (c !== 0 && categorical?.[f])
      throw new RangeError(
        `monotone_constraints: feature ${names[f]} is categorical; its categories have no order to be monotone in (give it 0)`,
      )
  })
  if (monotone.some(c => c !== 0)) out.monotone = monotone
  if (p.interaction_constraints.length > 0)
    out.interaction = p.interaction_constraints.map(set => [
      ...new Set(set.map(f => index('interaction_constraints', f))),
    ])
  return out
}

/** One node's bounds as split_evaluate takes them: its children's [lower, upper], then its parent's. */
export type NodeBounds = [number, number, number, number]

const UNBOUNDED: NodeBounds = [-MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND, -MAX_WEIGHT_BOUND, MAX_WEIGHT_BOUND]

/** The constraint state of one tree being grown: node ids are the tree's. */
export class TreeConstraints {
  private readonly bounds = new Map<number, NodeBounds>([[0, UNBOUNDED]])
  /** Features split on along the path to each node (interaction constraints only). */
  private readonly used = new Map<number, number[]>([[0, []]])

  constructor(private readonly c: Constraints) {}

  /** True when monotone constraints are on: weights are bounded and split_evaluate needs nodeBounds. */
  get monotone(): boolean {
    return this.c.monotone !== undefined
  }

  /** Bounds of node `nid` (see NodeBounds). */
  nodeBounds(nid: number): NodeBounds {
    return this.bounds.get(nid) ?? UNBOUNDED
  }

  /** `mask` (Uint8Array(F), 1 = allowed) with the features node `nid` may not split on cleared. */
  restrict(nid: number, mask: Uint8Array): Uint8Array {
    const sets = this.c.interaction
    if (!sets) return mask
    const used = this.used.get(nid)!
    if (used.length === 0) return mask
    const allowed = new Uint8Array(mask.length)
    for (const f of used) allowed[f] = 1
    for (const set of sets) if (used.every(f => set.includes(f))) for (const f of set) allowed[f] = 1
    return mask.map((x, f) => x & allowed[f])
  }

  /**
   * Records the split of node `nid` on `feature` into `left`, `right` with child weights `wl`, `wr`
   * (clamped, unscaled; XGBoost TreeEvaluator::AddSplit and the interaction Split).
   */
  split(nid: number, left: number, right: number, feature: number, wl: number, wr: number): void {
    const [lo, hi] = this.nodeBounds(nid)
    const c = this.c.monotone?.[feature] ?? 0
    const mid = Math.fround(Math.fround(wl + wr) / 2)
    this.bounds.set(left, [c < 0 ? mid : lo, c > 0 ? mid : hi, lo, hi])
    this.bounds.set(right, [c > 0 ? mid : lo, c < 0 ? mid : hi, lo, hi])
    if (this.c.interaction) {
      const path = this.used.get(nid)!
      const used = path.includes(feature) ? path : [...path, feature]
      this.used.set(left, used)
      this.used.set(right, used)
    }
  }
}
