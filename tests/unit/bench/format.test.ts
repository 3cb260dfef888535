import { describe, expect, test } from 'vitest'
import { formatMarkdown, formatNumber, formatTable } from '../../../bench/format.ts'
import type { BenchRow } from '../../../bench/types.ts'

const base = {
  suite: 'device',
  metric: 'bandwidth',
  unit: 'GB/s',
  repeats: 3,
  timing: 'gpu',
  adapter: 'x',
  commit: 'c',
  date: 'd',
} as const

describe('format', () => {
  test('formatNumber keeps about 3 significant digits', () => {
    expect(formatNumber(1234.5)).toBe('1235')
    expect(formatNumber(12.345)).toBe('12.3')
    expect(formatNumber(1.2345)).toBe('1.23')
    expect(formatNumber(0.12345)).toBe('0.123')
    expect(formatNumber(0.0012345)).toBe('1.23e-3')
    expect(formatNumber(0)).toBe('0.000')
    expect(formatNumber(undefined)).toBe('')
  })

  test('formatTable aligns columns and shows peer and ratio', () => {
    const rows: BenchRow[] = [
      { ...base, workload: 'copyBufferToBuffer', value: 9.26, min: 7, median: 9.26, max: 22 },
      {
        ...base,
        workload: 'copy wg=64',
        value: 0.51,
        min: 0.4,
        median: 0.51,
        max: 0.53,
        peer: 'copyBufferToBuffer',
        peer_value: 9.26,
        ratio: 0.055,
      },
    ]
    const lines = formatTable(rows).split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^workload\s+metric\s+value\s+unit\s+min\/median\/max\s+peer\s+ratio$/)
    expect(lines[2]).toContain('copyBufferToBuffer')
    expect(lines[2]).toMatch(/0\.055×$/)
    // value column right-aligned: both values end at the same column.
    const end = (l: string, v: string): number => l.indexOf(v) + v.length
    expect(end(lines[1], '9.26 ')).toBe(end(lines[2], '0.510 '))
  })

  test('formatMarkdown: header, alignment row, one line per row', () => {
    const md = formatMarkdown([
      {
        ...base,
        workload: 'noop',
        metric: 'latency',
        unit: 'µs',
        value: 7,
        min: 6.8,
        median: 7,
        max: 7.8,
        peer: 'x',
        peer_value: 14,
        ratio: 2,
      },
    ]).split('\n')
    expect(md[0]).toBe('| workload | metric | value | unit | min/median/max | peer | ratio |')
    expect(md[1]).toBe('| --- | --- | ---: | --- | --- | --- | ---: |')
    expect(md[2]).toBe('| noop | latency | 7.00 | µs | 6.80 / 7.00 / 7.80 | x | 2.00× |')
  })
})
