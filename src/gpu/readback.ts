/** Reading GPU buffers back to the CPU: copy into a MAP_READ staging buffer, map, copy out. */

/** Typed-array constructors `readBuffer` can return. */
export type ReadbackType = Float32ArrayConstructor | Uint32ArrayConstructor | Int32ArrayConstructor

/**
 * Copies `byteLength` bytes (default: the whole buffer) of `src` from `offset` into a fresh
 * ArrayBuffer. `src` needs COPY_SRC usage. A zero-length read returns an empty buffer without
 * touching the GPU (mapping a zero-sized range is legal but pointless).
 */
export async function readBytes(
  device: GPUDevice,
  src: GPUBuffer,
  byteLength = src.size,
  offset = 0,
): Promise<ArrayBuffer> {
  if (byteLength === 0) return new ArrayBuffer(0)
  if (byteLength % 4 !== 0 || offset % 4 !== 0) {
    throw new RangeError(`readBytes: byteLength ${byteLength} and offset ${offset} must be multiples of 4`)
  }
  const staging = device.createBuffer({
    label: 'readback',
    size: byteLength,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  })
  try {
    const enc = device.createCommandEncoder({ label: 'readback' })
    enc.copyBufferToBuffer(src, offset, staging, 0, byteLength)
    device.queue.submit([enc.finish()])
    await staging.mapAsync(GPUMapMode.READ)
    // slice(): the mapped range is detached on unmap, so keep a copy.
    return staging.getMappedRange().slice(0)
  } finally {
    staging.destroy()
  }
}

/** Reads `length` elements of type `type` from `src` (default: as many as fit in the buffer). */
export async function readBuffer<T extends ReadbackType>(
  device: GPUDevice,
  src: GPUBuffer,
  type: T,
  length?: number,
): Promise<InstanceType<T>> {
  const n = length ?? Math.floor(src.size / type.BYTES_PER_ELEMENT)
  const bytes = await readBytes(device, src, n * type.BYTES_PER_ELEMENT)
  return new type(bytes) as InstanceType<T>
}
