import { describe, expect, test } from 'vitest'
import { runBenchSuite } from '../../../bench/index.ts'

describe('runBenchSuite', () => {
  test('unknown suite names the suite and lists the known ones', async () => {
    await expect(runBenchSuite('nope')).rejects.toThrow(/unknown bench suite 'nope' \(suites: device/)
  })

  test('device --quick yields stamped, internally consistent rows', async () => {
    const progress: string[] = []
    const rows = await runBenchSuite('device', { quick: true, commit: 'abc1234', onProgress: m => progress.push(m) })
    expect(progress.length).toBeGreaterThan(5)
    expect(progress[0]).toMatch(/^device: /)
    const units = new Set(rows.map(r => r.unit))
    for (const u of ['GB/s', 'M ops/s', 'GFLOP/s', 'µs']) expect(units, u).toContain(u)
    for (const r of rows) {
      expect(r.suite).toBe('device')
      expect(r.commit).toBe('abc1234')
      expect(r.min).toBeLessThanOrEqual(r.median)
      expect(r.median).toBeLessThanOrEqual(r.max)
      expect(r.value).toBe(r.median)
      expect(Number.isFinite(r.value) && r.value > 0, r.workload).toBe(true)
      if (r.peer !== undefined)
        expect(r.ratio).toBeCloseTo(r.unit === 'µs' ? r.peer_value! / r.value : r.value / r.peer_value!, 9)
    }
    expect(
      rows.some(r => r.workload.startsWith('atomic_add_workgroup') && r.peer?.startsWith('atomic_add_storage')),
    ).toBe(true)
    expect(rows.some(r => r.workload.startsWith('matmul_tiled') && r.peer?.startsWith('matmul_naive'))).toBe(true)
  })
})
