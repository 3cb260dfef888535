import { describe, expect, test } from 'vitest'
import { adapterLabel, adapterSummary, assertAdapter, assertGpu, requestDevice } from '../../../src/gpu/device.ts'

describe('device', () => {
  test('assertAdapter / assertGpu explain how to get WebGPU', () => {
    expect(() => assertAdapter(null)).toThrow(/requestAdapter\(\) returned no adapter.*--enable-unsafe-webgpu/)
    expect(() => assertGpu(undefined)).toThrow(/navigator\.gpu is undefined/)
  })

  test('requestDevice raises limits to the adapter maximum', async () => {
    const { adapter, device } = await requestDevice()
    for (const name of [
      'maxStorageBufferBindingSize',
      'maxBufferSize',
      'maxComputeWorkgroupStorageSize',
      'maxComputeInvocationsPerWorkgroup',
    ] as const) {
      expect(device.limits[name], name).toBe(adapter.limits[name])
    }
    expect(device.features.has('timestamp-query')).toBe(adapter.features.has('timestamp-query'))
    device.destroy()
  })

  test('requestDevice fails clearly with no adapter', async () => {
    const gpu = { requestAdapter: async () => null } as unknown as GPU
    await expect(requestDevice({ gpu })).rejects.toThrow(/no adapter/)
  })

  test('adapterSummary is JSON-safe and carries limits and features', async () => {
    const adapter = await navigator.gpu.requestAdapter()
    assertAdapter(adapter)
    const s = adapterSummary(adapter)
    const round = JSON.parse(JSON.stringify(s))
    expect(round).toEqual(s)
    expect(s.limits.maxBufferSize).toBe(adapter.limits.maxBufferSize)
    expect(s.features).toEqual([...adapter.features].sort())
    expect(s.vendor).toBe(adapter.info.vendor)
    expect(adapterLabel(s)).toContain(s.vendor || s.description || 'unknown')
  })
})
