/**
 * The collective self-test job: every rank makes seeded arrays of each kind and length, and runs
 * allreduce (sum, max), allgather, broadcast and barrier over them; the caller recomputes the
 * expected results from the same seeds (rankArray). Also a slow loop of barriers, so tests can
 * kill a rank while the others wait. L = elements per array.
 */
import type { CollectiveArray, RankContext, RankJob } from './types.ts'
import { mixSeed } from '../util/hash.ts'
import { Rng } from '../util/rng.ts'

/** Kinds of array the self-test covers. */
export type ArrayKind = 'Int32Array' | 'Uint32Array' | 'Float32Array' | 'Float64Array'

/** Self-test configuration. */
export interface CollectivesConfig {
  seed: number
  /** Arrays to reduce: kind and length L (0 and 1 included by tests). */
  arrays: Array<{ kind: ArrayKind; length: number }>
  /** Barriers to run after the checks, `delayMs` apart (a run that lasts, for kill tests). */
  loops?: number
  delayMs?: number
  /** Acquire the rank's GPU device first (device-loss tests). */
  device?: boolean
  /** Crash tests: rank `crash.rank` throws an uncaught error (outside any promise) at loop `crash.loop`. */
  crash?: { rank: number; loop: number }
}

/** What each rank returns. */
export interface CollectivesResult {
  sums: CollectiveArray[]
  maxes: CollectiveArray[]
  gathered: number[]
  broadcast: string
}

/** Rank `rank`'s seeded array of `kind` and `length` (integers in ±1000 for ints, floats in ±1). */
export function rankArray(seed: number, rank: number, kind: ArrayKind, length: number, index: number): CollectiveArray {
  const rng = new Rng(mixSeed(seed, rank, index))
  const out = new globalThis[kind](length)
  for (let i = 0; i < length; i++) {
    const u = rng.nextU32() / 4294967296
    out[i] =
      kind === 'Int32Array' ? Math.floor(u * 2001) - 1000 : kind === 'Uint32Array' ? Math.floor(u * 1000) : 2 * u - 1
  }
  return out
}

/** The job (registered as 'collectives'). */
export const collectivesJob: RankJob<CollectivesConfig, CollectivesResult> = {
  async run(ctx: RankContext, c: CollectivesConfig): Promise<CollectivesResult> {
    if (c.device) await ctx.device()
    const mine = c.arrays.map((a, i) => rankArray(c.seed, ctx.rank, a.kind, a.length, i))
    const sums: CollectiveArray[] = [],
      maxes: CollectiveArray[] = []
    for (const a of mine) sums.push(await ctx.coll.allreduceSum(a))
    for (const a of mine) maxes.push(await ctx.coll.allreduceMax(a))
    const gathered = await ctx.coll.allgather(ctx.rank * 10)
    const broadcast = await ctx.coll.broadcast(`from rank ${ctx.world - 1}`, ctx.world - 1)
    await ctx.coll.barrier()
    for (let i = 0; i < (c.loops ?? 0); i++) {
      ctx.progress({ loop: i })
      if (c.crash?.rank === ctx.rank && c.crash.loop === i)
        setTimeout(() => {
          throw new Error(`rank ${ctx.rank} crashed on purpose`)
        })
      await new Promise(resolve => setTimeout(resolve, c.delayMs ?? 0))
      await ctx.coll.barrier()
    }
    return { sums, maxes, gathered, broadcast }
  },
}
