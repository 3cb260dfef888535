import { describe, expect, it } from 'vitest'
import type { CheckpointFile, LogListing } from '../../../src/table/listing.ts'
import { buildSegment, versionRange } from '../../../src/table/log-segment.ts'
import type { TableError } from '../../../src/table/types.ts'

const T = 'http://t.test/tbl/'
const commits = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ version: from + i, url: `${T}_delta_log/${from + i}.json` }))
const cp = (version: number): CheckpointFile => ({ version, kind: 'classic', parts: [{ url: `${T}cp${version}` }] })
const listing = (c: LogListing['commits'], checkpoints: CheckpointFile[] = []): LogListing => ({
  source: 'list',
  commits: c,
  checkpoints,
})

function error(fn: () => unknown): TableError {
  try {
    fn()
  } catch (e) {
    return e as TableError
  }
  throw new Error('expected an error')
}

describe('buildSegment', () => {
  it('uses the newest checkpoint at or before the version', () => {
    const l = listing(commits(0, 25), [cp(10), cp(20)])
    const latest = buildSegment(l, T)
    expect(latest.version).toBe(25)
    expect(latest.checkpoint?.version).toBe(20)
    expect(latest.commits.map(c => c.version)).toEqual([21, 22, 23, 24, 25])
    const v15 = buildSegment(l, T, 15)
    expect(v15.checkpoint?.version).toBe(10)
    expect(v15.commits.map(c => c.version)).toEqual([11, 12, 13, 14, 15])
    expect(buildSegment(l, T, 20).commits).toEqual([])
    expect(buildSegment(l, T, 3).checkpoint).toBeUndefined()
  })

  it('refuses versions outside the reconstructable range, naming it', () => {
    const l = listing(commits(3, 6), [cp(2)]) // commits 0–2 cleaned up
    expect(versionRange(l, T)).toEqual({ earliest: 2, latest: 6 })
    for (const v of [1, 7, -1]) {
      const e = error(() => buildSegment(l, T, v))
      expect(e.code).toBe('version-not-found')
      expect(e.message).toBe(`version ${v} not found in ${T}: available versions are 2 to 6`)
    }
  })

  it('falls back to an older checkpoint when commits after the newest are missing', () => {
    const l = listing([...commits(0, 4), ...commits(6, 8)], [cp(3), cp(7)])
    expect(buildSegment(l, T, 4).checkpoint?.version).toBe(3)
    // Commit 5 is missing between 4 and 6: a version gap, named as such.
    const gap = error(() => buildSegment(l, T, 5))
    expect(gap.code).toBe('malformed-log')
    expect(gap.message).toBe(
      `${T}_delta_log/00000000000000000005.json is missing: the log has a version gap at ` +
        'commit 5 (later commits exist), so versions from 5 on cannot be read',
    )
  })

  it('says not-a-table for an empty log', () => {
    const e = error(() => buildSegment(listing([]), T))
    expect(e.code).toBe('not-a-table')
    expect(e.message).toContain(T)
  })
})
