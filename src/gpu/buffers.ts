/** Small helpers for creating GPU buffers from typed arrays. */

/** Usage of a kernel's storage buffer: bindable, fillable, readable back. */
export const STORAGE_RW = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST

/**
 * A buffer of at least `byteLength` bytes, rounded up to 4 and never 0: a zero-sized binding is
 * a validation error, so empty inputs still get a 4-byte buffer that the kernel never reads.
 */
export function createBuffer(
  device: GPUDevice,
  byteLength: number,
  usage: GPUBufferUsageFlags = STORAGE_RW,
  label?: string,
): GPUBuffer {
  const size = Math.max(4, Math.ceil(byteLength / 4) * 4)
  return device.createBuffer({ label, size, usage })
}

/** A buffer holding a copy of `data` (usage defaults to STORAGE_RW). */
export function uploadBuffer(
  device: GPUDevice,
  data: ArrayBufferView<ArrayBuffer>,
  usage: GPUBufferUsageFlags = STORAGE_RW,
  label?: string,
): GPUBuffer {
  const buf = createBuffer(device, data.byteLength, usage | GPUBufferUsage.COPY_DST, label)
  if (data.byteLength > 0) device.queue.writeBuffer(buf, 0, data.buffer, data.byteOffset, data.byteLength)
  return buf
}
