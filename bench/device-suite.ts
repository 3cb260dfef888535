/**
 * The `device` suite: ceilings of the adapter that every later kernel is judged against —
 * memory bandwidth, atomics (storage vs workgroup), matmul GFLOP/s, dispatch and submit overhead.
 * Sized so the whole suite finishes in about two minutes on the SwiftShader software adapter.
 */
import { atomicRows } from './device-atomics.ts'
import { dispatchRows } from './device-dispatch.ts'
import { matmulRows } from './device-matmul.ts'
import { copyRows, streamRows, streamVersusCopy } from './device-memory.ts'
import type { BenchRow, DeviceSizes, SuiteContext } from './types.ts'

/** Full-size preset. */
export const DEVICE_SIZES: DeviceSizes = {
  streamN: 1 << 22,
  inner: 4,
  workgroupSizes: [64, 128, 256],
  atomicN: 1 << 20,
  atomicKs: [16, 256, 4096],
  atomicWorkgroupSizes: [64, 256],
  matmulSizes: [256, 512],
  noopDispatches: 2000,
  warmup: 1,
  repeats: 5,
}

/** --quick preset: same workloads, small sizes, for smoke tests. */
export const DEVICE_SIZES_QUICK: DeviceSizes = {
  streamN: 1 << 16,
  inner: 2,
  workgroupSizes: [64, 256],
  atomicN: 1 << 14,
  atomicKs: [16, 4096],
  atomicWorkgroupSizes: [256],
  matmulSizes: [64],
  noopDispatches: 100,
  warmup: 1,
  repeats: 3,
}

/** Runs every device workload; rows come back grouped: memory, atomics, matmul, overhead. */
export async function runDeviceSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const z = ctx.quick ? DEVICE_SIZES_QUICK : DEVICE_SIZES
  const copies = await copyRows(ctx, z)
  const stream = streamVersusCopy(await streamRows(ctx, z), copies)
  return [
    ...stream,
    ...copies,
    ...(await atomicRows(ctx, z)),
    ...(await matmulRows(ctx, z)),
    ...(await dispatchRows(ctx, z)),
  ]
}
