/**
 * The Collective of one rank worker: each call is one message to the coordinator's hub over the
 * rank's MessagePort (a star: the hub combines the R contributions in rank order and answers
 * every rank) — except allreduces, which go through a SharedArrayBuffer when the group has one
 * (shared-reducer.ts; same rank-order sums). Every wait is bounded by `timeoutMs`; an abort from the hub rejects every pending
 * call with the hub's message, so a rank blocked on a collective never hangs when another fails.
 */
import type { Collective, CollectiveArray, CollectiveStats, HubMessage, RankMessage, ReduceOp } from './types.ts'
import { approxBytes } from './reduce.ts'
import { addCall } from './stats.ts'
import { withTimeout } from '../util/deadline.ts'
import { SharedReducer } from './shared-reducer.ts'

type Op = CollectiveStats['op']

/** The port a rank talks through (a MessagePort, or a stand-in in tests). */
export interface RankPort {
  postMessage(message: RankMessage, transfer?: Transferable[]): void
  onmessage: ((ev: MessageEvent) => void) | null
}

/** Collective of rank `rank` of `world` over `port`; waits longer than `timeoutMs` reject. */
export class PortCollective implements Collective {
  private next = 0
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  private readonly totals = new Map<Op, CollectiveStats>()
  private aborted?: Error

  private readonly shared?: SharedReducer

  /** `sab`: the group's shared buffer (cross-origin isolated pages): allreduces that fit go through it. */
  constructor(
    readonly rank: number,
    readonly world: number,
    private readonly port: RankPort,
    private readonly timeoutMs: number,
    sab?: SharedArrayBuffer,
  ) {
    port.onmessage = ev => this.receive(ev.data as HubMessage)
    if (sab) this.shared = new SharedReducer(sab, rank, world, timeoutMs, () => this.aborted)
  }

  /** 'shared memory' when allreduce goes through a SharedArrayBuffer, else 'messages'. */
  get transport(): 'shared memory' | 'messages' {
    return this.shared ? 'shared memory' : 'messages'
  }

  allreduceSum<T extends CollectiveArray>(data: T): Promise<T> {
    return this.reduce(data, 'sum')
  }

  allreduceMax<T extends CollectiveArray>(data: T): Promise<T> {
    return this.reduce(data, 'max')
  }

  async allgather<T>(value: T): Promise<T[]> {
    return (await this.call('allgather', value)) as T[]
  }

  async broadcast<T>(value: T, root: number): Promise<T> {
    if (!Number.isInteger(root) || root < 0 || root >= this.world)
      throw new RangeError(`broadcast: root must be a rank in [0, ${this.world}), got ${root}`)
    // Only the root's value matters: the others send nothing (null) to save the copy.
    return (await this.call('broadcast', this.rank === root ? value : null, { root })) as T
  }

  async barrier(): Promise<void> {
    await this.call('barrier', null)
  }

  stats(): CollectiveStats[] {
    return [...this.totals.values()].map(s => ({ ...s }))
  }

  /** Tells the coordinator this rank cannot go on (device lost, uncaught error): ends the run. */
  fatal(message: string): void {
    this.port.postMessage({ type: 'fatal', message })
  }

  /** Forwards a progress event to the coordinator. */
  progress(event: unknown): void {
    this.port.postMessage({ type: 'progress', event })
  }

  /** Rejects every pending and later call with `error`. */
  abort(error: Error): void {
    this.aborted ??= error
    for (const w of this.waiting.values()) w.reject(this.aborted)
    this.waiting.clear()
  }

  private async reduce<T extends CollectiveArray>(data: T, reduce: ReduceOp): Promise<T> {
    if (!this.shared?.fits(data)) return (await this.call('allreduce', data, { reduce })) as T
    if (this.aborted) throw this.aborted
    const t0 = performance.now()
    const out = await this.shared.allreduce(data, reduce)
    addCall(this.totals, 'allreduce', 2 * data.byteLength, performance.now() - t0)
    return out
  }

  private receive(m: HubMessage): void {
    if (m.type === 'abort') return this.abort(new Error(m.message))
    const w = this.waiting.get(m.k)
    this.waiting.delete(m.k)
    w?.resolve(m.value)
  }

  private async call(op: Op, value: unknown, extra: { reduce?: ReduceOp; root?: number } = {}): Promise<unknown> {
    if (this.aborted) throw this.aborted
    const k = this.next++,
      t0 = performance.now()
    const answer = new Promise<unknown>((resolve, reject) => this.waiting.set(k, { resolve, reject }))
    // A copy is transferred: the caller keeps its array, and the hub gets it without a second copy.
    const sent = ArrayBuffer.isView(value) ? (value as CollectiveArray).slice() : value
    this.port.postMessage(
      { type: 'op', k, op, ...extra, value: sent },
      ArrayBuffer.isView(sent) ? [(sent as CollectiveArray).buffer] : [],
    )
    try {
      const out = await withTimeout(
        answer,
        this.timeoutMs,
        `rank ${this.rank}: ${op} #${k} got no answer within ${this.timeoutMs / 1000} s`,
      )
      addCall(this.totals, op, approxBytes(value) + approxBytes(out), performance.now() - t0)
      return out
    } finally {
      this.waiting.delete(k)
    }
  }
}
