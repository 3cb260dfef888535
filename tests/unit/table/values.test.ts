import type { SchemaTree } from 'hyparquet'
import { describe, expect, test } from 'vitest'
import { Timestamp } from '../../../src/table/timestamp.ts'
import { TableError, type DeltaType } from '../../../src/table/types.ts'
import { bytesToBigInt, convertValue, formatDays, formatDecimal, type ValueContext } from '../../../src/table/values.ts'

const ctx: ValueContext = { url: 'http://h/t/f.parquet', column: 'c', mode: 'none' }

/** Builds a parquet schema node for tests. */
function node(name: string, extra: Partial<SchemaTree['element']> = {}, children: SchemaTree[] = []): SchemaTree {
  return { element: { name, ...extra }, children, count: 1, path: [name] }
}

describe('values', () => {
  test('decimal formatting and two-complement bytes', () => {
    expect(formatDecimal(-1230n, 2)).toBe('-12.30')
    expect(formatDecimal(4n, 5)).toBe('0.00004')
    expect(formatDecimal(0n, 3)).toBe('0.000')
    expect(formatDecimal(12n, 0)).toBe('12')
    expect(bytesToBigInt(new Uint8Array([0xff, 0x85]))).toBe(-123n)
    expect(bytesToBigInt(new Uint8Array([0x00, 0x85]))).toBe(133n)
  })

  test('decimal values from bytes, ints and widened files', () => {
    const d = node('d', { scale: 2 })
    expect(convertValue(new Uint8Array([0xff, 0x85]), 'decimal(5,2)', d, ctx)).toBe('-1.23')
    expect(convertValue(-99999n, 'decimal(7,2)', d, ctx)).toBe('-999.99')
    expect(convertValue(7, 'decimal(10,2)', d, ctx)).toBe('0.07')
    // type widening: an INT32 column (scale 0) read as decimal(10,2)
    expect(convertValue(7, 'decimal(10,2)', node('i'), ctx)).toBe('7.00')
  })

  test('dates from day numbers; timestamps from Timestamp, days and raw micros', () => {
    expect(formatDays(0)).toBe('1970-01-01')
    expect(formatDays(-1)).toBe('1969-12-31')
    expect(convertValue(18878, 'date', undefined, ctx)).toBe('2021-09-08')
    const timestamp = Timestamp.fromMicros(4_000_500n)
    expect(convertValue(timestamp, 'timestamp', undefined, ctx)).toBe(timestamp)
    expect(convertValue(1, 'timestamp_ntz', undefined, ctx)).toEqual(Timestamp.fromMillis(86_400_000))
    expect(convertValue(-1n, 'timestamp', undefined, ctx)).toEqual(new Timestamp(-1n))
    expect(() => convertValue(new Date(0), 'timestamp', undefined, ctx)).toThrow(/expected a timestamp/)
  })

  test('primitives follow the Delta type, not the parquet type', () => {
    expect(convertValue(5, 'long', undefined, ctx)).toBe(5n)
    expect(convertValue(5n, 'integer', undefined, ctx)).toBe(5)
    expect(convertValue(new TextEncoder().encode('hé'), 'string', undefined, ctx)).toBe('hé')
    expect(convertValue(new Uint8Array([1]), 'binary', undefined, ctx)).toEqual(new Uint8Array([1]))
    expect(convertValue(undefined, 'string', undefined, ctx)).toBeNull()
  })

  test('nested struct, array and map (raw key_value entries) with column mapping names', () => {
    const type: DeltaType = {
      type: 'struct',
      fields: [
        {
          name: 'xs',
          type: { type: 'array', elementType: 'long', containsNull: true },
          nullable: true,
          metadata: { 'delta.columnMapping.physicalName': 'col-1' },
        },
        {
          name: 'm',
          type: { type: 'map', keyType: 'long', valueType: 'decimal(4,1)', valueContainsNull: true },
          nullable: true,
          metadata: { 'delta.columnMapping.physicalName': 'col-2' },
        },
        { name: 'gone', type: 'string', nullable: true, metadata: { 'delta.columnMapping.physicalName': 'col-3' } },
      ],
    }
    const list = node('col-1', {}, [node('list', { repetition_type: 'REPEATED' }, [node('element')])])
    const map = node('col-2', {}, [
      node('key_value', { repetition_type: 'REPEATED' }, [node('key'), node('value', { scale: 1 })]),
    ])
    const struct = node('s', {}, [list, map])
    const raw = {
      'col-1': [1, null, 3],
      'col-2': {
        key_value: [
          { key: 10n, value: 15 },
          { key: 11n, value: null },
        ],
      },
    }
    const value = convertValue(raw, type, struct, { ...ctx, mode: 'name' }) as Record<string, unknown>
    expect(value.xs).toEqual([1n, null, 3n])
    expect(value.m).toEqual(
      new Map<unknown, unknown>([
        [10n, '1.5'],
        [11n, null],
      ]),
    )
    expect(value.gone).toBeNull()
  })

  test('a value of the wrong shape is a schema error naming file and column', () => {
    const arrayType: DeltaType = { type: 'array', elementType: 'integer', containsNull: true }
    const error = (() => {
      try {
        convertValue(5, arrayType, undefined, ctx)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(TableError)
    expect((error as TableError).code).toBe('schema')
    expect((error as TableError).message).toContain("f.parquet: column 'c'")
  })
})
