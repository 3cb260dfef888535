import { describe, expect, it } from 'vitest'
import {
  bracketSeed,
  fmix32,
  fnv1a,
  hashBytes,
  hashInt64,
  hashInt64Words,
  hashInteger,
  hashString,
  mixSeed,
} from '../../../src/util/hash.ts'
import { Rng, sampleInPlace, shuffleInPlace } from '../../../src/util/rng.ts'
import { murmur3Ref, refInt64, refString } from './murmur-ref.ts'

describe('hash (murmur3 x86_32, seed 0)', () => {
  it('matches published murmur3 test vectors', () => {
    // Python: mmh3.hash(s, 0, signed=False); the 4 zero bytes from the SMHasher verification set.
    expect(hashString('')).toBe(0)
    expect(hashString('hello')).toBe(0x248bfa47)
    expect(hashString('foo')).toBe(0xf6a5c420)
    expect(hashString('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723)
    expect(hashBytes(new Uint8Array(4))).toBe(0x2362f9de)
  })

  it('agrees with an independent BigInt reference on random bytes of every tail length', () => {
    const rng = new Rng(11)
    for (let n = 0; n < 200; n++) {
      const bytes = Uint8Array.from({ length: n % 37 }, () => Math.floor(rng.next() * 256))
      expect(hashBytes(bytes)).toBe(murmur3Ref(bytes))
    }
  })

  it('hashes strings by their UTF-8 bytes (multi-byte, emoji, long)', () => {
    for (const s of ['é', 'ß字', '🙂 ok', 'x'.repeat(1000), 'fmt_07', 'tablet_ios']) {
      expect(hashString(s)).toBe(refString(s))
    }
  })

  it('hashes int64 over its 8 little-endian bytes, for bigint, words and safe integers alike', () => {
    const values = [0n, 1n, -1n, 99998n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 53n - 1n, -(2n ** 63n), 2n ** 63n - 1n]
    for (const v of values) {
      const want = refInt64(v)
      expect(hashInt64(v)).toBe(want)
      const u = BigInt.asUintN(64, v)
      expect(hashInt64Words(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0)).toBe(want)
      if (v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n) expect(hashInteger(Number(v))).toBe(want)
    }
  })

  it('is unsigned and spreads ids (no collisions among 10k consecutive ids)', () => {
    const hashes = Array.from({ length: 10_000 }, (_, i) => hashInteger(i))
    expect(Math.min(...hashes)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...hashes)).toBeLessThan(2 ** 32)
    expect(hashes.every(Number.isInteger)).toBe(true)
    expect(new Set(hashes).size).toBe(10_000)
  })
})

// Golden values: each of these decides data or models (epoch orders, GBDT sampling, Hyperband
// brackets, generated tables' ids), so they must never change.
describe('seed mixing and fingerprints (pinned outputs)', () => {
  it('mixSeed is murmur3 (seed 0x9747b28c) of the int64 bytes', () => {
    expect([mixSeed(), mixSeed(42, 0, 1, 2), mixSeed(-5), mixSeed(2 ** 40 + 3, -(2 ** 45))]).toEqual([
      3954623016, 2772341764, 1077757716, 1867052874,
    ])
    const bytes = new Uint8Array(16)
    const view = new DataView(bytes.buffer)
    view.setBigInt64(0, 42n, true)
    view.setBigInt64(8, -7n, true)
    expect(mixSeed(42, -7)).toBe(hashBytes(bytes, 0, 16, 0x9747b28c))
  })
  it('fmix32, bracketSeed and fnv1a', () => {
    expect([fmix32(0), fmix32(1), fmix32(0xdeadbeef)]).toEqual([0, 1364076727, 233162409])
    expect([bracketSeed(0, 0), bracketSeed(7, 2), bracketSeed(-1, 5)]).toEqual([1584969584, 2410274611, 2898417612])
    expect([fnv1a(''), fnv1a('a'), fnv1a('snaptrain'), fnv1a('ü€')]).toEqual([
      2166136261, 3826002220, 2137634225, 2756510773,
    ])
  })
  it('shuffleInPlace (Fisher–Yates from the back) and sampleInPlace (partial, from the front)', () => {
    const a = Uint32Array.from({ length: 10 }, (_, i) => i)
    shuffleInPlace(a, new Rng(42))
    expect(Array.from(a)).toEqual([2, 8, 3, 4, 9, 7, 5, 0, 1, 6])
    const b = Array.from({ length: 10 }, (_, i) => i)
    sampleInPlace(b, 3, new Rng(42))
    expect(new Set(b)).toEqual(new Set(Array.from({ length: 10 }, (_, i) => i)))
    expect(b.slice(0, 3)).toEqual([6, 2, 1]) // the GBDT column sampler's draws
  })
})
