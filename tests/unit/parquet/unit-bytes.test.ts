/** fetchRanges: exact-length ranges, a short body asked for again, a persistently short one reported. */
import { describe, expect, it } from 'vitest'
import { fetchRanges } from '../../../src/parquet/unit-bytes.ts'

/** A 1000-byte file whose first `shortFor` slices come back 10 bytes short. */
function flaky(shortFor: number) {
  const data = Uint8Array.from({ length: 1000 }, (_, i) => i & 255).buffer
  let calls = 0
  return {
    byteLength: data.byteLength,
    calls: () => calls,
    async slice(start: number, end = data.byteLength) {
      calls++
      return data.slice(start, calls <= shortFor ? end - 10 : end)
    },
  }
}

describe('fetchRanges', () => {
  it('asks again for a range whose body came back short, and views exactly the asked bytes', async () => {
    const file = flaky(1)
    const got = await fetchRanges(file, [{ start: 100, end: 300 }], 'http://t/f.parquet')
    expect(file.calls()).toBe(2)
    expect(got.bytes).toBe(200)
    expect(Array.from(got.view(150, 153)!)).toEqual([150, 151, 152])
    expect(got.view(250, 400)).toBeUndefined()
  })

  it('names the URL and range when the body stays short', async () => {
    const file = flaky(99)
    await expect(fetchRanges(file, [{ start: 0, end: 100 }], 'http://t/f.parquet')).rejects.toThrow(
      /http:\/\/t\/f\.parquet bytes=0-99: got 90 bytes, expected 100/,
    )
  })
})
