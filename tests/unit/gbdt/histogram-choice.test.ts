/**
 * chooseHistogramKernel's cache: devices of one adapter (a sweep's slots) share one measurement,
 * so a slot created while another already trains cannot time its own, stalled, choice (the
 * marketing sweep's slot 1 trained with the 40× slower workgroup kernel that way). A fallback
 * (software) adapter is never measured: storage atomics. Fake devices and an injected
 * measurement: no GPU needed.
 */
import { describe, expect, test } from 'vitest'
import type { HistogramKernel } from '../../../src/kernels/gbdt/histogram_choice.ts'
import type { PipelineCache } from '../../../src/gpu/pipeline-cache.ts'

// The module's imports read WebGPU's usage flags at load time; Node has none (values are unused here).
const g = globalThis as Record<string, unknown>
g.GPUBufferUsage ??= {
  MAP_READ: 1,
  MAP_WRITE: 2,
  COPY_SRC: 4,
  COPY_DST: 8,
  INDEX: 16,
  VERTEX: 32,
  UNIFORM: 64,
  STORAGE: 128,
  INDIRECT: 256,
  QUERY_RESOLVE: 512,
}
g.GPUMapMode ??= { READ: 1, WRITE: 2 }
const { adapterKey, chooseHistogramKernel, fallbackAdapter } = await import(
  '../../../src/kernels/gbdt/histogram_choice.ts'
)

let unique = 0

/**
 * A fake pipeline cache whose device reports `architecture` (unique per test) or no adapter info;
 * `isFallbackAdapter` as given (absent: the field is missing, as in browsers before it existed).
 */
function fakeCache(architecture: string | undefined, isFallbackAdapter?: boolean): PipelineCache {
  const adapterInfo =
    architecture === undefined
      ? undefined
      : {
          vendor: 'google',
          architecture,
          device: '',
          description: 'test adapter',
          ...(isFallbackAdapter === undefined ? {} : { isFallbackAdapter }),
        }
  return { device: { adapterInfo } } as unknown as PipelineCache
}

/** A measurement that counts its calls and answers `kernel` (or rejects when `kernel` is an Error). */
function counter(kernel: HistogramKernel | Error): { calls: number; measure: () => Promise<HistogramKernel> } {
  const c = {
    calls: 0,
    measure: () => {
      c.calls++
      return kernel instanceof Error ? Promise.reject(kernel) : Promise.resolve(kernel)
    },
  }
  return c
}

describe('chooseHistogramKernel', () => {
  test('devices of one adapter share one measurement, started by the first', async () => {
    const arch = `gpu-${unique++}`
    const first = counter('storage'),
      second = counter('workgroup')
    const slot0 = chooseHistogramKernel(fakeCache(arch), first.measure)
    const slot1 = chooseHistogramKernel(fakeCache(arch), second.measure)
    expect(await slot0).toBe('storage')
    expect(await slot1).toBe('storage')
    expect([first.calls, second.calls]).toEqual([1, 0])
  })

  test('another adapter measures on its own', async () => {
    const a = counter('storage'),
      b = counter('workgroup')
    expect(await chooseHistogramKernel(fakeCache(`gpu-a-${unique++}`), a.measure)).toBe('storage')
    expect(await chooseHistogramKernel(fakeCache(`gpu-b-${unique++}`), b.measure)).toBe('workgroup')
    expect([a.calls, b.calls]).toEqual([1, 1])
  })

  test('without adapter info the choice is cached per device', async () => {
    const cache = fakeCache(undefined),
      m = counter('workgroup'),
      other = counter('storage')
    expect(await chooseHistogramKernel(cache, m.measure)).toBe('workgroup')
    expect(await chooseHistogramKernel(cache, m.measure)).toBe('workgroup')
    expect(await chooseHistogramKernel(fakeCache(undefined), other.measure)).toBe('storage')
    expect([m.calls, other.calls]).toEqual([1, 1])
  })

  test('a failed measurement is forgotten: the next device of the adapter measures again', async () => {
    const arch = `lost-${unique++}`
    const failed = counter(new Error('device lost')),
      retry = counter('storage')
    await expect(chooseHistogramKernel(fakeCache(arch), failed.measure)).rejects.toThrow('device lost')
    expect(await chooseHistogramKernel(fakeCache(arch), retry.measure)).toBe('storage')
    expect(retry.calls).toBe(1)
  })

  test('a fallback adapter gets storage atomics without measuring; a real one measures', async () => {
    const never = counter('workgroup')
    for (const cache of [fakeCache(`gpu-${unique++}`, true), fakeCache(`swiftshader-${unique++}`)])
      expect(await chooseHistogramKernel(cache, never.measure)).toBe('storage')
    expect(never.calls).toBe(0)
    const real = counter('workgroup')
    expect(await chooseHistogramKernel(fakeCache(`gpu-${unique++}`, false), real.measure)).toBe('workgroup')
    expect(real.calls).toBe(1)
  })

  test('fallbackAdapter: the flag where the browser sets it, else the adapter being a CPU rasteriser', () => {
    expect(fallbackAdapter(fakeCache('ampere', true).device)).toBe(true)
    expect(fallbackAdapter(fakeCache('ampere', false).device)).toBe(false)
    expect(fallbackAdapter(fakeCache('ampere').device)).toBe(false)
    expect(fallbackAdapter(fakeCache('swiftshader').device)).toBe(true)
    expect(fallbackAdapter(fakeCache('llvmpipe').device)).toBe(true)
    expect(fallbackAdapter(fakeCache(undefined).device)).toBe(false)
  })

  test('adapterKey joins the adapter identity, undefined without adapterInfo', () => {
    expect(adapterKey(fakeCache('x').device)).toBe('google|x||test adapter')
    expect(adapterKey(fakeCache(undefined).device)).toBeUndefined()
  })
})
