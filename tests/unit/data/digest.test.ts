import { describe, expect, test } from 'vitest'
import { Digest, planDigest, type DigestInput } from '../../../src/data/digest.ts'

const base: DigestInput = {
  tableUrl: 'http://t/',
  version: 2,
  columns: ['a', 'b'],
  filter: 'a > 1',
  files: [
    { path: 'p0.parquet', size: 100 },
    { path: 'p1.parquet', size: 200 },
  ],
  units: [
    { id: 0, fileIndex: 0, rowGroup: 0, rowStart: 0, rowEnd: 10, liveRows: 10 },
    { id: 1, fileIndex: 1, rowGroup: 0, rowStart: 0, rowEnd: 10, liveRows: 2, live: Uint32Array.from([3, 4]) },
  ],
}

describe('planDigest', () => {
  test('stable: same input, same 16-hex-digit string', () => {
    const d = planDigest(base)
    expect(d).toMatch(/^[0-9a-f]{16}$/)
    expect(planDigest(structuredClone(base))).toBe(d)
    expect(new Digest().text('abc').hex()).toBe(new Digest().text('abc').hex())
    expect(new Digest().text('ab').text('c').hex()).not.toBe(new Digest().text('a').text('bc').hex())
  })

  test('changes with every input that decides the rows', () => {
    const d = planDigest(base)
    const variants: DigestInput[] = [
      { ...base, tableUrl: 'http://u/' },
      { ...base, version: 3 },
      { ...base, columns: ['a'] },
      { ...base, filter: undefined },
      { ...base, label: 'b' },
      { ...base, files: [base.files[0], { path: 'p1.parquet', size: 201 }] },
      { ...base, units: [base.units[0], { ...base.units[1], live: Uint32Array.from([3, 5]) }] },
      { ...base, units: [base.units[1], base.units[0]] },
    ]
    const seen = new Set([d, ...variants.map(planDigest)])
    expect(seen.size).toBe(variants.length + 1)
  })
})
