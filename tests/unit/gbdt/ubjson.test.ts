/** UBJSON as XGBoost writes it: byte layout, round trips, and refusals of corrupt input. */
import { describe, expect, it } from 'vitest'
import { decodeUbjson, encodeUbjson } from '../../../src/models/gbdt/ubjson.ts'

const bytes = (s: string) => Uint8Array.from(s, c => c.charCodeAt(0))
const L = (n: number) => `L${'\0'.repeat(7)}${String.fromCharCode(n)}`

describe('UBJSON', () => {
  it("writes XGBoost's layout: int64 lengths, smallest-type integers, typed arrays big-endian", () => {
    const out = encodeUbjson({ a: 'x', n: [1, 300], f: [1.5], id: 70000 }, k => (k === 'f' ? 'f32' : undefined))
    const want = [
      '{',
      `${L(1)}aS${L(1)}x`,
      `${L(1)}n[#${L(2)}i\x01I\x01\x2c`,
      `${L(1)}f[$d#${L(1)}\x3f\xc0\0\0`,
      `${L(2)}idl\0\x01\x11\x70`,
      '}',
    ].join('')
    expect(Array.from(out)).toEqual(Array.from(bytes(want)))
  })

  it('round-trips objects, strings (UTF-8), booleans, null, nested and typed arrays', () => {
    const v = {
      s: 'héllo ✓',
      t: true,
      f: false,
      z: null,
      big: 2 ** 40,
      neg: -5,
      x: 0.25,
      nested: [{ a: [1, 2] }, []],
      i32: [-1, 2147483647],
      i64: [0, 2 ** 33],
      u8: [0, 255],
      f32: [NaN, -0.5, 3],
    }
    const types = { i32: 'i32', i64: 'i64', u8: 'u8', f32: 'f32' } as const
    const back = decodeUbjson(encodeUbjson(v, k => types[k as keyof typeof types])) as typeof v
    expect(back).toEqual(v)
  })

  it('reads uncounted containers and no-op markers', () => {
    expect(decodeUbjson(bytes(`[Ni\x01N]`))).toEqual([1])
    expect(decodeUbjson(bytes(`{${L(1)}kT}`))).toEqual({ k: true })
    expect(decodeUbjson(bytes(`{#${L(1)}${L(1)}kF`))).toEqual({ k: false })
  })

  it('keeps "__proto__" as an own key, as JSON.parse does', () => {
    const v = decodeUbjson(encodeUbjson(JSON.parse('{"__proto__":{"x":1}}'))) as Record<string, unknown>
    expect(Object.keys(v)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  it.each([
    ['a truncated typed array', `[$d#${L(2)}\0\0\0\0`, /truncated .* at byte/],
    ['a count beyond the bytes left', `[$l#${L(200)}`, /count 200 exceeds the 0 bytes left at byte/],
    ['a typed container without a count', `[$d\0`, /a typed container needs a count/],
    ['an unknown marker', `[#${L(1)}q`, /marker 'q' is not a number type/],
    ['bytes after the value', `i\x01i\x02`, /2 bytes after the value at byte 2/],
    ['a negative length', `SL\xff\xff\xff\xff\xff\xff\xff\xff`, /length -1 is not a whole number/],
    ['nesting too deep', '['.repeat(300), /nesting deeper than 256/],
  ])('refuses %s, naming the byte offset', (_, input, message) => {
    expect(() => decodeUbjson(bytes(input))).toThrow(message)
  })
})
