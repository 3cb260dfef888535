/**
 * The arithmetic of the collectives, shared by the hub (worker ranks) and tests: element-wise
 * reductions in rank order (rank 0 ⊕ rank 1 ⊕ …, the order localGroup uses), so a float sum is
 * the same for every run with the same R. R = world size, L = elements per array.
 */
import type { CollectiveArray, ReduceOp } from './types.ts'

/** A rank whose contribution does not fit the others' (type, length, op): names the rank. */
export class RankMismatch extends Error {
  constructor(
    readonly rank: number,
    message: string,
  ) {
    super(message)
  }
}

/** Constructor name of a collective array (what every rank must agree on). */
export function arrayKind(a: unknown): string {
  if (a instanceof Int32Array || a instanceof Uint32Array || a instanceof Float32Array || a instanceof Float64Array)
    return a.constructor.name
  return a === null ? 'null' : typeof a
}

/**
 * Element-wise `op` over `arrays` (one per rank, same type and length L) in rank order; a new
 * array of that type. Throws naming the rank whose type or length differs from rank 0's.
 */
export function reduceArrays<T extends CollectiveArray>(arrays: T[], op: ReduceOp): T {
  const kind = arrayKind(arrays[0])
  if (!ArrayBuffer.isView(arrays[0])) throw new RankMismatch(0, `allreduce: rank 0 sent ${kind}, not a typed array`)
  const out = arrays[0].slice() as T
  for (let r = 1; r < arrays.length; r++) {
    const a = arrays[r]
    if (arrayKind(a) !== kind)
      throw new RankMismatch(r, `allreduce: rank ${r} sent ${arrayKind(a)}, rank 0 sent ${kind}`)
    if (a.length !== out.length)
      throw new RankMismatch(r, `allreduce: rank ${r} sent ${a.length} elements, rank 0 sent ${out.length}`)
    if (op === 'sum') for (let i = 0; i < out.length; i++) out[i] += a[i]
    else for (let i = 0; i < out.length; i++) out[i] = Math.max(out[i], a[i])
  }
  return out
}

/**
 * Approximate bytes of a structured-cloneable value (typed arrays exactly, strings as UTF-16,
 * numbers as 8): what a collective's stats count for broadcast and allgather payloads.
 */
export function approxBytes(v: unknown, depth = 0): number {
  if (v === null || v === undefined || depth > 8) return 0
  if (ArrayBuffer.isView(v)) return v.byteLength
  if (v instanceof ArrayBuffer) return v.byteLength
  if (typeof v === 'string') return 2 * v.length
  if (typeof v !== 'object') return 8
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + approxBytes(x, depth + 1), 0)
  return Object.values(v as Record<string, unknown>).reduce((s: number, x) => s + approxBytes(x, depth + 1), 0)
}
