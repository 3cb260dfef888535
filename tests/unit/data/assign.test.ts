import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SHUFFLE_BUFFER,
  epochSequence,
  fileRows,
  identity,
  identityString,
  locate,
  planRows,
  rankSplit,
  resolveAssign,
  workerShare,
} from '../../../src/data/assign.ts'
import { rankStream } from '../../../src/data/stream.ts'
import type { AssignOptions } from '../../../src/data/types.ts'
import { allIdentities, idsOf, syntheticPlan, UNEVEN } from './assign-fixtures.ts'

const plan = syntheticPlan(UNEVEN)
const N = planRows(plan)
const SEEDS = [undefined, 1, 42, 2 ** 40 + 3]
const BUFFERS = [0, 16, undefined]

/** Every rank's rows for one epoch, as identity strings per rank. */
function epochShares(opts: Omit<AssignOptions, 'rank'>): { shares: string[][]; dropped: number; padded: number } {
  const shares: string[][] = []
  let dropped = -1
  let padded = -1
  for (let rank = 0; rank < opts.worldSize; rank++) {
    const s = rankStream(plan, { ...opts, rank })
    shares.push(idsOf(plan, s.rowsAt(0, s.length)))
    if (rank > 0) expect([s.rowsDropped, s.rowsPadded]).toEqual([dropped, padded])
    dropped = s.rowsDropped
    padded = s.rowsPadded
  }
  return { shares, dropped, padded }
}

describe('resolveAssign', () => {
  it('fills defaults', () => {
    expect(resolveAssign({ epoch: 0, worldSize: 1, rank: 0 })).toEqual({
      seed: undefined,
      epoch: 0,
      worldSize: 1,
      rank: 0,
      mode: 'drop_last',
      shuffleBuffer: DEFAULT_SHUFFLE_BUFFER,
    })
  })

  it.each([
    ['worldSize', { worldSize: 0 }],
    ['worldSize', { worldSize: 1.5 }],
    ['rank', { rank: 2 }],
    ['rank', { rank: -1 }],
    ['epoch', { epoch: -1 }],
    ['epoch', { epoch: 0.5 }],
    ['shuffleBuffer', { shuffleBuffer: -1 }],
    ['seed', { seed: 1.25 }],
    ['mode', { mode: 'wrap' }],
  ])('names %s when it is invalid (%o)', (name, patch) => {
    const opts = { epoch: 0, worldSize: 2, rank: 0, ...patch } as AssignOptions
    expect(() => resolveAssign(opts)).toThrow(RangeError)
    expect(() => resolveAssign(opts)).toThrow(new RegExp(`^${name} must be`))
  })
})

describe('rankSplit', () => {
  it('cuts equal shares, dropping the tail or padding from the head', () => {
    expect(rankSplit(395, 3, 2, 'drop_last')).toEqual({ length: 131, offset: 262, rowsDropped: 2, rowsPadded: 0 })
    expect(rankSplit(395, 3, 2, 'pad')).toEqual({ length: 132, offset: 264, rowsDropped: 0, rowsPadded: 1 })
    expect(rankSplit(400, 4, 1, 'drop_last')).toEqual({ length: 100, offset: 100, rowsDropped: 0, rowsPadded: 0 })
  })

  it('gives empty shares, not an error, when there are more ranks than rows (drop_last)', () => {
    expect(rankSplit(2, 4, 3, 'drop_last')).toEqual({ length: 0, offset: 0, rowsDropped: 2, rowsPadded: 0 })
    expect(rankSplit(2, 4, 3, 'pad')).toEqual({ length: 1, offset: 3, rowsDropped: 0, rowsPadded: 2 })
  })
})

describe('epoch assignment over ranks', () => {
  const all = allIdentities(plan)
  const allSet = new Set(all)

  it('fixture has the awkward units it claims (zero-row, masked) and distinct identities', () => {
    expect(plan.units.some(u => u.liveRows === 0 && !u.live)).toBe(true)
    expect(plan.units.some(u => u.liveRows === 0 && u.live)).toBe(true)
    expect(plan.units.some(u => u.live && u.liveRows > 0)).toBe(true)
    expect(allSet.size).toBe(N)
    expect(N).toBe(395)
  })

  for (const worldSize of [1, 2, 3, 4]) {
    it(`drop_last, K=${worldSize}: equal disjoint shares covering all live rows but rowsDropped`, () => {
      for (const seed of SEEDS)
        for (const epoch of [0, 1])
          for (const shuffleBuffer of BUFFERS) {
            const { shares, dropped, padded } = epochShares({ seed, epoch, worldSize, shuffleBuffer })
            const per = Math.floor(N / worldSize)
            expect(shares.map(s => s.length)).toEqual(Array(worldSize).fill(per))
            expect([dropped, padded]).toEqual([N - per * worldSize, 0])
            const union = shares.flat()
            expect(new Set(union).size).toBe(union.length) // disjoint, no repeats
            expect(union.every(id => allSet.has(id))).toBe(true)
            expect(union.length).toBe(N - dropped)
          }
    })

    it(`pad, K=${worldSize}: equal shares, every live row, exactly rowsPadded repeats`, () => {
      for (const seed of SEEDS)
        for (const epoch of [0, 1])
          for (const shuffleBuffer of BUFFERS) {
            const { shares, dropped, padded } = epochShares({ seed, epoch, worldSize, shuffleBuffer, mode: 'pad' })
            const per = Math.ceil(N / worldSize)
            expect(shares.map(s => s.length)).toEqual(Array(worldSize).fill(per))
            expect([dropped, padded]).toEqual([0, per * worldSize - N])
            const union = shares.flat()
            expect(new Set(union)).toEqual(allSet)
            expect(union.length - allSet.size).toBe(padded)
          }
    })
  }

  it('drops different rows in different epochs when shuffling (the tail of each epoch order)', () => {
    const missing = (epoch: number): string[] => {
      const got = new Set(epochShares({ seed: 42, epoch, worldSize: 4 }).shares.flat())
      return all.filter(id => !got.has(id))
    }
    expect(missing(0)).toHaveLength(3)
    expect(missing(0)).not.toEqual(missing(1))
    const table = new Set(epochShares({ worldSize: 4, epoch: 0 }).shares.flat())
    expect(all.filter(id => !table.has(id))).toEqual(all.slice(N - 3)) // no seed: table order's tail
  })

  it('handles plans with fewer rows than ranks, and with no rows at all', () => {
    const tiny = syntheticPlan([{ rows: 0 }, { rows: 2 }, { rows: 3, live: 0 }])
    const drop = rankStream(tiny, { seed: 1, epoch: 0, worldSize: 4, rank: 3 })
    expect([drop.length, drop.rowsDropped]).toEqual([0, 2])
    expect(drop.rowsAt(0, 0).unit).toHaveLength(0)
    const padded = [0, 1, 2, 3].map(rank =>
      idsOf(tiny, rankStream(tiny, { seed: 1, epoch: 0, worldSize: 4, rank, mode: 'pad' }).rowsAt(0, 1)),
    )
    expect(new Set(padded.flat())).toEqual(new Set(allIdentities(tiny)))
    const empty = syntheticPlan([{ rows: 0 }, { rows: 4, live: 0 }])
    for (const mode of ['drop_last', 'pad'] as const) {
      const s = rankStream(empty, { seed: 3, epoch: 1, worldSize: 2, rank: 1, mode })
      expect([s.length, s.rowsDropped, s.rowsPadded, s.segments()]).toEqual([0, 0, 0, []])
    }
  })
})

describe('locate', () => {
  it('finds the unit of every epoch position, skipping zero-row units', () => {
    const seq = epochSequence(plan, 5, 0)
    let g = 0
    for (let k = 0; k < seq.order.length; k++) {
      for (let i = 0; i < plan.units[seq.order[k]].liveRows; i++, g++) {
        expect(locate(seq, g)).toBe(k)
        expect(locate(seq, g, 0)).toBe(k) // a wrong hint is ignored
      }
    }
    expect(g).toBe(seq.rows)
  })
})

describe('identity', () => {
  it('maps live indices through the mask, or from rowStart when unmasked', () => {
    const masked = plan.units[9] // rows 200, 101 live, third unit of file 3
    expect(identity(plan, 9, 0)).toEqual({ path: 'part-3.parquet', row: masked.live![0] })
    expect(identity(plan, 9, 100).row).toBe(masked.live![100])
    expect(masked.live![0]).toBeGreaterThanOrEqual(masked.rowStart)
    expect(identity(plan, 3, 5)).toEqual({ path: 'part-1.parquet', row: plan.units[3].rowStart + 5 })
    expect(identityString(plan, 0, 49)).toBe('part-0.parquet:49')
    expect(fileRows(plan, Uint32Array.of(0, 9), Uint32Array.of(7, 1))).toEqual(Uint32Array.of(7, masked.live![1]))
  })

  it('refuses units and indices out of range', () => {
    expect(() => identity(plan, 99, 0)).toThrow(/unit 99 is not in the plan/)
    expect(() => identity(plan, 4, 0)).toThrow(/live index 0 is out of range for unit 4 \(0 live rows\)/)
    expect(() => identity(plan, 0, 50)).toThrow(RangeError)
    expect(() => fileRows(plan, Uint32Array.of(0, 4), Uint32Array.of(0, 0))).toThrow(/out of range for unit 4/)
    expect(() => fileRows(plan, Uint32Array.of(77), Uint32Array.of(0))).toThrow(/unit 77 is not in the plan/)
  })
})

describe('workerShare', () => {
  it('deals each unit to exactly one worker, covering the rank, whatever the worker count', () => {
    const stream = rankStream(plan, { seed: 42, epoch: 1, worldSize: 2, rank: 1, shuffleBuffer: 16, mode: 'pad' })
    const all = stream.segments()
    for (const workers of [1, 2, 3, 5]) {
      const shares = Array.from({ length: workers }, (_, w) => workerShare(stream, workers, w))
      expect(shares.flat().length).toBe(all.length)
      const owners = new Map<number, number>()
      shares.forEach((segs, w) =>
        segs.forEach(s => {
          expect(owners.get(s.unit) ?? w).toBe(w)
          owners.set(s.unit, w)
        }),
      )
      expect(new Set(shares.flat().map(s => `${s.unit}:${s.start}`))).toEqual(
        new Set(all.map(s => `${s.unit}:${s.start}`)),
      )
      const units = stream.unitsInOrder()
      units.forEach((u, i) => expect(owners.get(u)).toBe(i % workers)) // round-robin in need order
    }
  })

  it('validates the worker parameters', () => {
    const stream = rankStream(plan, { epoch: 0, worldSize: 1, rank: 0 })
    expect(() => workerShare(stream, 0, 0)).toThrow(/^workersPerRank must be/)
    expect(() => workerShare(stream, 2, 2)).toThrow(/^worker must be an integer in \[0, 2\)/)
  })
})
