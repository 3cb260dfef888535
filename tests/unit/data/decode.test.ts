import { describe, expect, it } from 'vitest'
import {
  decodeColumn,
  decodeConstant,
  defaultEncoding,
  utf8Strings,
  type ColumnChunk,
  type RowSelection,
} from '../../../src/data/decode.ts'
import { refInt64, refString } from './murmur-ref.ts'
import { Timestamp } from '../../../src/table/timestamp.ts'

const ctx = { column: 'col', url: 'http://t/part-0.parquet' }
const all = (start: number, end: number): RowSelection => ({ start, end })

describe('defaultEncoding', () => {
  it('maps Delta types to encodings', () => {
    expect(defaultEncoding('integer')).toBe('int32')
    expect(defaultEncoding('short')).toBe('int32')
    expect(defaultEncoding('long')).toBe('float32')
    expect(defaultEncoding('double')).toBe('float32')
    expect(defaultEncoding('decimal(10,2)')).toBe('float32')
    expect(defaultEncoding('date')).toBe('float32')
    expect(defaultEncoding('timestamp')).toBe('float32')
    expect(defaultEncoding('boolean')).toBe('bool')
    expect(defaultEncoding('string')).toBe('hash32')
    expect(defaultEncoding({ type: 'array', elementType: 'float', containsNull: false })).toBe('fixed_list')
    expect(defaultEncoding({ type: 'array', elementType: 'string', containsNull: true })).toBe('hash_list')
  })

  it('refuses nested types, naming the column', () => {
    expect(() => defaultEncoding({ type: 'struct', fields: [] }, 'address')).toThrow(/'address'/)
    expect(() =>
      defaultEncoding({ type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true }, 'm'),
    ).toThrow(/'m'/)
  })
})

describe('decodeColumn', () => {
  it('float32: typed and generic chunks, nulls → NaN, rows picked across chunks', () => {
    const chunks: ColumnChunk[] = [
      { rowStart: 10, data: [1.5, null, 3, undefined] },
      { rowStart: 14, data: new Float64Array([5.25, 6, 7]) },
    ]
    const out = decodeColumn(chunks, { start: 11, end: 17, live: Uint32Array.of(11, 12, 14, 16) }, 'float32', ctx)
    expect(out.values).toBeInstanceOf(Float32Array)
    expect(Array.from(out.values)).toEqual([NaN, 3, 5.25, 7])
  })

  it('float32 converts bigint, booleans, decimal and date strings', () => {
    const out = decodeColumn([{ rowStart: 0, data: [12n, true, '-1.25', '1970-01-11'] }], all(0, 4), 'float32', ctx)
    expect(Array.from(out.values)).toEqual([12, 1, -1.25, 10])
  })

  it('int32 / uint32 keep integers and name column, file and row on a null', () => {
    const chunk = { rowStart: 100, data: [4, -2, 2147483647] }
    expect(Array.from(decodeColumn([chunk], all(100, 103), 'int32', ctx).values)).toEqual([4, -2, 2147483647])
    expect(() => decodeColumn([{ rowStart: 100, data: [4, null] }], all(100, 102), 'int32', ctx)).toThrow(
      /part-0\.parquet: column 'col': null value.*file row 101/,
    )
    expect(() => decodeColumn([chunk], all(100, 103), 'uint32', ctx)).toThrow(/-2 does not fit uint32.*file row 101/)
  })

  it('int32 refuses int64 values beyond its range, naming the column', () => {
    const data = new BigInt64Array([1n, 2n ** 40n])
    expect(() => decodeColumn([{ rowStart: 0, data }], all(0, 2), 'int32', ctx)).toThrow(
      /'col'.*does not fit int32.*file row 1/,
    )
  })

  it('hash32: strings by UTF-8, int64 (typed and bigint) over 8 LE bytes, nulls refused', () => {
    const s = decodeColumn([{ rowStart: 0, data: ['US', 'é', 'US'] }], all(0, 3), 'hash32', ctx)
    expect(Array.from(s.values)).toEqual([refString('US'), refString('é'), refString('US')])
    const ids = decodeColumn([{ rowStart: 0, data: new BigInt64Array([7n, -3n, 2n ** 40n]) }], all(0, 3), 'hash32', ctx)
    expect(Array.from(ids.values)).toEqual([refInt64(7n), refInt64(-3n), refInt64(2n ** 40n)])
    const small = decodeColumn([{ rowStart: 0, data: new Int32Array([7, -3]) }], all(0, 2), 'hash32', ctx)
    expect(Array.from(small.values)).toEqual([refInt64(7n), refInt64(-3n)])
    expect(() => decodeColumn([{ rowStart: 5, data: ['a', null] }], all(5, 7), 'hash32', ctx)).toThrow(
      /'col'.*null.*file row 6/,
    )
  })

  it('bool: 0/1, null refused', () => {
    expect(Array.from(decodeColumn([{ rowStart: 0, data: [true, false] }], all(0, 2), 'bool', ctx).values)).toEqual([
      1, 0,
    ])
    expect(() => decodeColumn([{ rowStart: 0, data: [true, null] }], all(0, 2), 'bool', ctx)).toThrow(
      /null.*file row 1/,
    )
  })

  it('fixed_list flattens n × L, null lists and elements → NaN; a length mismatch names the row', () => {
    const data = [[1, 2], null, [3, null], [5, 6]]
    const out = decodeColumn([{ rowStart: 0, data }], all(0, 4), 'fixed_list', ctx)
    expect(out.length).toBe(2)
    expect(Array.from(out.values)).toEqual([1, 2, NaN, NaN, 3, NaN, 5, 6])
    expect(() => decodeColumn([{ rowStart: 20, data: [[1, 2], [3]] }], all(20, 22), 'fixed_list', ctx)).toThrow(
      /'col'.*length 1, expected 2.*file row 21/,
    )
  })

  it('var_list: offsets (n + 1) and values', () => {
    const out = decodeColumn([{ rowStart: 0, data: [[1], [], null, [2, 3]] }], all(0, 4), 'var_list', ctx)
    expect(Array.from(out.offsets!)).toEqual([0, 1, 1, 1, 3])
    expect(Array.from(out.values)).toEqual([1, 2, 3])
  })

  it('hash_list: item hashes as hash32 computes them, null rows empty, null items skipped', () => {
    const data = [['US', null, 'é'], [], null, [7n, -3n], [true]]
    const sel = { start: 10, end: 15, live: Uint32Array.of(10, 11, 12, 13, 14) }
    const out = decodeColumn([{ rowStart: 10, data }], sel, 'hash_list', ctx)
    expect(out.encoding).toBe('hash_list')
    expect(out.values).toBeInstanceOf(Uint32Array)
    expect(Array.from(out.offsets!)).toEqual([0, 2, 2, 2, 4, 5])
    const scalar = (values: unknown[]): number[] =>
      Array.from(decodeColumn([{ rowStart: 0, data: values }], all(0, values.length), 'hash32', ctx).values)
    expect(Array.from(out.values)).toEqual([
      refString('US'),
      refString('é'),
      refInt64(7n),
      refInt64(-3n),
      ...scalar([true]),
    ])
    const picked = decodeColumn(
      [{ rowStart: 10, data }],
      { start: 10, end: 15, live: Uint32Array.of(13) },
      'hash_list',
      ctx,
    )
    expect(Array.from(picked.offsets!)).toEqual([0, 2])
    expect(() => decodeColumn([{ rowStart: 0, data: ['x'] }], all(0, 1), 'hash_list', ctx)).toThrow(
      /'col'.*expected a list.*file row 0/,
    )
  })

  it('utf8: strings back as they were, null and empty string kept apart, live rows picked', () => {
    const data = ['US', null, '', 'é€😀', new TextEncoder().encode('raw'), undefined]
    const out = decodeColumn([{ rowStart: 10, data }], all(10, 16), 'utf8', ctx)
    expect(out.encoding).toBe('utf8')
    expect(out.values).toBeInstanceOf(Uint8Array)
    expect(Array.from(out.offsets!)).toEqual([0, 3, 3, 4, 14, 18, 18])
    expect(utf8Strings(out)).toEqual(['US', null, '', 'é€😀', 'raw', null])
    const picked = decodeColumn(
      [{ rowStart: 10, data }],
      { start: 10, end: 16, live: Uint32Array.of(11, 13) },
      'utf8',
      ctx,
    )
    expect(utf8Strings(picked)).toEqual([null, 'é€😀'])
    expect(utf8Strings(decodeConstant('p', all(0, 2), 'utf8', ctx))).toEqual(['p', 'p'])
    expect(utf8Strings(decodeConstant(null, all(0, 2), 'utf8', ctx))).toEqual([null, null])
    expect(() => decodeColumn([{ rowStart: 0, data: ['a', 7] }], all(0, 2), 'utf8', ctx)).toThrow(
      /'col'.*expected a string.*file row 1/,
    )
    expect(() => utf8Strings(decodeColumn([{ rowStart: 0, data: [1] }], all(0, 1), 'float32', ctx))).toThrow(
      /'col': float32, not utf8/,
    )
  })

  it('reports rows the chunks do not cover', () => {
    expect(() => decodeColumn([{ rowStart: 0, data: [1, 2] }], all(0, 4), 'float32', ctx)).toThrow(/file row 2 missing/)
  })

  it('decodeConstant fills every selected row (partition values)', () => {
    const sel = { start: 3, end: 8, live: Uint32Array.of(3, 5, 7) }
    expect(Array.from(decodeConstant('2024-01-02', sel, 'float32', ctx).values)).toEqual([19724, 19724, 19724])
    expect(Array.from(decodeConstant('x', sel, 'hash32', ctx).values)).toEqual([
      refString('x'),
      refString('x'),
      refString('x'),
    ])
    expect(Array.from(decodeConstant(null, sel, 'float32', ctx).values)).toEqual([NaN, NaN, NaN])
    expect(() => decodeConstant(null, sel, 'int32', ctx)).toThrow(/'col'.*null/)
  })

  it('timestamp partition values decode as the seconds a data column holds, also after a structured clone', () => {
    const sel = all(0, 2)
    const t = Timestamp.fromMicros(1_609_502_400_123_456n)
    const seconds = Number(t.micros) / 1e6 // what unit-reader.ts's MICROS parser yields for a data column
    for (const value of [t, structuredClone(t)]) {
      expect(Array.from(decodeConstant(value, sel, 'float32', ctx).values)).toEqual([
        Math.fround(seconds),
        Math.fround(seconds),
      ])
      expect(decodeConstant(value, sel, 'hash32', ctx).values).toEqual(
        decodeColumn([{ rowStart: 0, data: [seconds, seconds] }], sel, 'hash32', ctx).values,
      )
    }
  })
})
