/**
 * Partial dependence (Friedman 2001) of a GBDT model's prediction on one feature: for each value
 * g of a grid over the feature, the mean prediction (after the objective's transform) over the
 * given rows with that feature set to g (the other features as they are). For a feature with a
 * monotone constraint the curve is monotone in its direction: every tree's leaf value is, its sum
 * and the transforms are monotone, and so is a mean of monotone functions — the page shows it for
 * each constrained feature. One output per row (not multiclass). Computed with the CPU predictor
 * (predict.ts): the trees that split on the feature walked rows × G times, the others once.
 * n = rows, G = grid values.
 */
import { transform } from './objective.ts'
import { addTree, predictMargins } from './predict.ts'
import type { Booster, Tree } from './types.ts'

/** Grid values per feature. */
export const PD_GRID = 20
/**
 * Rows a curve averages over at most (the explained rows, evenly spaced): 3 curves of a 100-tree
 * depth-6 model over 500 rows take ~0.3 s on the page's thread (2,000 rows: ~1.6 s).
 */
export const PD_ROWS = 500

/** One feature's partial dependence curve. */
export interface PartialDependence {
  feature: string
  /** Its monotone constraint: 1 increasing, −1 decreasing. */
  constraint: number
  /** The G grid values, ascending. */
  grid: number[]
  /** Mean prediction at each grid value. */
  mean: number[]
}

/**
 * At most `points` grid values over the finite values of `values`: their quantiles at i / (points − 1)
 * (the lowest and highest values included), duplicates dropped, ascending.
 */
export function pdGrid(values: ArrayLike<number>, points = PD_GRID): number[] {
  const sorted = Float64Array.from(Array.prototype.filter.call(values, Number.isFinite) as number[]).sort()
  if (sorted.length === 0) return []
  const grid: number[] = []
  for (let i = 0; i < points; i++) {
    const v = sorted[Math.round((i * (sorted.length - 1)) / Math.max(1, points - 1))]
    if (grid[grid.length - 1] !== v) grid.push(v)
  }
  return grid
}

/** Mean prediction of `booster` over the rows of `columns` (F arrays of n values) with feature `f` set to each of `grid`. */
export function partialDependence(
  booster: Booster,
  columns: Float32Array[],
  f: number,
  grid: readonly number[],
): number[] {
  if (booster.numClass !== undefined)
    throw new RangeError('partial dependence: a multiclass model has K predictions per row; not supported')
  if (f < 0 || f >= columns.length)
    throw new RangeError(`partial dependence: no feature ${f} (${columns.length} features)`)
  const n = columns[f].length
  const set = new Float32Array(n)
  const swapped = columns.slice()
  swapped[f] = set
  // Trees that never split on f give every grid value the same leaves: their margins are added once.
  const splitsOn = (t: Tree) => t.splitIndex.some((s, k) => s === f && t.left[k] !== -1)
  const fixed = predictMargins({ ...booster, trees: booster.trees.filter(t => !splitsOn(t)) }, columns)
  const moving = booster.trees.filter(splitsOn)
  return grid.map(g => {
    set.fill(g)
    const margins = fixed.slice()
    for (const t of moving) addTree(t, swapped, margins)
    let sum = 0
    for (let i = 0; i < n; i++) sum += transform(booster.params.objective, margins[i])
    return n > 0 ? sum / n : Number.NaN
  })
}

/** The curves of every feature with a monotone constraint (`monotone[f]` ≠ 0), named `names[f]`, over the rows of `columns`. */
export function monotoneDependence(
  booster: Booster,
  columns: Float32Array[],
  names: readonly string[],
  monotone: ArrayLike<number>,
  points = PD_GRID,
): PartialDependence[] {
  const out: PartialDependence[] = []
  for (let f = 0; f < monotone.length; f++) {
    if (monotone[f] === 0) continue
    const grid = pdGrid(columns[f], points)
    out.push({ feature: names[f], constraint: monotone[f], grid, mean: partialDependence(booster, columns, f, grid) })
  }
  return out
}
