import { describe, expect, test } from 'vitest'
import { formatBytes, formatTimestamp, formatType, formatValue, MAX_CELL_CHARS } from '../../src/ui/format.ts'
import { toErrorView } from '../../src/ui/errors.ts'
import { TableError } from '../../src/table/types.ts'
import { Timestamp } from '../../src/table/timestamp.ts'

describe('formatValue', () => {
  test('row value types of src/table/types.ts', () => {
    expect(formatValue(null)).toBe('null')
    expect(formatValue(12345678901234567890n)).toBe('12345678901234567890')
    expect(formatValue(1.5)).toBe('1.5')
    expect(formatValue(0.39531266689300537)).toBe('0.395313')
    expect(formatValue(-123456789)).toBe('-123456789')
    expect(formatValue(NaN)).toBe('NaN')
    expect(formatValue([0.1 + 0.2])).toBe('[0.3]')
    expect(formatValue(false)).toBe('false')
    expect(formatValue('')).toBe('')
    expect(formatValue(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)))).toBe('2024-01-02T03:04:05.000Z')
    expect(formatValue(Timestamp.fromMicros(4_000_500n))).toBe('1970-01-01T00:00:04.000500Z')
    expect(formatValue(new Uint8Array([1, 255]))).toBe('0x01ff (2 B)')
    expect(formatValue(new Map([['a', 1n]]))).toBe('{a: 1}')
    expect(formatValue([1, null])).toBe('[1, null]')
    expect(formatValue({ x: { y: 'z' } })).toBe('{x: {y: z}}')
  })

  test('long text is cut to MAX_CELL_CHARS', () => {
    const s = formatValue('x'.repeat(500))
    expect(s.length).toBe(MAX_CELL_CHARS)
    expect(s.endsWith('…')).toBe(true)
  })
})

test('formatType renders nested Delta types', () => {
  expect(formatType('long')).toBe('long')
  expect(formatType({ type: 'array', elementType: 'string', containsNull: true })).toBe('array<string>')
  expect(formatType({ type: 'map', keyType: 'string', valueType: 'integer', valueContainsNull: false })).toBe(
    'map<string, integer>',
  )
  expect(formatType({ type: 'struct', fields: [{ name: 'a', type: 'double', nullable: true, metadata: {} }] })).toBe(
    'struct<a: double>',
  )
})

test('formatBytes and formatTimestamp', () => {
  expect(formatBytes(268435456)).toBe('256 MiB')
  expect(formatBytes(16384)).toBe('16 KiB')
  expect(formatBytes(4294967292)).toBe('4.00 GiB')
  expect(formatBytes(100)).toBe('100 B')
  expect(formatTimestamp(Date.UTC(2025, 4, 6, 7, 8, 9))).toBe('2025-05-06 07:08:09 UTC')
  expect(formatTimestamp(NaN)).toBe('unknown')
})

test('toErrorView keeps code, url and the cause chain', () => {
  const root = new Error('connection refused')
  const e = new TableError('GET http://x/t/_delta_log/: failed', 'http', 'http://x/t/')
  ;(e as Error).cause = new Error('fetch failed', { cause: root })
  const v = toErrorView('Opening table t', e)
  expect(v).toEqual({
    context: 'Opening table t',
    message: 'TableError: GET http://x/t/_delta_log/: failed',
    code: 'http',
    url: 'http://x/t/',
    causes: ['fetch failed', 'connection refused'],
  })
  expect(toErrorView('x', 'plain string')).toEqual({ context: 'x', message: 'plain string', causes: [] })
})
