import { describe, expect, test } from 'vitest'
import { requestDevice } from '../../../src/gpu/device.ts'
import { TimestampQueryManager } from '../../../src/gpu/timestamp.ts'
import { PipelineCache } from '../../../src/gpu/pipeline-cache.ts'
import { prepareKernel } from '../../../src/kernels/runner.ts'
import { noopCall } from '../../../bench/kernels/noop.ts'

describe('TimestampQueryManager', () => {
  test('times a pass where supported, degrades to undefined where not', async () => {
    const { device } = await requestDevice()
    const ts = new TimestampQueryManager(device)
    expect(ts.supported).toBe(device.features.has('timestamp-query'))
    const k = prepareKernel(new PipelineCache(device), noopCall({ workgroups: 4 }))
    device.pushErrorScope('validation')
    const enc = device.createCommandEncoder()
    const desc = ts.addTimestampWrites({ label: 'timed' })
    expect('timestampWrites' in desc).toBe(ts.supported)
    const pass = enc.beginComputePass(desc)
    k.encode(pass)
    pass.end()
    ts.resolve(enc)
    device.queue.submit([enc.finish()])
    const ns = await ts.read()
    expect(await device.popErrorScope()).toBeNull()
    if (ts.supported) expect(ns === undefined || ns > 0).toBe(true)
    else expect(ns).toBeUndefined()
    // A second read without a new resolve has nothing to report.
    expect(await ts.read()).toBeUndefined()
    ts.destroy()
    device.destroy()
  })
})
