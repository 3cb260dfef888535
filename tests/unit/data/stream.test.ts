import { describe, expect, it } from 'vitest'
import { rankStream } from '../../../src/data/stream.ts'
import { planRows } from '../../../src/data/assign.ts'
import type { AssignOptions, RankStreamView, ScanPlan } from '../../../src/data/types.ts'
import { allIdentities, idsOf, syntheticPlan, UNEVEN, type UnitSpec } from './assign-fixtures.ts'

const plan = syntheticPlan(UNEVEN)

/** A bigger plan (~5k rows) so several shuffle windows span unit boundaries. */
const wide = syntheticPlan(
  Array.from(
    { length: 40 },
    (_, i): UnitSpec => (i % 7 === 3 ? { rows: 0 } : i % 5 === 1 ? { rows: 150, live: 90 + i } : { rows: 60 + 13 * i }),
  ),
  { perFile: 4 },
)

function ids(p: ScanPlan, opts: AssignOptions, start = 0, end?: number): string[] {
  const s = rankStream(p, opts)
  return idsOf(p, s.rowsAt(start, end ?? s.length))
}

/** Concatenate rowsAt over chunks of the given sizes (cycled). */
function chunked(s: RankStreamView, sizes: number[]): { unit: number[]; index: number[] } {
  const unit: number[] = []
  const index: number[] = []
  for (let p = 0, i = 0; p < s.length; i++) {
    const end = Math.min(s.length, p + sizes[i % sizes.length])
    const r = s.rowsAt(p, end)
    unit.push(...r.unit)
    index.push(...r.index)
    p = end
  }
  return { unit, index }
}

describe('rankStream order', () => {
  it('without a seed is exactly table order, split contiguously across ranks', () => {
    const all = allIdentities(plan)
    expect(ids(plan, { epoch: 0, worldSize: 1, rank: 0 })).toEqual(all)
    expect(ids(plan, { epoch: 5, worldSize: 1, rank: 0, shuffleBuffer: 8 })).toEqual(all)
    const per = Math.floor(all.length / 3)
    for (const rank of [0, 1, 2]) {
      expect(ids(plan, { epoch: 0, worldSize: 3, rank })).toEqual(all.slice(rank * per, (rank + 1) * per))
    }
    expect(rankStream(plan, { epoch: 0, worldSize: 1, rank: 0, shuffleBuffer: 8 }).shuffleBuffer).toBe(0)
  })

  it('same seed reproduces the order; other epochs and seeds change it', () => {
    for (const rank of [0, 1]) {
      const opts = { seed: 42, epoch: 0, worldSize: 2, rank, shuffleBuffer: 256 }
      const first = ids(wide, opts)
      expect(ids(wide, opts)).toEqual(first)
      expect(ids(wide, { ...opts, epoch: 1 })).not.toEqual(first)
      expect(ids(wide, { ...opts, seed: 43 })).not.toEqual(first)
      expect(first).not.toEqual([...first].sort()) // sanity: a shuffle, not a sort
    }
  })

  it('epochs differ in unit order too, not just within windows', () => {
    const units = (epoch: number): number[] =>
      rankStream(wide, { seed: 9, epoch, worldSize: 1, rank: 0 }).unitsInOrder()
    expect(units(0)).not.toEqual(units(1))
    expect(new Set(units(0))).toEqual(new Set(units(1)))
  })

  it('seed 0 is a seed (shuffles), not "no seed"', () => {
    const opts = { epoch: 0, worldSize: 1, rank: 0 }
    expect(ids(wide, { ...opts, seed: 0 })).not.toEqual(ids(wide, opts))
    expect(rankStream(wide, { ...opts, seed: 0 }).shuffleBuffer).toBeGreaterThan(0)
  })

  it('window permutations depend on the window, the epoch and the rank', () => {
    // One unit: unit order cannot change, so any difference comes from the window shuffle.
    const one = syntheticPlan([{ rows: 1000 }])
    const shape = (o: AssignOptions, w: number): number[] => {
      const r = rankStream(one, o).rowsAt(w * 100, w * 100 + 100)
      return Array.from(r.index, v => v - r.index.reduce((a, b) => Math.min(a, b)))
    }
    const o = { seed: 3, epoch: 0, worldSize: 2, rank: 0, shuffleBuffer: 100 }
    expect(shape(o, 1)).not.toEqual(shape(o, 0))
    expect(shape({ ...o, epoch: 1 }, 0)).not.toEqual(shape(o, 0))
    expect(shape({ ...o, rank: 1 }, 0)).not.toEqual(shape(o, 0))
    expect(shape({ ...o, seed: 4 }, 0)).not.toEqual(shape(o, 0))
  })

  it('reports the window it uses: the option, capped at the stream length', () => {
    const n = planRows(wide)
    expect(rankStream(wide, { seed: 1, epoch: 0, worldSize: 1, rank: 0 }).shuffleBuffer).toBe(Math.min(16_384, n))
    expect(rankStream(wide, { seed: 1, epoch: 0, worldSize: 1, rank: 0, shuffleBuffer: 100 }).shuffleBuffer).toBe(100)
    expect(rankStream(wide, { seed: 1, epoch: 0, worldSize: 1, rank: 0, shuffleBuffer: 0 }).shuffleBuffer).toBe(0)
  })
})

describe('rankStream positions', () => {
  it('rowsAt is a pure function of position: any chunking gives the same rows', () => {
    const s = rankStream(wide, { seed: 7, epoch: 2, worldSize: 3, rank: 1, shuffleBuffer: 100, mode: 'pad' })
    const whole = s.rowsAt(0, s.length)
    for (const sizes of [[1], [7, 99, 100, 101], [250], [s.length]]) {
      expect(chunked(s, sizes)).toEqual({ unit: [...whole.unit], index: [...whole.index] })
    }
    const back = rankStream(wide, { seed: 7, epoch: 2, worldSize: 3, rank: 1, shuffleBuffer: 100, mode: 'pad' })
    expect(back.rowsAt(950, 1010)).toEqual(s.rowsAt(950, 1010)) // out of order / fresh stream
    expect(s.rowsAt(10, 10).unit).toHaveLength(0)
  })

  it('bounds displacement by the shuffle buffer: each row stays in its window, and rows do move', () => {
    for (const B of [1, 64, 500]) {
      const opts = { seed: 11, epoch: 3, worldSize: 2, rank: 1, shuffleBuffer: B }
      const shuffled = ids(wide, opts)
      const pre = ids(wide, { ...opts, shuffleBuffer: 0 })
      const prePos = new Map(pre.map((id, q) => [id, q]))
      let maxShift = 0
      shuffled.forEach((id, p) => {
        const q = prePos.get(id)!
        expect(Math.floor(q / B)).toBe(Math.floor(p / B))
        maxShift = Math.max(maxShift, Math.abs(p - q))
      })
      expect(maxShift).toBeLessThan(B)
      if (B > 1) expect(maxShift).toBeGreaterThan(B / 2)
      else expect(shuffled).toEqual(pre)
    }
  })

  it('refuses position ranges outside the stream', () => {
    const s = rankStream(plan, { seed: 1, epoch: 0, worldSize: 2, rank: 0 })
    expect(() => s.rowsAt(-1, 3)).toThrow(RangeError)
    expect(() => s.rowsAt(5, 4)).toThrow(/position range \[5, 4\)/)
    expect(() => s.rowsAt(0, s.length + 1)).toThrow(/within the rank stream \[0, 197\)/)
    expect(() => s.unitsFor(0, s.length + 1)).toThrow(RangeError)
  })
})

describe('segments and unitsFor', () => {
  const cases: AssignOptions[] = [
    { seed: 5, epoch: 0, worldSize: 3, rank: 2, shuffleBuffer: 300 },
    { seed: 5, epoch: 1, worldSize: 4, rank: 3, shuffleBuffer: 64, mode: 'pad' },
    { epoch: 0, worldSize: 2, rank: 1 },
  ]

  it.each(cases)('segments list the pre-shuffle rows, and each row is delivered in its need range (%o)', opts => {
    const s = rankStream(wide, opts)
    const pre = rankStream(wide, { ...opts, shuffleBuffer: 0 }).rowsAt(0, s.length)
    const segs = s.segments()
    expect(segs[0].position).toBe(0)
    let q = 0
    for (const seg of segs) {
      expect(seg.position).toBe(q)
      expect(seg.end).toBeGreaterThan(seg.start)
      for (let i = seg.start; i < seg.end; i++, q++) expect([pre.unit[q], pre.index[q]]).toEqual([seg.unit, i])
    }
    expect(q).toBe(s.length)
    const rows = s.rowsAt(0, s.length)
    for (let p = 0; p < s.length; p++) {
      const seg = segs.find(g => g.unit === rows.unit[p] && g.start <= rows.index[p] && rows.index[p] < g.end)!
      expect(p >= seg.needFrom && p < seg.needTo).toBe(true)
    }
  })

  it.each(cases)('unitsFor covers every unit rowsAt needs; exact without shuffling (%o)', opts => {
    const s = rankStream(wide, opts)
    for (const [a, b] of [
      [0, 1],
      [0, 64],
      [63, 65],
      [100, 700],
      [s.length - 5, s.length],
      [0, s.length],
    ]) {
      const needed = new Set(s.rowsAt(a, b).unit)
      const listed = s.unitsFor(a, b)
      expect(new Set(listed).size).toBe(listed.length)
      for (const u of needed) expect(listed).toContain(u)
      if (s.shuffleBuffer === 0) expect(new Set(listed)).toEqual(needed)
    }
    expect(s.unitsFor(3, 3)).toEqual([])
    expect(s.unitsFor(0, s.length)).toEqual(s.unitsInOrder())
  })
})

describe('performance sanity', () => {
  it('walks a 1M-row, 80-unit epoch in 4096-row batches (every row exactly once)', () => {
    const big = syntheticPlan(
      Array.from({ length: 80 }, () => ({ rows: 12_500 })),
      { perFile: 4 },
    )
    const report: string[] = []
    for (const [worldSize, seed] of [
      [1, 42],
      [4, 42],
      [1, undefined],
    ] as const) {
      const t0 = performance.now()
      const seen = new Uint8Array(80 * 12_500)
      let rows = 0
      for (let rank = 0; rank < worldSize; rank++) {
        const s = rankStream(big, { seed, epoch: 1, worldSize, rank })
        for (let p = 0; p < s.length; p += 4096) {
          const r = s.rowsAt(p, Math.min(s.length, p + 4096))
          for (let i = 0; i < r.unit.length; i++) seen[r.unit[i] * 12_500 + r.index[i]]++
          rows += r.unit.length
        }
      }
      report.push(`K=${worldSize} seed=${seed}: ${rows} rows in ${(performance.now() - t0).toFixed(0)} ms`)
      expect(rows).toBe(1_000_000)
      expect(seen.every(c => c === 1)).toBe(true)
    }
    console.log(`[stream perf] ${report.join('; ')}`)
  })
})
