/** Binary search over ascending numbers: deleted-row lists, live-row masks. */

/**
 * Index of the first entry ≥ `value` in ascending `sorted` (its length when there is none).
 * `sorted`: number[] or a typed array, ascending.
 */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] < value) lo = mid + 1
    else hi = mid
  }
  return lo
}
