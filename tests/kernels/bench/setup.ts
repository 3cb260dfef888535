/** Shared setup for the bench kernels' parity tests: one device per file, validation checks. */
import { expect } from 'vitest'
import { requestDevice } from '../../../src/gpu/device.ts'
import { PipelineCache } from '../../../src/gpu/pipeline-cache.ts'
import type { CompareResult } from '../../../src/util/tolerance.ts'
import { describeMismatch } from '../../../src/util/tolerance.ts'

let cache: Promise<PipelineCache> | undefined

/** A pipeline cache on a device with the adapter's max limits (created once per test file). */
export function gpuCache(): Promise<PipelineCache> {
  cache ??= requestDevice().then(({ device }) => new PipelineCache(device))
  return cache
}

/** Runs `fn` inside validation + out-of-memory error scopes and fails the test on any GPU error. */
export async function checked<T>(device: GPUDevice, fn: () => Promise<T>): Promise<T> {
  device.pushErrorScope('validation')
  device.pushErrorScope('out-of-memory')
  const result = await fn()
  const oom = await device.popErrorScope()
  const validation = await device.popErrorScope()
  expect(oom?.message ?? '', 'GPU out-of-memory error').toBe('')
  expect(validation?.message ?? '', 'GPU validation error').toBe('')
  return result
}

/** Asserts a compareArrays result, printing the first mismatching pairs on failure. */
export function expectMatch(r: CompareResult, what: string): void {
  expect(r.ok, `${what}: ${r.ok ? '' : describeMismatch(r)}`).toBe(true)
}

/** Element counts every 1-D kernel is checked at: empty, one, around workgroup multiples, large. */
export const EDGE_SIZES = [0, 1, 63, 255, 257, 1000, 65_537] as const
