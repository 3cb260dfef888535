import { describe, expect, it } from 'vitest'
import { identityOrder, permutation, unitOrder, windowPermutation } from '../../../src/data/shuffle.ts'
import { mixSeed } from '../../../src/util/hash.ts'
import { syntheticPlan, UNEVEN } from './assign-fixtures.ts'

function isPermutation(p: Uint32Array): boolean {
  const seen = new Uint8Array(p.length)
  for (const v of p) {
    if (v >= p.length || seen[v]) return false
    seen[v] = 1
  }
  return true
}

describe('mixSeed', () => {
  it('is a deterministic unsigned 32-bit hash sensitive to every argument and its order', () => {
    const base = mixSeed(42, 0, 1, 2)
    expect(base).toBe(mixSeed(42, 0, 1, 2))
    expect(Number.isInteger(base) && base >= 0 && base < 2 ** 32).toBe(true)
    const variants = [
      mixSeed(43, 0, 1, 2),
      mixSeed(42, 1, 1, 2),
      mixSeed(42, 0, 2, 2),
      mixSeed(42, 0, 1, 3),
      mixSeed(42, 0, 2, 1),
      mixSeed(42, 0, 1),
      mixSeed(42, 0, 1, 2, 0),
    ]
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1)
  })

  it('uses the high bits of large seeds and accepts negatives', () => {
    expect(mixSeed(1)).not.toBe(mixSeed(1 + 2 ** 32))
    expect(mixSeed(-1)).not.toBe(mixSeed(2 ** 32 - 1))
    expect(mixSeed(-5)).toBe(mixSeed(-5))
  })

  it('spreads consecutive inputs (no two of 10 000 collide, bits balanced)', () => {
    const seen = new Set<number>()
    let ones = 0
    for (let e = 0; e < 10_000; e++) {
      const h = mixSeed(7, e)
      seen.add(h)
      ones += h & 1
    }
    expect(seen.size).toBe(10_000)
    expect(Math.abs(ones - 5000)).toBeLessThan(300)
  })

  it('rejects non-integers', () => {
    expect(() => mixSeed(1.5)).toThrow(RangeError)
    expect(() => mixSeed(NaN)).toThrow(/safe integers/)
    expect(() => mixSeed(2 ** 60)).toThrow(RangeError)
  })
})

describe('permutation', () => {
  it('is a permutation, reproducible, and differs between seeds', () => {
    for (const n of [0, 1, 2, 17, 1000]) expect(isPermutation(permutation(n, n * 3 + 1))).toBe(true)
    expect(permutation(500, 9)).toEqual(permutation(500, 9))
    expect(permutation(500, 9)).not.toEqual(permutation(500, 10))
    expect(permutation(500, 9)).not.toEqual(identityOrder(500))
  })

  it('is close to uniform (all 6 orders of 3 items about equally often)', () => {
    const counts = new Map<string, number>()
    for (let s = 0; s < 6000; s++) {
      const key = permutation(3, mixSeed(s)).join('')
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    expect(counts.size).toBe(6)
    for (const c of counts.values()) expect(Math.abs(c - 1000)).toBeLessThan(150)
  })
})

describe('unitOrder', () => {
  const plan = syntheticPlan(UNEVEN)

  it('is table order without a seed, in every epoch', () => {
    expect(unitOrder(plan, undefined, 0)).toEqual(identityOrder(UNEVEN.length))
    expect(unitOrder(plan, undefined, 3)).toEqual(identityOrder(UNEVEN.length))
  })

  it('reshuffles every epoch, reproducibly', () => {
    const orders = [0, 1, 2, 3].map(e => unitOrder(plan, 42, e))
    for (const o of orders) expect(isPermutation(o)).toBe(true)
    expect(new Set(orders.map(o => o.join(','))).size).toBe(4)
    expect(unitOrder(plan, 42, 1)).toEqual(orders[1])
    expect(unitOrder(plan, 43, 1)).not.toEqual(orders[1])
  })
})

describe('windowPermutation', () => {
  it('depends on seed, epoch, rank and window, and is rebuilt identically', () => {
    const base = windowPermutation(64, 1, 2, 3, 4)
    expect(isPermutation(base)).toBe(true)
    expect(windowPermutation(64, 1, 2, 3, 4)).toEqual(base)
    for (const other of [
      [2, 2, 3, 4],
      [1, 3, 3, 4],
      [1, 2, 4, 4],
      [1, 2, 3, 5],
    ]) {
      const [s, e, r, w] = other
      expect(windowPermutation(64, s, e, r, w)).not.toEqual(base)
    }
  })
})
