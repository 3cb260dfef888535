/**
 * Compute ceilings: naive vs tiled f32 matmul GFLOP/s on square problems (M = K = N). The tiled
 * kernel is the product's (src/kernels/recsys/matmul_tiled.ts, no transposes), so the bench times
 * what the recommender runs.
 */
import { createBuffer, uploadBuffer } from '../src/gpu/buffers.ts'
import { TimestampQueryManager } from '../src/gpu/timestamp.ts'
import type { KernelCall } from '../src/kernels/runner.ts'
import { prepareKernel } from '../src/kernels/runner.ts'
import type { MatmulShape } from './kernels/matmul_naive.ts'
import { matmulFlops, matmulNaiveCall } from './kernels/matmul_naive.ts'
import { matmulTiledCall } from '../src/kernels/recsys/matmul_tiled.ts'
import { Rng } from '../src/util/rng.ts'
import { measure } from './measure.ts'
import { timeKernel } from './pass.ts'
import { bestRow, makeRow, withPeer } from './rows.ts'
import type { BenchRow, DeviceSizes, SuiteContext } from './types.ts'

type MatmulBuffers = { a: GPUBuffer; b: GPUBuffer; c: GPUBuffer }

/** Naive kernels at 8×8 and 16×16 workgroups, tiled at TILE 8 and 16 (peer: best naive). */
export async function matmulRows(ctx: SuiteContext, z: DeviceSizes): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const size of z.matmulSizes) {
    const shape = { m: size, k: size, n: size }
    const rng = new Rng(size)
    // Random operands: zeros could let a software rasteriser take shortcuts.
    const buffers = {
      a: uploadBuffer(ctx.device, rng.floats(size * size)),
      b: uploadBuffer(ctx.device, rng.floats(size * size)),
      c: createBuffer(ctx.device, 4 * size * size),
    }
    try {
      const naive: BenchRow[] = []
      for (const w of [8, 16])
        naive.push(await matmulRow(ctx, z, matmulNaiveCall(buffers, shape, { WX: w, WY: w }), `wg=${w}x${w}`))
      const peer = bestRow(naive)
      rows.push(...naive)
      for (const t of [8, 16])
        rows.push(
          withPeer(await matmulRow(ctx, z, matmulTiledCall(buffers, shape, {}, { TILE: t }), `tile=${t}`), peer),
        )
    } finally {
      destroyAll(buffers)
    }
  }
  return rows
}

async function matmulRow(
  ctx: SuiteContext,
  z: DeviceSizes,
  call: KernelCall<MatmulShape>,
  tag: string,
): Promise<BenchRow> {
  const { m, k, n } = call.shape
  const workload = `${call.spec.name} ${m}x${k}x${n} ${tag}`
  ctx.progress(workload)
  const ts = new TimestampQueryManager(ctx.device)
  const kernel = prepareKernel(ctx.cache, call)
  try {
    const samples = await measure(() => timeKernel(ctx.device, kernel, 1, ts), z)
    const flops = matmulFlops(call.shape)
    return makeRow(ctx, { workload, metric: 'throughput', unit: 'GFLOP/s', samples, fromSeconds: s => flops / s / 1e9 })
  } finally {
    kernel.destroy()
    ts.destroy()
  }
}

function destroyAll(buffers: MatmulBuffers): void {
  buffers.a.destroy()
  buffers.b.destroy()
  buffers.c.destroy()
}
