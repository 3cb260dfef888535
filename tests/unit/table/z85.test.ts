import { describe, expect, test } from 'vitest'
import { z85Decode, z85DecodeUuid, z85Encode } from '../../../src/table/z85.ts'

describe('z85', () => {
  test('decodes the ZeroMQ reference vector', () => {
    // ZeroMQ RFC 32 test vector: 0x86 0x4F 0xD2 0x6F 0xB5 0x59 0xF7 0x5B ↔ "HelloWorld"
    expect(Array.from(z85Decode('HelloWorld'))).toEqual([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b])
  })

  test('round-trips random bytes', () => {
    const bytes = Uint8Array.from({ length: 64 }, (_, i) => (i * 97 + 13) & 0xff)
    expect(Array.from(z85Decode(z85Encode(bytes)))).toEqual(Array.from(bytes))
  })

  test('truncates to byteLength (Delta pads inline DVs to 4 bytes)', () => {
    expect(z85Decode(z85Encode(new Uint8Array([1, 2, 3, 0])), 3)).toEqual(new Uint8Array([1, 2, 3]))
  })

  test('decodes a Delta DV id to the UUID of its file name', () => {
    // golden table-with-dv-small: file test%dv%prefix-deletion_vector_b6a98cdd-….bin
    expect(z85DecodeUuid('WYbkwCTB$gH)J7t?$/sK')).toBe('b6a98cdd-7843-470d-8897-708cdffa38c5')
  })

  test('rejects bad characters and lengths', () => {
    expect(() => z85Decode('Hello~orld')).toThrow(/invalid character '~'/)
    expect(() => z85Decode('abcd')).toThrow(/multiple of 5/)
    expect(() => z85DecodeUuid('HelloWorld')).toThrow(/20 characters/)
    expect(() => z85Decode('#####')).toThrow(/overflows/)
  })
})
