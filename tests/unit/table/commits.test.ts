import { describe, expect, it } from 'vitest'
import type { CommitInfoAction } from '../../../src/table/actions.ts'
import { commitTimestamp, monotonize, toCommitInfo, toMillis } from '../../../src/table/commits.ts'
import { mapLimit } from '../../../src/util/map-limit.ts'

describe('commit helpers', () => {
  it('takes inCommitTimestamp, else the file time; commitInfo.timestamp only without a file time', () => {
    const info = (commitInfo: CommitInfoAction, lastModified?: number) => ({
      version: 1,
      actions: [{ kind: 'commitInfo' as const, commitInfo }],
      lastModified,
    })
    expect(commitTimestamp(info({ timestamp: 2, inCommitTimestamp: 1 }, 9))).toBe(1)
    expect(commitTimestamp(info({ timestamp: 2 }, 9))).toBe(9)
    expect(commitTimestamp(info({}, 9))).toBe(9)
    expect(commitTimestamp(info({ timestamp: 2 }))).toBe(2)
    expect(commitTimestamp({ version: 1, actions: [] })).toBe(0)
    expect(toCommitInfo(info({ timestamp: 2, operation: 'DELETE', operationMetrics: { n: '1' } }, 9))).toEqual({
      version: 1,
      timestamp: 9,
      operation: 'DELETE',
      operationMetrics: { n: '1' },
    })
  })

  it('makes commit times strictly increasing, as Delta readers adjust clocks that go backwards', () => {
    expect(monotonize([10, 5, 5, 20, 19])).toEqual([10, 11, 12, 20, 21])
    expect(monotonize([])).toEqual([])
  })

  it('parses times and names a bad one', () => {
    expect(toMillis('2024-01-02T00:00:00Z')).toBe(Date.UTC(2024, 0, 2))
    expect(toMillis(5)).toBe(5)
    expect(() => toMillis('yesterday')).toThrow(/timestamp "yesterday" is not an ISO-8601 time/)
  })

  it('mapLimit keeps order and bounds concurrency', async () => {
    let inFlight = 0
    let peak = 0
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async n => {
      peak = Math.max(peak, ++inFlight)
      await new Promise(r => setTimeout(r, n))
      inFlight--
      return n * 10
    })
    expect(out).toEqual([50, 10, 40, 20, 30])
    expect(peak).toBe(2)
  })

  it('mapLimit starts no item after the first failure', async () => {
    const started: number[] = []
    const run = mapLimit([1, 2, 3, 4, 5, 6], 2, async n => {
      started.push(n)
      await new Promise(r => setTimeout(r, n === 2 ? 1 : 20))
      if (n === 2) throw new Error('item 2 failed')
      return n
    })
    await expect(run).rejects.toThrow('item 2 failed')
    // 1 and 2 start together; 2 fails before 1 ends, so nothing after them starts.
    await new Promise(r => setTimeout(r, 60))
    expect(started).toEqual([1, 2])
  })
})
