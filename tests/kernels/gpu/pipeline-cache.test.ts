import { describe, expect, test } from 'vitest'
import { requestDevice } from '../../../src/gpu/device.ts'
import { PipelineCache } from '../../../src/gpu/pipeline-cache.ts'
import { streamRmwSpec } from '../../../bench/kernels/stream_rmw.ts'
import { copySpec } from '../../../bench/kernels/copy.ts'

describe('PipelineCache', () => {
  test('one pipeline per (kernel, constants), independent of constant order', async () => {
    const { device } = await requestDevice()
    const cache = new PipelineCache(device)
    const p1 = cache.get(streamRmwSpec, { WG: 64 })
    expect(cache.get(streamRmwSpec, { WG: 64 })).toBe(p1)
    expect(cache.get(streamRmwSpec, { WG: 128 })).not.toBe(p1)
    expect(cache.get(copySpec, { WG: 64 })).not.toBe(p1)
    expect(cache.size).toBe(3)
    device.destroy()
  })
})
