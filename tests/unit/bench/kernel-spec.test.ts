import { describe, expect, test } from 'vitest'
import { hashString, pipelineKey } from '../../../src/gpu/pipeline-cache.ts'
import { linearDispatch, packUniforms, workgroupCount } from '../../../src/kernels/spec.ts'
import { mergeConstants } from '../../../src/kernels/runner.ts'
import { streamRmwSpec } from '../../../bench/kernels/stream_rmw.ts'
import { atomicAddWorkgroupSpec } from '../../../bench/kernels/atomic_add_workgroup.ts'
import { matmulTiledSpec } from '../../../src/kernels/recsys/matmul_tiled.ts'

describe('linearDispatch', () => {
  test('ceil(n / per) workgroups in x below the 65535 limit; empty grid for n = 0', () => {
    expect(linearDispatch(0, 256)).toEqual([0, 0, 0])
    expect(linearDispatch(1, 256)).toEqual([1, 1, 1])
    expect(linearDispatch(257, 256)).toEqual([2, 1, 1])
    expect(linearDispatch(65535 * 64, 64)).toEqual([65535, 1, 1])
  })
  test('folds into x·y past the limit and covers every item', () => {
    const n = 65536 * 256 + 5
    const d = linearDispatch(n, 256)
    expect(d[0]).toBeLessThanOrEqual(65535)
    expect(d[1]).toBe(2)
    expect(workgroupCount(d) * 256).toBeGreaterThanOrEqual(n)
    expect(workgroupCount(d) * 256 - n).toBeLessThan(d[0] * 256)
  })
  test('rejects bad sizes by name', () => {
    expect(() => linearDispatch(-1, 64)).toThrow(/n must be/)
    expect(() => linearDispatch(1.5, 64)).toThrow(/n must be/)
    expect(() => linearDispatch(10, 0)).toThrow(/perWorkgroup/)
  })
})

describe('packUniforms', () => {
  test('4 bytes per field in order, little-endian, padded to 16', () => {
    const buf = packUniforms(
      'k',
      [
        { name: 'n', type: 'u32' },
        { name: 's', type: 'f32' },
        { name: 'o', type: 'i32' },
      ],
      { n: 7, s: 0.5, o: -2 },
    )
    expect(buf.byteLength).toBe(16)
    const v = new DataView(buf)
    expect([v.getUint32(0, true), v.getFloat32(4, true), v.getInt32(8, true)]).toEqual([7, 0.5, -2])
    expect(packUniforms('k', [], {}).byteLength).toBe(16)
  })
  test('a missing field is named', () => {
    expect(() => packUniforms('stream_rmw', streamRmwSpec.uniforms, { n: 1 })).toThrow(/stream_rmw: uniform 's'/)
  })
})

describe('mergeConstants', () => {
  test('undefined values keep the defaults; non-finite values are refused', () => {
    expect(mergeConstants({ WG: 256, K: 4 }, { WG: undefined, K: 8 })).toEqual({ WG: 256, K: 8 })
    expect(() => mergeConstants({ WG: 1 }, { WG: Number.NaN })).toThrow(/WG/)
  })
})

describe('pipelineKey', () => {
  test('same for reordered constants, different for other values or code', () => {
    expect(pipelineKey(streamRmwSpec, { A: 1, B: 2 })).toBe(pipelineKey(streamRmwSpec, { B: 2, A: 1 }))
    expect(pipelineKey(streamRmwSpec, { WG: 64 })).not.toBe(pipelineKey(streamRmwSpec, { WG: 128 }))
    expect(pipelineKey(streamRmwSpec)).not.toBe(pipelineKey({ ...streamRmwSpec, code: streamRmwSpec.code + ' ' }))
    expect(hashString('')).toBe('811c9dc5')
  })
})

describe('kernel specs', () => {
  // Bindings, uniform layout and overrides of every spec against its WGSL: tests/unit/kernel-bindings.test.ts.
  test('dispatch geometry', () => {
    expect(atomicAddWorkgroupSpec.dispatchSize({ n: 4097, k: 16 }, { WG: 256, ITEMS: 16, K: 16 })).toEqual([2, 1, 1])
    expect(matmulTiledSpec.dispatchSize({ m: 17, k: 3, n: 33 }, { TILE: 16 })).toEqual([3, 2, 1])
    expect(matmulTiledSpec.dispatchSize({ m: 0, k: 3, n: 33 }, { TILE: 16 })).toEqual([0, 0, 0])
  })
})
