/**
 * Real rank workers in Chromium: the collectives over R = 1 … 4 module workers give the sums,
 * maxima, gathers and broadcasts recomputed here from the same seeds (lengths 0, 1 and odd ones),
 * and a rank killed, crashed or losing its device ends the run naming it, with no worker left.
 */
import { afterEach, expect, it } from 'vitest'
import { liveRankWorkers, RankGroup, runRanks } from '../../src/ranks/index.ts'
import { rankArray, type ArrayKind, type CollectivesConfig, type CollectivesResult } from '../../src/ranks/selftest.ts'
import { combineStats } from '../../src/ranks/stats.ts'

const KINDS: ArrayKind[] = ['Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array']
const ARRAYS = KINDS.flatMap(kind => [0, 1, 7, 1000].map(length => ({ kind, length })))

/** Expected element-wise result over ranks, folded in rank order with the array's own rounding. */
function expected(seed: number, world: number, index: number, op: 'sum' | 'max'): ArrayLike<number> {
  const { kind, length } = ARRAYS[index]
  const out = new globalThis[kind](length)
  for (let r = 0; r < world; r++) {
    const a = rankArray(seed, r, kind, length, index)
    for (let i = 0; i < length; i++) out[i] = r === 0 ? a[i] : op === 'sum' ? out[i] + a[i] : Math.max(out[i], a[i])
  }
  return out
}

afterEach(() => expect(liveRankWorkers()).toBe(0))

it('allreduce, allgather, broadcast and barrier agree with a plain recomputation for R = 1 … 4', async () => {
  for (let world = 1; world <= 4; world++) {
    const config: CollectivesConfig = { seed: 5 + world, arrays: ARRAYS }
    const run = await runRanks<CollectivesResult>(world, 'collectives', config, {
      transport: world % 2 ? 'auto' : 'message',
    })
    expect(run.transport).toBe(world % 2 && globalThis.crossOriginIsolated ? 'shared memory' : 'messages')
    expect(run.results).toHaveLength(world)
    for (const res of run.results) {
      ARRAYS.forEach((a, i) => {
        expect(res.sums[i].constructor.name).toBe(a.kind)
        expect(Array.from(res.sums[i])).toEqual(Array.from(expected(config.seed, world, i, 'sum')))
        expect(Array.from(res.maxes[i])).toEqual(Array.from(expected(config.seed, world, i, 'max')))
      })
      expect(res.gathered).toEqual(Array.from({ length: world }, (_, r) => r * 10))
      expect(res.broadcast).toBe(`from rank ${world - 1}`)
    }
    const stats = combineStats(run.stats)
    const allreduce = stats.find(s => s.op === 'allreduce')!
    expect(allreduce.calls).toBe(2 * ARRAYS.length)
    // Each rank sends and receives every array once per call.
    const bytes = ARRAYS.reduce((s, a) => s + a.length * 4 * (a.kind === 'Float64Array' ? 2 : 1), 0)
    expect(allreduce.bytes).toBe(world * 2 * 2 * bytes)
    console.log(
      `R=${world} ${run.transport} (isolated: ${globalThis.crossOriginIsolated})`,
      JSON.stringify(stats.map(s => ({ ...s, ms: Math.round(s.ms) }))),
    )
  }
})

it('a rank killed mid-run ends the run naming it, quickly, with every worker terminated', async () => {
  const group = await RankGroup.start(3, {
    onProgress: (rank, ev) => {
      if (rank === 0 && (ev as { loop: number }).loop === 3) group.kill(1)
    },
  })
  expect(liveRankWorkers()).toBe(3)
  const t0 = performance.now()
  await expect(group.run('collectives', { seed: 1, arrays: [], loops: 1000, delayMs: 20 })).rejects.toThrow(
    /rank 1 of 3 failed: worker terminated/,
  )
  expect(performance.now() - t0).toBeLessThan(10_000)
  expect(liveRankWorkers()).toBe(0)
  group.close()
})

it('a rank whose job throws, or that calls a different collective, fails the run naming it', async () => {
  await expect(runRanks(2, 'no-such-job', {})).rejects.toThrow(/rank \d of 2 failed: .*rank job "no-such-job": unknown/)
  expect(liveRankWorkers()).toBe(0)
  // Rank 1 reduces a different length than rank 0: the hub names rank 1.
  await expect(
    runRanks(2, 'collectives', (rank: number) => ({ seed: 1, arrays: [{ kind: 'Int32Array', length: rank + 1 }] })),
  ).rejects.toThrow(/rank 1 of 2 failed: allreduce: rank 1 sent 2 elements, rank 0 sent 1/)
})

it('a rank whose worker throws an uncaught error ends the run naming it', async () => {
  await expect(
    runRanks(3, 'collectives', { seed: 1, arrays: [], loops: 1000, delayMs: 10, crash: { rank: 2, loop: 3 } }),
  ).rejects.toThrow(/rank 2 of 3 failed: .*rank 2 crashed on purpose/)
  expect(liveRankWorkers()).toBe(0)
})

it('a rank that loses its GPU device ends the run naming it', async () => {
  const group = await RankGroup.start(2, {
    onProgress: (rank, ev) => {
      if (rank === 1 && (ev as { loop: number }).loop === 2) void group.loseDevice(1)
    },
  })
  await expect(
    group.run('collectives', { seed: 1, arrays: [], loops: 1000, delayMs: 20, device: true }),
  ).rejects.toThrow(/rank 1 of 2 failed: GPU device lost/)
  expect(liveRankWorkers()).toBe(0)
  group.close()
})
