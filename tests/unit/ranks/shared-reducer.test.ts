/**
 * Allreduce through a SharedArrayBuffer (in-thread ranks sharing one buffer): the same bits as
 * localGroup for R = 1 … 4 and lengths 0, 1, odd; a mismatched length names the rank; a missing
 * rank times out naming it; abortShared wakes every waiter.
 */
import { expect, it } from 'vitest'
import { abortShared, createSharedBuffer, SharedReducer } from '../../../src/ranks/shared-reducer.ts'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { Rng } from '../../../src/util/rng.ts'

function reducers(
  world: number,
  timeoutMs = 5_000,
  slotBytes = 1 << 16,
): { sab: SharedArrayBuffer; rs: SharedReducer[] } {
  const sab = createSharedBuffer(world, slotBytes)
  return { sab, rs: Array.from({ length: world }, (_, r) => new SharedReducer(sab, r, world, timeoutMs)) }
}

it('gives exactly localGroup results, call after call, for R = 1 … 4', async () => {
  for (let world = 1; world <= 4; world++) {
    const { rs } = reducers(world)
    for (const n of [0, 1, 333]) {
      const rng = new Rng(world * 100 + n)
      const f32 = rs.map(() => Float32Array.from({ length: n }, () => rng.normal()))
      const i32 = rs.map(() => Int32Array.from({ length: n }, () => rng.int(2001) - 1000))
      const f64 = rs.map(() => Float64Array.from({ length: n }, () => rng.normal()))
      const got = await Promise.all(
        rs.map(async (s, r) => [
          await s.allreduce(f32[r], 'sum'),
          await s.allreduce(i32[r], 'max'),
          await s.allreduce(f64[r], 'sum'),
        ]),
      )
      const want = await Promise.all(
        localGroup(world).map(async (c, r) => [
          await c.allreduceSum(f32[r]),
          await c.allreduceMax(i32[r]),
          await c.allreduceSum(f64[r]),
        ]),
      )
      expect(got).toEqual(want)
      expect(got[0][0]).toBeInstanceOf(Float32Array)
      expect(got[0][0].buffer).not.toBeInstanceOf(SharedArrayBuffer)
    }
  }
})

it('refuses arrays larger than a slot (callers then use messages)', () => {
  const { rs } = reducers(2, 1000, 64)
  expect(rs[0].fits(new Float32Array(16))).toBe(true)
  expect(rs[0].fits(new Float32Array(17))).toBe(false)
})

it('names a rank that sent another length; times out naming a rank that never came; abort wakes waiters', async () => {
  const a = reducers(2)
  const calls = await Promise.allSettled([
    a.rs[0].allreduce(new Int32Array(2), 'sum'),
    a.rs[1].allreduce(new Int32Array(3), 'sum'),
  ])
  for (const c of calls)
    expect(c).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/rank 1 sent \[call, op, type, length\] = \[1, 0, 0, 3\]/) },
    })
  const b = reducers(3, 200)
  const lone = await Promise.allSettled([
    b.rs[0].allreduce(new Float32Array(4), 'sum'),
    b.rs[2].allreduce(new Float32Array(4), 'sum'),
  ])
  for (const c of lone)
    expect(c).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/timed out after 0.2 s; ranks not there: 1$/) },
    })
  const c = reducers(2, 60_000)
  const waiting = c.rs[0].allreduce(new Float32Array(4), 'sum')
  setTimeout(() => abortShared(c.sab), 50)
  const t0 = performance.now()
  await expect(waiting).rejects.toThrow(/rank 0: aborted by the coordinator/)
  expect(performance.now() - t0).toBeLessThan(5_000)
})
