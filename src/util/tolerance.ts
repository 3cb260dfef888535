/** Compares GPU output with a reference (STYLE.md §2): |gpu − ref| ≤ atol + rtol·|ref|. */

/** One element that failed the tolerance check. */
export interface Mismatch {
  index: number
  got: number
  want: number
}

/** Result of `compareArrays`: the first mismatches (at most `maxReport`) and how many in all. */
export interface CompareResult {
  ok: boolean
  count: number
  first: Mismatch[]
  lengthMismatch?: [number, number]
}

/** Element-wise tolerance check; NaN equals NaN. Stops collecting after `maxReport` mismatches. */
export function compareArrays(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  atol = 0,
  rtol = 0,
  maxReport = 10,
): CompareResult {
  if (got.length !== want.length) return { ok: false, count: 0, first: [], lengthMismatch: [got.length, want.length] }
  const first: Mismatch[] = []
  let count = 0
  for (let i = 0; i < want.length; i++) {
    const g = got[i],
      w = want[i]
    if (Number.isNaN(g) && Number.isNaN(w)) continue
    if (!(Math.abs(g - w) <= atol + rtol * Math.abs(w))) {
      count++
      if (first.length < maxReport) first.push({ index: i, got: g, want: w })
    }
  }
  return { ok: count === 0, count, first }
}

/** Human-readable summary of a failed comparison, for test messages. */
export function describeMismatch(r: CompareResult): string {
  if (r.lengthMismatch) return `length ${r.lengthMismatch[0]} != ${r.lengthMismatch[1]}`
  const pairs = r.first.map(m => `[${m.index}] got ${m.got} want ${m.want}`).join('; ')
  return `${r.count} mismatches: ${pairs}`
}
