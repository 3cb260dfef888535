/**
 * Memory ceilings: streaming read-modify-write, copyBufferToBuffer and a copy kernel, in GB/s
 * counting bytes read + bytes written (so a copy of B bytes moves 2·B).
 */
import { createBuffer } from '../src/gpu/buffers.ts'
import { TimestampQueryManager } from '../src/gpu/timestamp.ts'
import { prepareKernel } from '../src/kernels/runner.ts'
import { COPY_BYTES_PER_ELEMENT, copyCall } from './kernels/copy.ts'
import { STREAM_RMW_BYTES_PER_ELEMENT, streamRmwCall } from './kernels/stream_rmw.ts'
import { measure } from './measure.ts'
import { timeCopies, timeKernel } from './pass.ts'
import { bestRow, makeRow, withPeer } from './rows.ts'
import type { BenchRow, DeviceSizes, SuiteContext } from './types.ts'

const GB = 1e9

/** stream_rmw GB/s at each workgroup size. */
export async function streamRows(ctx: SuiteContext, z: DeviceSizes): Promise<BenchRow[]> {
  const n = z.streamN
  const a = createBuffer(ctx.device, 4 * n),
    b = createBuffer(ctx.device, 4 * n)
  const ts = new TimestampQueryManager(ctx.device)
  const rows: BenchRow[] = []
  try {
    for (const WG of z.workgroupSizes) {
      ctx.progress(`stream_rmw n=${n} wg=${WG}`)
      // s = 0.5 keeps repeated updates bounded (a → 2b), so no inf/NaN slow paths.
      const k = prepareKernel(ctx.cache, streamRmwCall({ a, b }, { n, s: 0.5 }, { WG }))
      const samples = await measure(() => timeKernel(ctx.device, k, z.inner, ts), z)
      k.destroy()
      const bytes = STREAM_RMW_BYTES_PER_ELEMENT * n * z.inner
      rows.push(
        makeRow(ctx, {
          workload: `stream_rmw n=${n} wg=${WG}`,
          metric: 'bandwidth',
          unit: 'GB/s',
          samples,
          fromSeconds: s => bytes / s / GB,
        }),
      )
    }
  } finally {
    a.destroy()
    b.destroy()
    ts.destroy()
  }
  return rows
}

/** copyBufferToBuffer GB/s, then the copy kernel at each workgroup size with it as the peer. */
export async function copyRows(ctx: SuiteContext, z: DeviceSizes): Promise<BenchRow[]> {
  const n = z.streamN
  const src = createBuffer(ctx.device, 4 * n),
    dst = createBuffer(ctx.device, 4 * n)
  const ts = new TimestampQueryManager(ctx.device)
  const bytes = COPY_BYTES_PER_ELEMENT * n * z.inner
  try {
    ctx.progress(`copyBufferToBuffer ${4 * n} bytes`)
    const copySamples = await measure(() => timeCopies(ctx.device, src, dst, 4 * n, z.inner), z)
    const peer = makeRow(ctx, {
      workload: `copyBufferToBuffer bytes=${4 * n}`,
      metric: 'bandwidth',
      unit: 'GB/s',
      samples: copySamples,
      fromSeconds: s => bytes / s / GB,
    })
    const rows = [peer]
    for (const WG of z.workgroupSizes) {
      ctx.progress(`copy kernel n=${n} wg=${WG}`)
      const k = prepareKernel(ctx.cache, copyCall({ src, dst }, { n }, { WG }))
      const samples = await measure(() => timeKernel(ctx.device, k, z.inner, ts), z)
      k.destroy()
      rows.push(
        withPeer(
          makeRow(ctx, {
            workload: `copy n=${n} wg=${WG}`,
            metric: 'bandwidth',
            unit: 'GB/s',
            samples,
            fromSeconds: s => bytes / s / GB,
          }),
          peer,
        ),
      )
    }
    return rows
  } finally {
    src.destroy()
    dst.destroy()
    ts.destroy()
  }
}

/** The best stream_rmw row compared with copyBufferToBuffer (how close RMW gets to a plain copy). */
export function streamVersusCopy(stream: readonly BenchRow[], copies: readonly BenchRow[]): BenchRow[] {
  const peer = copies.find(r => r.workload.startsWith('copyBufferToBuffer'))
  if (!peer || stream.length === 0) return [...stream]
  const best = bestRow(stream)
  return stream.map(r => (r === best ? withPeer(r, peer) : r))
}
