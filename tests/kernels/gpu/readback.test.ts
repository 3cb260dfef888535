import { describe, expect, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { requestDevice } from '../../../src/gpu/device.ts'
import { readBuffer, readBytes } from '../../../src/gpu/readback.ts'

describe('readback', () => {
  test('round-trips typed arrays, partial lengths and offsets', async () => {
    const { device } = await requestDevice()
    const data = Float32Array.from({ length: 100 }, (_, i) => i * 0.5 - 7)
    const buf = uploadBuffer(device, data)
    expect([...(await readBuffer(device, buf, Float32Array))]).toEqual([...data])
    expect([...(await readBuffer(device, buf, Float32Array, 3))]).toEqual([-7, -6.5, -6])
    const tail = new Float32Array(await readBytes(device, buf, 8, 4 * 98))
    expect([...tail]).toEqual([42, 42.5])
    expect((await readBytes(device, buf, 0)).byteLength).toBe(0)
    await expect(readBytes(device, buf, 6)).rejects.toThrow(/multiples of 4/)
    device.destroy()
  })
})
