/**
 * The row key of the seeded validation split (src/data/row-key.ts): the README's worked example
 * pinned (so the documented definition and the code cannot drift apart), the canonical forms
 * (3.0 ≡ 3, −0 ≡ 0, one NaN, null apart from every value), and the key columns' defaults and errors.
 */
import { describe, expect, it } from 'vitest'
import { toKeyHash } from '../../../src/data/decode-values.ts'
import { combineKeys, isValidKey, NULL_KEY_HASH, rowKeyFields } from '../../../src/data/row-key.ts'
import { mixSeed } from '../../../src/util/hash.ts'
import type { StructType } from '../../../src/table/types.ts'

const hashOf = (v: unknown) => toKeyHash(v, NULL_KEY_HASH)

describe('row key', () => {
  it("is the README's worked example: (1, 'admin.', 2.5, null), seed 0", () => {
    const values = [1, 'admin.', 2.5, null]
    expect(values.map(hashOf)).toEqual([0x53075d44, 0x2cc7129d, 0xa6700c9c, 0xffffffff])
    const key = combineKeys(
      values.map(v => Uint32Array.of(hashOf(v))),
      1,
    )[0]
    expect(key).toBe(0x08e081fc)
    expect(mixSeed(0, key)).toBe(3_851_774_919)
    expect(isValidKey(0, key, 0.2)).toBe(false)
    expect(isValidKey(0, key, 0.9)).toBe(true)
  })

  it('hashes a value by its canonical form, whatever the physical type', () => {
    expect(hashOf(3.0)).toBe(hashOf(3n))
    expect(hashOf(3)).toBe(hashOf(3n))
    expect(hashOf(-0)).toBe(hashOf(0))
    expect(hashOf(true)).toBe(hashOf(1))
    expect(hashOf(Number('x'))).toBe(hashOf(NaN))
    expect(hashOf(new TextEncoder().encode('admin.'))).toBe(hashOf('admin.'))
    expect(hashOf(2.5)).not.toBe(hashOf(2))
    for (const v of ['', 0, false, NaN]) expect(hashOf(v)).not.toBe(NULL_KEY_HASH)
    // A partition value arrives as a string for dates and decimals; numeric key columns read its number.
    expect(toKeyHash('1970-01-03', NULL_KEY_HASH, true)).toBe(hashOf(2))
    expect(toKeyHash('-1.50', NULL_KEY_HASH, true)).toBe(hashOf(-1.5))
  })

  it('keys rows by their values: equal rows share a key, column order matters', () => {
    const a = Uint32Array.from([1, 2, 1].map(hashOf)),
      b = Uint32Array.from(['x', 'y', 'x'].map(hashOf))
    const keys = combineKeys([a, b], 3)
    expect(keys[0]).toBe(keys[2])
    expect(keys[0]).not.toBe(keys[1])
    expect(combineKeys([b, a], 3)[0]).not.toBe(keys[0])
  })

  const SCHEMA: StructType = {
    type: 'struct',
    fields: [
      { name: 'y', type: 'integer', nullable: false, metadata: {} },
      { name: 'job', type: 'string', nullable: true, metadata: {} },
      {
        name: 'emb',
        type: { type: 'array', elementType: 'float', containsNull: false },
        nullable: false,
        metadata: {},
      },
      { name: 'age', type: 'double', nullable: true, metadata: {} },
    ],
  }

  it('defaults to the scalar columns of the run sorted by name; --split-key in the order named', () => {
    expect(rowKeyFields(SCHEMA, ['age', 'emb', 'y', 'job']).map(f => f.name)).toEqual(['age', 'job', 'y'])
    expect(rowKeyFields(SCHEMA, ['y', 'job']).map(f => f.name)).toEqual(['job', 'y'])
    expect(rowKeyFields(SCHEMA, ['age', 'y'], ['job', 'y']).map(f => f.name)).toEqual(['job', 'y'])
  })

  it('refuses a --split-key column that is unknown, repeated or not a scalar, naming it', () => {
    expect(() => rowKeyFields(SCHEMA, [], ['nope'])).toThrow(/--split-key: no column nope in the table/)
    expect(() => rowKeyFields(SCHEMA, [], ['y', 'y'])).toThrow(/--split-key: a column is named twice/)
    expect(() => rowKeyFields(SCHEMA, [], ['emb'])).toThrow(/--split-key: column emb has type/)
  })
})
