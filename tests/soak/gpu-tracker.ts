/**
 * Page instrumentation for the soak test (added with page.addInitScript before the app loads):
 * counts GPU devices and buffers as they are made and destroyed, so a run that leaves buffers or
 * devices alive shows up as a growing count. A buffer still alive when its device is destroyed
 * is counted as freed with the device (`freedWithDevice`), not leaked. Read with
 * `window.__gpuStats()`.
 */

/** What window.__gpuStats() returns. */
export interface GpuStats {
  devicesCreated: number
  devicesDestroyed: number
  buffersCreated: number
  buffersDestroyed: number
  /** Buffers never destroyed themselves, released by their device's destroy(). */
  freedWithDevice: number
  /** Buffers alive now (on devices alive now), and their bytes. */
  liveBuffers: number
  liveBytes: number
}

/** The init script, as source text (functions passed to addInitScript would carry tsx/esbuild helpers). */
export const GPU_TRACKER = `(() => {
  if (typeof GPUDevice === 'undefined') return
  const s = { devicesCreated: 0, devicesDestroyed: 0, buffersCreated: 0, buffersDestroyed: 0, freedWithDevice: 0 }
  const live = new Map()
  const perDevice = new Map()
  const createBuffer = GPUDevice.prototype.createBuffer
  GPUDevice.prototype.createBuffer = function (desc) {
    const b = createBuffer.call(this, desc)
    s.buffersCreated++
    live.set(b, desc.size)
    if (!perDevice.has(this)) perDevice.set(this, new Set())
    perDevice.get(this).add(b)
    return b
  }
  const destroyBuffer = GPUBuffer.prototype.destroy
  GPUBuffer.prototype.destroy = function () {
    if (live.delete(this)) s.buffersDestroyed++
    return destroyBuffer.call(this)
  }
  const requestDevice = GPUAdapter.prototype.requestDevice
  GPUAdapter.prototype.requestDevice = async function (desc) {
    const d = await requestDevice.call(this, desc)
    s.devicesCreated++
    perDevice.set(d, new Set())
    return d
  }
  const destroyDevice = GPUDevice.prototype.destroy
  GPUDevice.prototype.destroy = function () {
    const own = perDevice.get(this)
    if (own) {
      s.devicesDestroyed++
      for (const b of own) if (live.delete(b)) s.freedWithDevice++
      perDevice.delete(this)
    }
    return destroyDevice.call(this)
  }
  window.__gpuStats = () => ({ ...s, liveBuffers: live.size, liveBytes: [...live.values()].reduce((a, b) => a + b, 0) })
})()`
