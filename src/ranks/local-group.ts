/**
 * An in-thread process group: R Collective objects that meet through shared promises. Used by
 * tests and by rank code developed before (or without) worker ranks; the sums are done in rank
 * order exactly as the worker collectives do, so results match bit for bit.
 */
import type { Collective, CollectiveArray, CollectiveStats } from './types.ts'

type Op = CollectiveStats['op']

interface Pending {
  op: Op
  values: unknown[]
  arrived: number
  resolve: Array<(v: unknown) => void>
  reject: Array<(e: unknown) => void>
}

/** R connected collectives (index = rank). */
export function localGroup(world: number): Collective[] {
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`world size must be an integer ≥ 1 (got ${world})`)
  const pending = new Map<number, Pending>()
  const seq = new Array<number>(world).fill(0)
  const meet = (rank: number, op: Op, value: unknown, combine: (values: unknown[]) => unknown): Promise<unknown> => {
    const k = seq[rank]++
    let p = pending.get(k)
    if (!p) {
      p = { op, values: new Array(world), arrived: 0, resolve: new Array(world), reject: new Array(world) }
      pending.set(k, p)
    }
    if (p.op !== op)
      throw new Error(`collective mismatch at call ${k}: rank ${rank} called ${op}, another rank ${p.op}`)
    const entry = p
    entry.values[rank] = value
    return new Promise((resolve, reject) => {
      entry.resolve[rank] = resolve
      entry.reject[rank] = reject
      if (++entry.arrived < world) return
      pending.delete(k)
      // A failed combine (mismatched lengths) rejects every rank, so none waits forever.
      let out: unknown
      try {
        out = combine(entry.values)
      } catch (e) {
        entry.reject.forEach(r => r(e))
        return
      }
      entry.resolve.forEach(r => r(out))
    })
  }
  return Array.from({ length: world }, (_, rank) => new LocalCollective(rank, world, meet))
}

class LocalCollective implements Collective {
  private readonly totals = new Map<Op, CollectiveStats>()

  constructor(
    readonly rank: number,
    readonly world: number,
    private readonly meet: (
      rank: number,
      op: Op,
      value: unknown,
      combine: (values: unknown[]) => unknown,
    ) => Promise<unknown>,
  ) {}

  async allreduceSum<T extends CollectiveArray>(data: T): Promise<T> {
    return this.reduce(data, (a, b) => a + b)
  }

  async allreduceMax<T extends CollectiveArray>(data: T): Promise<T> {
    return this.reduce(data, (a, b) => Math.max(a, b))
  }

  async allgather<T>(value: T): Promise<T[]> {
    return this.timed('allgather', 0, async () =>
      structuredClone((await this.meet(this.rank, 'allgather', value, v => v)) as T[]),
    )
  }

  async broadcast<T>(value: T, root: number): Promise<T> {
    return this.timed('broadcast', 0, async () =>
      structuredClone((await this.meet(this.rank, 'broadcast', value, v => v[root])) as T),
    )
  }

  async barrier(): Promise<void> {
    await this.timed('barrier', 0, () => this.meet(this.rank, 'barrier', null, () => null))
  }

  stats(): CollectiveStats[] {
    return [...this.totals.values()].map(s => ({ ...s }))
  }

  private async reduce<T extends CollectiveArray>(data: T, f: (a: number, b: number) => number): Promise<T> {
    const combine = (values: unknown[]): unknown => {
      const arrays = values as T[]
      const out = arrays[0].slice() as T
      for (let r = 1; r < arrays.length; r++) {
        const a = arrays[r]
        if (a.length !== out.length)
          throw new RangeError(`allreduce: rank ${r} sent ${a.length} elements, rank 0 sent ${out.length}`)
        for (let i = 0; i < out.length; i++) out[i] = f(out[i], a[i])
      }
      return out
    }
    return this.timed(
      'allreduce',
      data.byteLength,
      async () => ((await this.meet(this.rank, 'allreduce', data, combine)) as T).slice() as T,
    )
  }

  private async timed<R>(op: Op, bytes: number, f: () => Promise<R>): Promise<R> {
    const t0 = performance.now()
    const out = await f()
    const s = this.totals.get(op) ?? { op, calls: 0, bytes: 0, ms: 0 }
    s.calls++
    s.bytes += bytes
    s.ms += performance.now() - t0
    this.totals.set(op, s)
    return out
  }
}
