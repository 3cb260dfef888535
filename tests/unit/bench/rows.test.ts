import { describe, expect, test } from 'vitest'
import { bestRow, makeRow, withoutPeer, withPeer } from '../../../bench/rows.ts'
import type { BenchRow, SuiteContext } from '../../../bench/types.ts'

const ctx = {
  suite: 'device',
  quick: false,
  commit: 'abc1234',
  date: '2026-01-01T00:00:00.000Z',
  adapter: {
    vendor: 'google',
    architecture: 'swiftshader',
    device: '',
    description: '',
    isFallbackAdapter: true,
    features: [],
    limits: {},
  },
  progress: () => {},
} as unknown as SuiteContext

function row(workload: string, value: number, unit: string): BenchRow {
  return makeRow(ctx, { workload, metric: 'm', unit, samples: [{ wallMs: 1000 / value }], fromSeconds: s => 1 / s })
}

describe('rows', () => {
  test('makeRow stamps suite, adapter label, commit, date and the median as value', () => {
    const r = makeRow(ctx, {
      workload: 'w',
      metric: 'bandwidth',
      unit: 'GB/s',
      samples: [{ wallMs: 1000 }, { wallMs: 500 }, { wallMs: 250 }],
      fromSeconds: s => 8 / s,
    })
    expect(r).toMatchObject({
      suite: 'device',
      adapter: 'google swiftshader (fallback)',
      commit: 'abc1234',
      date: ctx.date,
    })
    expect(r).toMatchObject({ value: 16, median: 16, min: 8, max: 32, repeats: 3, timing: 'wall' })
  })

  test('withPeer: ratio > 1 when better, for both directions', () => {
    expect(withPeer(row('fast', 20, 'GB/s'), row('slow', 10, 'GB/s')).ratio).toBeCloseTo(2)
    const quick = withPeer(row('a', 5, 'µs'), row('b', 10, 'µs'))
    expect(quick).toMatchObject({ peer: 'b', peer_value: 10 })
    expect(quick.ratio).toBeCloseTo(2)
  })

  test('withPeer refuses mixed units', () => {
    expect(() => withPeer(row('a', 1, 'GB/s'), row('b', 1, 'µs'))).toThrow(/GB\/s.*µs/)
  })

  test('withoutPeer drops peer, peer_value and ratio and keeps the measurement', () => {
    const compared = withPeer(row('tiled', 20, 'GFLOP/s'), row('naive', 10, 'GFLOP/s'))
    const copy = withoutPeer(compared)
    expect('peer' in copy || 'peer_value' in copy || 'ratio' in copy).toBe(false)
    expect(copy).toEqual(row('tiled', 20, 'GFLOP/s'))
  })

  test('bestRow picks by direction', () => {
    expect(bestRow([row('a', 1, 'GB/s'), row('b', 3, 'GB/s'), row('c', 2, 'GB/s')]).workload).toBe('b')
    expect(bestRow([row('a', 1, 'µs'), row('b', 3, 'µs')]).workload).toBe('a')
  })
})
