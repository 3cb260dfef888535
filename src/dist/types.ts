/**
 * Types of data-parallel training across rank workers (ISSUE 6): the collective operations a
 * rank uses and what they cost. R = world size; ranks 0 … R−1. Allreduce results are identical
 * on every rank and are summed in rank order (rank 0 + rank 1 + …), so float sums are
 * deterministic for a given R.
 */

/** Element arrays a collective moves. */
export type CollectiveArray = Int32Array | Uint32Array | Float32Array | Float64Array

/** Bytes moved and time spent by one kind of collective, summed over the run (this rank). */
export interface CollectiveStats { op: 'allreduce' | 'broadcast' | 'barrier' | 'allgather'; calls: number; bytes: number; ms: number }

/** The collective operations of one rank. Every rank must call the same operations in the same order. */
export interface Collective {
  readonly rank: number
  readonly world: number
  /** Element-wise sum over all ranks (in rank order); resolves to a new array of the same type and length. */
  allreduceSum<T extends CollectiveArray>(data: T): Promise<T>
  /** Element-wise max over all ranks. */
  allreduceMax<T extends CollectiveArray>(data: T): Promise<T>
  /** Every rank's `value`, in rank order (structured-cloneable values). */
  allgather<T>(value: T): Promise<T[]>
  /** `value` of rank `root` on every rank. */
  broadcast<T>(value: T, root: number): Promise<T>
  barrier(): Promise<void>
  /** Per-op totals so far. */
  stats(): CollectiveStats[]
}
