/**
 * The hub and the port collectives without workers (Node MessageChannels): the same results as
 * localGroup, bit for bit; a collective a rank never joins, or joins with another op, is reported
 * naming that rank; an abort rejects every rank's pending call.
 */
import { afterEach, expect, it } from 'vitest'
import { Hub } from '../../../src/ranks/hub.ts'
import { PortCollective, type RankPort } from '../../../src/ranks/port-collective.ts'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { combineStats } from '../../../src/ranks/stats.ts'
import { reduceArrays } from '../../../src/ranks/reduce.ts'
import type { Collective } from '../../../src/ranks/types.ts'
import { Rng } from '../../../src/util/rng.ts'

let closers: Array<() => void> = []
afterEach(() => {
  closers.forEach(c => c())
  closers = []
})

function wired(
  world: number,
  timeoutMs = 5_000,
): { colls: PortCollective[]; hub: Hub; failures: Array<[number, string]> } {
  const channels = Array.from({ length: world }, () => new MessageChannel())
  const failures: Array<[number, string]> = []
  const hub = new Hub(
    channels.map(c => c.port1 as unknown as MessagePort),
    timeoutMs,
    { onFailure: (r, cause) => failures.push([r, cause]) },
  )
  const colls = channels.map((c, r) => new PortCollective(r, world, c.port2 as unknown as RankPort, timeoutMs))
  closers.push(() => {
    hub.close()
    channels.forEach(c => c.port2.close())
  })
  return { colls, hub, failures }
}

function floats(rng: Rng, n: number): Float32Array {
  return Float32Array.from({ length: n }, () => rng.nextU32() / 4294967296 - 0.5)
}

async function everyOp(c: Collective, data: Float32Array): Promise<unknown[]> {
  return [
    await c.allreduceSum(data),
    await c.allreduceMax(data),
    await c.allreduceSum(Int32Array.from(data, x => Math.round(x * 1e6))),
    await c.allgather({ rank: c.rank }),
    await c.broadcast(`root ${c.world - 1}`, c.world - 1),
    await c.barrier(),
  ]
}

it('port collectives give exactly localGroup results for R = 1 … 4 (lengths 0, 1, 333)', async () => {
  for (let world = 1; world <= 4; world++) {
    for (const n of [0, 1, 333]) {
      const data = Array.from({ length: world }, (_, r) => floats(new Rng(100 * world + r + n), n))
      const { colls } = wired(world)
      const got = await Promise.all(colls.map((c, r) => everyOp(c, data[r])))
      const want = await Promise.all(localGroup(world).map((c, r) => everyOp(c, data[r])))
      expect(got).toEqual(want)
      // Float32 sums rounded after every add, in rank order.
      expect(got[0][0]).toEqual(reduceArrays(data, 'sum'))
      const stats = combineStats(colls.map(c => c.stats()))
      expect(stats.find(s => s.op === 'allreduce')).toMatchObject({ calls: 3, bytes: world * 2 * (4 * n * 3) })
    }
  }
})

it('a rank that never joins a collective is named after the timeout', async () => {
  const { colls, failures } = wired(3, 200)
  const settled = Promise.allSettled([colls[0].barrier(), colls[2].barrier()])
  await new Promise(resolve => setTimeout(resolve, 400))
  expect(failures).toHaveLength(1)
  expect(failures[0][0]).toBe(1)
  expect(failures[0][1]).toMatch(/did not join barrier #0 within 0.2 s \(ranks 1 missing/)
  // The ranks' own bound fires too: nothing waits forever.
  for (const s of await settled)
    expect(s).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ message: expect.stringMatching(/got no answer within 0.2 s/) }),
    })
})

it('mismatched ops or lengths name the rank; abort rejects every pending call', async () => {
  const a = wired(2)
  void a.colls[0].barrier().catch(() => undefined)
  void a.colls[1].allgather(1).catch(() => undefined)
  await new Promise(resolve => setTimeout(resolve, 50))
  expect(a.failures[0]).toEqual([
    1,
    expect.stringMatching(/called allgather as collective #0, another rank called barrier/),
  ])
  const b = wired(2)
  const calls = [b.colls[0].allreduceSum(new Int32Array(2)), b.colls[1].allreduceSum(new Int32Array(3))]
  await new Promise(resolve => setTimeout(resolve, 50))
  expect(b.failures[0]).toEqual([1, 'allreduce: rank 1 sent 3 elements, rank 0 sent 2'])
  b.hub.abort('aborted: rank 1 of 2 failed: test')
  await expect(calls[0]).rejects.toThrow('aborted: rank 1 of 2 failed: test')
  await expect(calls[1]).rejects.toThrow('aborted: rank 1 of 2 failed: test')
  await expect(b.colls[0].barrier()).rejects.toThrow('aborted')
})
