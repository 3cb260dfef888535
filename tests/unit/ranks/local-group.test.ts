import { describe, expect, it } from 'vitest'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { Rng } from '../../../src/util/rng.ts'

describe('localGroup', () => {
  it('allreduceSum sums in rank order, the same array on every rank, and counts bytes', async () => {
    const rng = new Rng(7)
    for (const world of [1, 2, 3, 4]) {
      for (const n of [0, 1, 33]) {
        const group = localGroup(world)
        const inputs = group.map(() => Float32Array.from({ length: n }, () => rng.normal()))
        const outs = await Promise.all(group.map((c, r) => c.allreduceSum(inputs[r])))
        const expected = new Float32Array(n)
        for (let i = 0; i < n; i++) {
          let s = inputs[0][i]
          for (let r = 1; r < world; r++) s = Math.fround(s + inputs[r][i])
          expected[i] = s
        }
        for (const out of outs) expect(Array.from(out)).toEqual(Array.from(expected))
        expect(outs[0]).not.toBe(inputs[0])
        expect(group[0].stats()).toEqual([expect.objectContaining({ op: 'allreduce', calls: 1, bytes: n * 4 })])
      }
    }
  })

  it('allreduceMax, allgather, broadcast and barrier', async () => {
    const group = localGroup(3)
    const max = await Promise.all(group.map(c => c.allreduceMax(Int32Array.of(c.rank, -c.rank))))
    expect(max.map(a => Array.from(a))).toEqual([
      [2, 0],
      [2, 0],
      [2, 0],
    ])
    expect(await Promise.all(group.map(c => c.allgather({ r: c.rank })))).toEqual(
      Array(3).fill([{ r: 0 }, { r: 1 }, { r: 2 }]),
    )
    expect(await Promise.all(group.map(c => c.broadcast(`from ${c.rank}`, 1)))).toEqual(['from 1', 'from 1', 'from 1'])
    await Promise.all(group.map(c => c.barrier()))
    expect(
      group[2]
        .stats()
        .map(s => s.op)
        .sort(),
    ).toEqual(['allgather', 'allreduce', 'barrier', 'broadcast'])
  })

  it('refuses mismatched lengths and a bad world size', async () => {
    const group = localGroup(2)
    const results = await Promise.allSettled([
      group[0].allreduceSum(new Int32Array(2)),
      group[1].allreduceSum(new Int32Array(3)),
    ])
    for (const r of results) expect(r.status === 'rejected' && String(r.reason)).toMatch(/rank 1 sent 3 elements/)
    expect(() => localGroup(0)).toThrow(/world size/)
  })
})
