import { describe, expect, test } from 'vitest'
import { parseDecimal, parsePartitionValue } from '../../../src/table/partition-values.ts'
import { Timestamp } from '../../../src/table/timestamp.ts'
import { TableError } from '../../../src/table/types.ts'

describe('partition values', () => {
  test('null, empty string and the string "null"', () => {
    expect(parsePartitionValue(null, 'string', 'c')).toBeNull()
    expect(parsePartitionValue('', 'integer', 'c')).toBeNull()
    expect(parsePartitionValue('', 'string', 'c')).toBeNull()
    expect(parsePartitionValue('null', 'string', 'c')).toBe('null')
  })

  test('integers: small ones as numbers, long as bigint', () => {
    expect(parsePartitionValue('-128', 'byte', 'c')).toBe(-128)
    expect(parsePartitionValue('32767', 'short', 'c')).toBe(32767)
    expect(parsePartitionValue('-7', 'integer', 'c')).toBe(-7)
    expect(parsePartitionValue('9223372036854775807', 'long', 'c')).toBe(9223372036854775807n)
  })

  test('floating point, boolean, date', () => {
    expect(parsePartitionValue('1.5', 'double', 'c')).toBe(1.5)
    expect(parsePartitionValue('0.0', 'float', 'c')).toBe(0)
    expect(parsePartitionValue('NaN', 'double', 'c')).toBeNaN()
    expect(parsePartitionValue('-Infinity', 'double', 'c')).toBe(-Infinity)
    expect(parsePartitionValue('true', 'boolean', 'c')).toBe(true)
    expect(parsePartitionValue('false', 'boolean', 'c')).toBe(false)
    expect(parsePartitionValue('2021-09-08', 'date', 'c')).toBe('2021-09-08')
    expect(parsePartitionValue('1970-1-2', 'date', 'c')).toBe('1970-01-02')
  })

  test('timestamps: Spark form, fractions to the µs, ISO 8601 with Z and offsets, all UTC', () => {
    const micros = (raw: string) => (parsePartitionValue(raw, 'timestamp', 'c') as Timestamp).micros
    expect(micros('1969-01-01 00:00:00')).toBe(-31536000000000n)
    expect(micros('2020-01-01 08:09:10.001')).toBe(1577866150001000n)
    expect(micros('2021-11-18 02:30:00.123456')).toBe(1637202600123456n)
    expect(micros('2024-01-01T10:00:00.000000Z')).toBe(1704103200000000n)
    expect(micros('2024-01-01T12:00:00+02:00')).toBe(1704103200000000n)
    expect(micros('2024-01-01')).toBe(1704067200000000n)
    expect(micros('0050-03-01 00:00:00')).toBe(BigInt(Date.parse('0050-03-01T00:00:00Z')) * 1000n) // not 1950
    expect(parsePartitionValue('1970-01-01 00:00:00', 'timestamp_ntz', 'c')).toEqual(new Timestamp(0n))
    expect(() => parsePartitionValue('2021-02-30 00:00:00', 'timestamp', 'c')).toThrow(/not a valid timestamp/)
  })

  test('decimals are exact strings at the type scale', () => {
    expect(parsePartitionValue('12.000000000000000000', 'decimal(38,18)', 'c')).toBe('12.000000000000000000')
    expect(parsePartitionValue('-2342342.23423', 'decimal(12,5)', 'c')).toBe('-2342342.23423')
    expect(parsePartitionValue('0.00004', 'decimal(12,5)', 'c')).toBe('0.00004')
    expect(parsePartitionValue('1', 'decimal(10,2)', 'c')).toBe('1.00')
    expect(parseDecimal('0E-10', 10)).toBe('0.0000000000')
    expect(parseDecimal('1.5E+2', 0)).toBe('150')
    expect(parseDecimal('1.25', 1)).toBeUndefined()
  })

  test('binary is one byte per char', () => {
    expect(parsePartitionValue('\u0001\u0002\u00ff', 'binary', 'c')).toEqual(new Uint8Array([1, 2, 255]))
  })

  test('values that do not fit the type name the column', () => {
    for (const [raw, type] of [
      ['abc', 'integer'],
      ['128', 'byte'],
      ['yes', 'boolean'],
      ['1.2.3', 'double'],
      ['2021-13-45', 'date'],
      ['2021-02-30 10:00:00', 'timestamp'],
      ['noon', 'timestamp'],
      ['1.5', 'long'],
      ['x', 'decimal(5,2)'],
    ]) {
      const error = (() => {
        try {
          parsePartitionValue(raw, type, 'part_col')
          return undefined
        } catch (e) {
          return e
        }
      })()
      expect(error, `${raw} as ${type}`).toBeInstanceOf(TableError)
      expect((error as TableError).message).toContain("'part_col'")
    }
  })
})
