/**
 * Types of data-parallel training across rank workers: the collective operations a
 * rank uses and what they cost. R = world size; ranks 0 … R−1. Allreduce results are identical
 * on every rank and are summed in rank order (rank 0 + rank 1 + …), so float sums are
 * deterministic for a given R.
 */

import type { StopVote } from './stop-vote.ts'

/** Element arrays a collective moves. */
export type CollectiveArray = Int32Array | Uint32Array | Float32Array | Float64Array

/** Bytes moved and time spent by one kind of collective, summed over the run (this rank). */
export interface CollectiveStats {
  op: 'allreduce' | 'broadcast' | 'barrier' | 'allgather'
  calls: number
  bytes: number
  ms: number
}

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

// ---- Rank workers ----

/** Element-wise reduction of an allreduce. */
export type ReduceOp = 'sum' | 'max'

/** What a rank job receives: its collective, its GPU device (acquired in the worker) and a progress channel. */
export interface RankContext {
  readonly rank: number
  readonly world: number
  readonly coll: Collective
  /**
   * This rank's own GPUDevice (requested once, on first call, inside the rank worker; it lives
   * until the worker is terminated — do not destroy it). Losing it ends the whole run with a
   * message naming the rank.
   */
  device(): Promise<GPUDevice>
  /** Adapter description of device() (after it was acquired), for manifests. */
  adapterLabel(): string
  /** Sends a structured-cloneable progress event to the coordinator's onProgress(rank, event). */
  progress(event: unknown): void
  /** The user's Stop as this rank sees it: its vote, and the ranks' agreed signal (stop-vote.ts). */
  readonly stop: StopVote
}

/** A module a rank worker can run (registered by name with registerRankJob, src/ranks/jobs.ts). */
export interface RankJob<C = unknown, R = unknown> {
  run(ctx: RankContext, config: C): Promise<R>
}

/** Options of a rank group (coordinator side). */
export interface RankGroupOptions {
  /** Longest wait for any one collective, worker start or device request, ms (default 300 000). */
  timeoutMs?: number
  /** Progress events sent by ranks through RankContext.progress. */
  onProgress?: (rank: number, event: unknown) => void
  /**
   * Allreduce transport: 'auto' (default) = a SharedArrayBuffer with Atomics when the page is
   * cross-origin isolated, else messages; 'message' = always the MessageChannel star.
   */
  transport?: 'auto' | 'message'
  /** Aborted: every rank is asked to stop; the job decides where, together (stop-vote.ts). */
  stop?: AbortSignal
}

/** A finished run of a job on every rank. */
export interface RankRun<R> {
  /** Each rank's return value, index = rank. */
  results: R[]
  /** Each rank's collective totals, index = rank. */
  stats: CollectiveStats[][]
  /** Wall time of the run (not counting worker start), ms. */
  ms: number
  /** How allreduce travelled: a SharedArrayBuffer (cross-origin isolated page) or messages. */
  transport: 'shared memory' | 'messages'
}

/** Messages a rank sends to the coordinator's hub over its MessagePort. */
export type RankMessage =
  | { type: 'op'; k: number; op: CollectiveStats['op']; reduce?: ReduceOp; root?: number; value: unknown }
  | { type: 'fatal'; message: string }
  | { type: 'progress'; event: unknown }

/** Messages the hub sends to a rank. */
export type HubMessage = { type: 'result'; k: number; value: unknown } | { type: 'abort'; message: string }
