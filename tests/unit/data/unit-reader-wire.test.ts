import { describe, expect, it } from 'vitest'
import { createUnitReader, UNIT_FETCH_INIT } from '../../../src/data/unit-reader.ts'
import { CLICKS, openFixture } from './loader-fixtures.ts'

describe('the unit reader on the wire', () => {
  it('sends every column-chunk read with cache: no-store, and records one fetch span per row group fetched', async () => {
    const fx = await openFixture(CLICKS, ['label', 'country'], false)
    const inits: RequestInit[] = []
    const fetch = ((url: string, init?: RequestInit) => {
      inits.push(init ?? {})
      return fx.fetch(url, init)
    }) as typeof fx.fetch
    const reader = createUnitReader(fx.plan, {}, { fetch })
    const units = fx.plan.units.slice(0, 3)
    const before = performance.timeOrigin + performance.now()
    for (const u of units) await reader.read(u.id)
    const after = performance.timeOrigin + performance.now()
    expect(UNIT_FETCH_INIT.cache).toBe('no-store')
    expect(inits.length).toBeGreaterThanOrEqual(units.length)
    for (const init of inits) {
      expect(init.cache).toBe('no-store')
      expect(new Headers(init.headers).get('Range')).toMatch(/^bytes=\d+-\d+$/)
    }
    const groups = new Set(units.map(u => `${u.fileIndex}:${u.rowGroup}`))
    const { fetchSpans, bytesFetched } = reader.stats()
    expect(fetchSpans.length).toBe(groups.size)
    expect(bytesFetched).toBeGreaterThan(0)
    for (const [start, end] of fetchSpans) {
      expect(start).toBeGreaterThanOrEqual(before - 1)
      expect(end).toBeGreaterThanOrEqual(start)
      expect(end).toBeLessThanOrEqual(after + 1)
    }
    // A unit of a row group read just before is served from the reader's bytes: no new span.
    await reader.read(units[units.length - 1]!.id)
    expect(reader.stats().fetchSpans.length).toBe(groups.size)
  })
})
