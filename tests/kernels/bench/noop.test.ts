import { describe, expect, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { prepareKernel, runKernel } from '../../../src/kernels/runner.ts'
import { noopCall } from '../../../bench/kernels/noop.ts'
import { noop } from '../../../bench/kernels/noop.ref.ts'
import { checked, gpuCache } from './setup.ts'

describe('noop', () => {
  test.each([0, 1, 7, 1000])('%i workgroups complete without GPU errors and touch no memory', async workgroups => {
    const cache = await gpuCache()
    const { device } = cache
    const canary = new Uint32Array([1, 2, 3, 4])
    const buf = uploadBuffer(device, canary)
    await checked(device, () => runKernel(cache, noopCall({ workgroups })))
    noop()
    expect([...(await readBuffer(device, buf, Uint32Array))]).toEqual([...canary])
    buf.destroy()
  })

  test('a zero-workgroup grid encodes nothing', async () => {
    const cache = await gpuCache()
    expect(prepareKernel(cache, noopCall({ workgroups: 0 })).dispatch).toEqual([0, 0, 0])
  })
})
