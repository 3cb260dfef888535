import { describe, expect, it } from 'vitest'
import { spanUnion } from '../../../bench/loader-wire.ts'
import { wireRanges } from '../../../bench/loader-wire-ranges.ts'
import { createUnitReader } from '../../../src/data/unit-reader.ts'
import { CLICKS, openFixture } from '../data/loader-fixtures.ts'

describe('the loader suite wire rows', () => {
  it('request exactly the ranges the unit reader requests for one epoch', async () => {
    const fx = await openFixture(CLICKS, ['user_id', 'country', 'emb', 'label'], false)
    const asked: string[] = []
    const fetch = ((url: string, init?: RequestInit) => {
      asked.push(`${url} ${new Headers(init?.headers).get('Range')}`)
      return fx.fetch(url, init)
    }) as typeof fx.fetch
    const reader = createUnitReader(fx.plan, {}, { fetch })
    for (const u of fx.plan.units) await reader.read(u.id)
    const ranges = wireRanges(fx.plan)
    expect(ranges.map(r => `${r.url} bytes=${r.start}-${r.end - 1}`).sort()).toEqual(asked.sort())
    expect(ranges.reduce((s, r) => s + r.end - r.start, 0)).toBe(reader.stats().bytesFetched)
  })

  it('divide by the time any fetch was in flight: the union of the spans', () => {
    expect(spanUnion([])).toBe(0)
    expect(spanUnion([[5, 9]])).toBe(4)
    expect(
      spanUnion([
        [10, 20],
        [0, 4],
        [3, 6],
        [12, 15],
        [20, 21],
      ]),
    ).toBe(6 + 11)
  })
})
