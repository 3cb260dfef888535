/**
 * Atomic ceilings: M atomicAdd/s into storage counters versus privatised workgroup counters,
 * at several key ranges K (few counters = heavy contention, many = little).
 */
import { createBuffer, uploadBuffer } from '../src/gpu/buffers.ts'
import { TimestampQueryManager } from '../src/gpu/timestamp.ts'
import { prepareKernel } from '../src/kernels/runner.ts'
import type { KernelCall } from '../src/kernels/runner.ts'
import type { AtomicAddShape } from './kernels/atomic_add_storage.ts'
import { atomicAddStorageCall } from './kernels/atomic_add_storage.ts'
import { atomicAddWorkgroupCall } from './kernels/atomic_add_workgroup.ts'
import { Rng } from '../src/util/rng.ts'
import { measure } from './measure.ts'
import { timeKernel } from './pass.ts'
import { makeRow, withPeer } from './rows.ts'
import type { BenchRow, DeviceSizes, SuiteContext } from './types.ts'

/** Uniform random keys in [0, k), seeded by k. */
export function randomKeys(n: number, k: number): Uint32Array<ArrayBuffer> {
  const rng = new Rng(k)
  const keys = new Uint32Array(n)
  for (let i = 0; i < n; i++) keys[i] = rng.int(k)
  return keys
}

/** Storage rows (one per K) and workgroup rows (K × workgroup size), each with its storage peer. */
export async function atomicRows(ctx: SuiteContext, z: DeviceSizes): Promise<BenchRow[]> {
  const maxK = ctx.device.limits.maxComputeWorkgroupStorageSize / 4
  const rows: BenchRow[] = []
  for (const k of z.atomicKs) {
    const buffers = {
      keys: uploadBuffer(ctx.device, randomKeys(z.atomicN, k)),
      counters: createBuffer(ctx.device, 4 * k),
    }
    try {
      const peer = await atomicRow(ctx, z, atomicAddStorageCall(buffers, { n: z.atomicN, k }, { WG: 256 }), 'wg=256')
      rows.push(peer)
      if (k > maxK) continue
      for (const WG of z.atomicWorkgroupSizes) {
        const call = atomicAddWorkgroupCall(buffers, { n: z.atomicN, k }, { WG })
        rows.push(withPeer(await atomicRow(ctx, z, call, `wg=${WG}`), peer))
      }
    } finally {
      buffers.keys.destroy()
      buffers.counters.destroy()
    }
  }
  return rows
}

async function atomicRow(
  ctx: SuiteContext,
  z: DeviceSizes,
  call: KernelCall<AtomicAddShape>,
  tag: string,
): Promise<BenchRow> {
  const workload = `${call.spec.name} k=${call.shape.k} n=${call.shape.n} ${tag}`
  ctx.progress(workload)
  const ts = new TimestampQueryManager(ctx.device)
  const kernel = prepareKernel(ctx.cache, call)
  try {
    // One dispatch per submit: counters keep accumulating across samples, which is harmless.
    const samples = await measure(() => timeKernel(ctx.device, kernel, 1, ts), z)
    return makeRow(ctx, {
      workload,
      metric: 'throughput',
      unit: 'M ops/s',
      samples,
      fromSeconds: s => call.shape.n / s / 1e6,
    })
  } finally {
    kernel.destroy()
    ts.destroy()
  }
}
