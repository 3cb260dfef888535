import { describe, expect, it } from 'vitest'
import { csvField, csvRecord, rowToCsvLine, rowToJsonLine, toJsonValue } from '../../../src/cli/format.ts'
import { Timestamp } from '../../../src/table/timestamp.ts'

describe('toJsonValue', () => {
  it('passes JSON-native values through', () => {
    expect(toJsonValue('a')).toBe('a')
    expect(toJsonValue(true)).toBe(true)
    expect(toJsonValue(1.5)).toBe(1.5)
    expect(toJsonValue(null)).toBeNull()
    expect(toJsonValue(undefined)).toBeNull()
  })

  it('writes int64 as a number inside ±(2^53−1) and as a string beyond', () => {
    expect(toJsonValue(42n)).toBe(42)
    expect(toJsonValue(9007199254740991n)).toBe(9007199254740991)
    expect(toJsonValue(-9007199254740991n)).toBe(-9007199254740991)
    expect(toJsonValue(9007199254740992n)).toBe('9007199254740992')
    expect(toJsonValue(-9223372036854775808n)).toBe('-9223372036854775808')
  })

  it('writes NaN and infinities as strings', () => {
    expect(toJsonValue(NaN)).toBe('NaN')
    expect(toJsonValue(Infinity)).toBe('Infinity')
    expect(toJsonValue(-Infinity)).toBe('-Infinity')
  })

  it('writes timestamps as ISO-8601 UTC, binary as base64, keeps date and decimal strings', () => {
    expect(toJsonValue(new Date(Date.UTC(2021, 0, 2, 3, 4, 5, 678)))).toBe('2021-01-02T03:04:05.678Z')
    expect(toJsonValue(new Date(-1))).toBe('1969-12-31T23:59:59.999Z')
    expect(toJsonValue(new Date(NaN))).toBeNull()
    // Timestamp Row values: the ms form when whole ms, else every µs (or ns) digit.
    expect(toJsonValue(Timestamp.fromMillis(Date.UTC(2021, 0, 2, 3, 4, 5, 678)))).toBe('2021-01-02T03:04:05.678Z')
    expect(toJsonValue(Timestamp.fromMicros(4_000_500n))).toBe('1970-01-01T00:00:04.000500Z')
    expect(toJsonValue(new Timestamp(-1n))).toBe('1969-12-31T23:59:59.999999Z')
    expect(toJsonValue(Timestamp.fromNanos(1n))).toBe('1970-01-01T00:00:00.000000001Z')
    expect(toJsonValue(new Timestamp(9n * 10n ** 18n))).toBeNull()
    expect(toJsonValue(new Uint8Array([0, 1, 2, 255]))).toBe('AAEC/w==')
    const view = new Uint8Array([9, 104, 105, 9]).subarray(1, 3)
    expect(toJsonValue(view)).toBe('aGk=')
    expect(toJsonValue('2020-02-29')).toBe('2020-02-29')
    expect(toJsonValue('-12.30')).toBe('-12.30')
  })

  it('writes maps with string keys as objects, other maps as [key, value] pairs', () => {
    expect(
      toJsonValue(
        new Map([
          ['a', 1n],
          ['b', null],
        ]),
      ),
    ).toEqual({ a: 1, b: null })
    expect(
      toJsonValue(
        new Map([
          [1, 'x'],
          [2, 'y'],
        ]),
      ),
    ).toEqual([
      [1, 'x'],
      [2, 'y'],
    ])
    expect(JSON.stringify(toJsonValue(new Map([['__proto__', 1]])))).toBe('{"__proto__":1}')
  })

  it('converts structs and arrays recursively', () => {
    const v = { s: { t: new Date(0), n: [1n, 2n ** 60n, NaN] }, m: new Map([['k', new Uint8Array([1])]]) }
    expect(toJsonValue(v)).toEqual({
      s: { t: '1970-01-01T00:00:00.000Z', n: [1, '1152921504606846976', 'NaN'] },
      m: { k: 'AQ==' },
    })
  })
})

describe('JSON lines', () => {
  it('writes keys in the requested column order', () => {
    expect(rowToJsonLine({ b: 2n, a: 'x' }, ['a', 'b'])).toBe('{"a":"x","b":2}')
    expect(rowToJsonLine({ b: 2n, a: 'x' })).toBe('{"b":2,"a":"x"}')
  })
})

describe('CSV (RFC 4180)', () => {
  it('quotes fields with comma, quote, CR or LF and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField('cr\r')).toBe('"cr\r"')
  })

  it('tells null (empty) from the empty string ("")', () => {
    expect(csvField(null)).toBe('')
    expect(csvField('')).toBe('""')
  })

  it('writes nested values as JSON text, quoted', () => {
    expect(csvField({ a: 1, b: [1, 2] })).toBe('"{""a"":1,""b"":[1,2]}"')
    expect(csvField(2n ** 63n - 1n)).toBe('9223372036854775807')
    expect(csvField(new Date(0))).toBe('1970-01-01T00:00:00.000Z')
  })

  it('builds records in column order', () => {
    expect(csvRecord(['id', 'name, full'])).toBe('id,"name, full"')
    expect(rowToCsvLine({ id: 1n, name: null, ok: true }, ['ok', 'id', 'name'])).toBe('true,1,')
  })
})
