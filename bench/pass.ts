/** Timing helpers shared by the device workloads: repeated kernels in one timed compute pass. */
import type { TimestampQueryManager } from '../src/gpu/timestamp.ts'
import type { PreparedKernel } from '../src/kernels/runner.ts'
import { timeSubmit } from './measure.ts'
import type { Sample } from './types.ts'

/**
 * One sample of `kernel` encoded `times` times in a single compute pass and a single submit
 * (amortises submit cost; consecutive dispatches in a pass are ordered for storage writes).
 */
export function timeKernel(
  device: GPUDevice,
  kernel: PreparedKernel,
  times: number,
  ts?: TimestampQueryManager,
): Promise<Sample> {
  return timeSubmit(
    device,
    enc => {
      const pass = enc.beginComputePass(ts?.addTimestampWrites() ?? {})
      for (let i = 0; i < times; i++) kernel.encode(pass)
      pass.end()
    },
    ts,
  )
}

/** One sample of `times` buffer-to-buffer copies of `bytes` bytes in one submit (wall time only). */
export function timeCopies(
  device: GPUDevice,
  src: GPUBuffer,
  dst: GPUBuffer,
  bytes: number,
  times: number,
): Promise<Sample> {
  return timeSubmit(device, enc => {
    for (let i = 0; i < times; i++) enc.copyBufferToBuffer(src, 0, dst, 0, bytes)
  })
}
