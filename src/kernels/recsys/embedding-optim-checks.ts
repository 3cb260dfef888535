/** Shape checks shared by the recommender kernel specs: flat u32 indices must not overflow. */

/** Largest flat element index a kernel computes in u32 arithmetic. */
const U32_LIMIT = 2 ** 32

/** Throws RangeError naming `kernel` and `field` unless `value` is an integer ≥ `min`. */
export function checkCount(kernel: string, field: string, value: number, min = 0): void {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${kernel}: ${field} must be an integer ≥ ${min}, got ${value}`)
}

/** Throws RangeError unless `a·b` (a flat element count such as B·S·D) fits the kernel's u32 index. */
export function checkFlat(kernel: string, what: string, a: number, b: number): void {
  if (a * b >= U32_LIMIT) throw new RangeError(`${kernel}: ${what} = ${a * b} exceeds the u32 index range`)
}
