/**
 * The coordinator's side of the collectives: one MessagePort per rank (a star). Contribution k of
 * every rank is collected, combined in rank order (reduce.ts) and the result sent back to each
 * rank. A collective some rank does not join within `timeoutMs`, or a rank calling a different
 * op than the others, is reported through `onFailure(rank, cause)`; abort() tells every rank.
 * R = world size.
 */
import type { CollectiveArray, CollectiveStats, HubMessage, RankMessage, ReduceOp } from './types.ts'
import { RankMismatch, reduceArrays } from './reduce.ts'

/** The hub's end of one rank's channel. */
export interface HubPort {
  postMessage(message: HubMessage): void
  onmessage: ((ev: MessageEvent) => void) | null
  close?(): void
}

/** Callbacks of a hub. */
export interface HubEvents {
  /** A rank failed (said so, timed out, or mismatched): the run must end. */
  onFailure(rank: number, cause: string): void
  onProgress?(rank: number, event: unknown): void
}

interface Gathering {
  op: CollectiveStats['op']
  reduce?: ReduceOp
  root?: number
  values: unknown[]
  arrived: boolean[]
  count: number
  timer: ReturnType<typeof setTimeout>
}

/** Combines the collectives of R ranks talking over `ports` (index = rank). */
export class Hub {
  private readonly open = new Map<number, Gathering>()
  private closed = false

  constructor(
    private readonly ports: HubPort[],
    private readonly timeoutMs: number,
    private readonly events: HubEvents,
  ) {
    ports.forEach((port, rank) => {
      port.onmessage = ev => this.receive(rank, ev.data as RankMessage)
    })
  }

  /** Sends `message` to every rank as an abort and stops combining. */
  abort(message: string): void {
    if (this.closed) return
    this.closed = true
    for (const g of this.open.values()) clearTimeout(g.timer)
    this.open.clear()
    for (const port of this.ports) {
      port.postMessage({ type: 'abort', message })
      port.close?.()
    }
  }

  /** Stops combining without telling the ranks (the run finished). */
  close(): void {
    this.closed = true
    for (const g of this.open.values()) clearTimeout(g.timer)
    this.open.clear()
    for (const port of this.ports) port.close?.()
  }

  private receive(rank: number, m: RankMessage): void {
    if (this.closed) return
    if (m.type === 'fatal') return this.events.onFailure(rank, m.message)
    if (m.type === 'progress') return this.events.onProgress?.(rank, m.event)
    const g = this.gathering(m.k, m)
    if (g.op !== m.op || g.reduce !== m.reduce || g.root !== m.root) {
      return this.events.onFailure(
        rank,
        `called ${describe(m)} as collective #${m.k}, another rank called ${describe(g)} (every rank must make the same calls in the same order)`,
      )
    }
    if (g.arrived[rank]) return this.events.onFailure(rank, `sent collective #${m.k} twice`)
    g.values[rank] = m.value
    g.arrived[rank] = true
    if (++g.count === this.ports.length) this.complete(m.k, g)
  }

  private gathering(k: number, m: Extract<RankMessage, { type: 'op' }>): Gathering {
    let g = this.open.get(k)
    if (g) return g
    const R = this.ports.length
    const timer = setTimeout(() => this.timedOut(k), this.timeoutMs)
    g = {
      op: m.op,
      reduce: m.reduce,
      root: m.root,
      values: new Array(R),
      arrived: new Array(R).fill(false),
      count: 0,
      timer,
    }
    this.open.set(k, g)
    return g
  }

  private timedOut(k: number): void {
    const g = this.open.get(k)
    if (!g || this.closed) return
    const missing = g.arrived.flatMap((a, r) => (a ? [] : [r]))
    this.events.onFailure(
      missing[0],
      `did not join ${describe(g)} #${k} within ${this.timeoutMs / 1000} s (ranks ${missing.join(', ')} missing; the others were waiting)`,
    )
  }

  private complete(k: number, g: Gathering): void {
    clearTimeout(g.timer)
    this.open.delete(k)
    let value: unknown
    try {
      value = combine(g)
    } catch (e) {
      return this.events.onFailure(e instanceof RankMismatch ? e.rank : 0, (e as Error).message)
    }
    for (const port of this.ports) port.postMessage({ type: 'result', k, value })
  }
}

/** The value every rank receives. */
function combine(g: Gathering): unknown {
  if (g.op === 'allreduce') return reduceArrays(g.values as CollectiveArray[], g.reduce ?? 'sum')
  if (g.op === 'allgather') return g.values
  if (g.op === 'broadcast') return g.values[g.root ?? 0]
  return null
}

function describe(g: { op: string; reduce?: string; root?: number }): string {
  return g.op === 'allreduce' ? `allreduce(${g.reduce})` : g.op === 'broadcast' ? `broadcast(root ${g.root})` : g.op
}
