import { describe, expect, it } from 'vitest'
import {
  forwardMatmulFlops,
  loopShares,
  RECSYS_SIZES,
  samplesPerSecond,
  splitShares,
  stepTotal,
  trainFlopsPerSample,
  transpose,
} from '../../../bench/recsys-rows.ts'
import { zeroTiming } from '../../../src/models/recsys/train-loop.ts'
import { isSuiteName } from '../../../bench/suites.ts'

describe('recsys bench helpers', () => {
  it('transposes [rows × cols] into [cols × rows]', () => {
    const a = Float32Array.from([1, 2, 3, 4, 5, 6]) // 2 × 3
    expect(Array.from(transpose(a, 2, 3))).toEqual([1, 4, 2, 5, 3, 6])
    expect(Array.from(transpose(transpose(a, 2, 3), 3, 2))).toEqual(Array.from(a))
    expect(() => transpose(a, 4, 2)).toThrow(/6 values for 4 × 2/)
  })

  it('splits summed step time into shares that add to 1', () => {
    const steps = [
      { inputMs: 1, submitMs: 2, gpuMs: 6, metricsMs: 1 },
      { inputMs: 3, submitMs: 2, gpuMs: 14, metricsMs: 1 },
    ]
    expect(stepTotal(steps[0])).toBe(10)
    const s = splitShares(steps)
    expect(s.inputMs).toBeCloseTo(4 / 30)
    expect(s.gpuMs).toBeCloseTo(20 / 30)
    expect(s.inputMs + s.submitMs + s.gpuMs + s.metricsMs).toBeCloseTo(1)
    expect(() => splitShares([])).toThrow(/no steps/)
  })

  it('computes samples/s and rejects a zero step time', () => {
    expect(samplesPerSecond(1024, 512)).toBe(2000)
    expect(() => samplesPerSecond(1024, 0)).toThrow(/step time 0/)
  })

  it('registers the suite with the issue-5 workload', () => {
    expect(isSuiteName('recsys')).toBe(true)
    expect(RECSYS_SIZES).toMatchObject({ batch: 1024, layers: [64, 32], dim: 16 })
    expect(RECSYS_SIZES.steps).toBeGreaterThanOrEqual(20)
  })

  it('counts 2 FLOPs per weight of the matmuls (MLP and cross), 3× that for training', () => {
    // clicks: C0 = 8·16 + 19 = 147, 147→64→32→1.
    const mlp = { sparse: 8, dim: 16, totalRows: 1000, dense: 19, layers: [64, 32] }
    expect(forwardMatmulFlops(mlp)).toBe(2 * (147 * 64 + 64 * 32 + 32))
    expect(trainFlopsPerSample(mlp)).toBe(6 * (147 * 64 + 64 * 32 + 32))
    // Low-rank cross layers add V [r×C0] and U [C0×r] per layer; their biases are not matmuls.
    const dcn = { ...mlp, cross: { layers: 2, rank: 4 } }
    expect(forwardMatmulFlops(dcn) - forwardMatmulFlops(mlp)).toBe(2 * 2 * (2 * 4 * 147))
  })

  it('gives the loop split as shares of loop time, the GPU row only with timestamp queries', () => {
    const t = {
      ...zeroTiming(),
      loop_s: 10,
      input_wait_s: 1,
      featurize_s: 0.5,
      step_s: 7,
      eval_s: 1.5,
      readback_s: 0.5,
    }
    const shares = new Map(loopShares(t))
    expect(shares.get('input wait (loader gather + featurize)')).toBeCloseTo(0.1)
    expect(shares.get('evaluation (validation predictions + metrics)')).toBeCloseTo(0.15)
    expect([...shares.keys()].some(k => k.startsWith('GPU time'))).toBe(false)
    expect(new Map(loopShares({ ...t, gpu_s: 6 })).get('GPU time of the steps (timestamp queries)')).toBeCloseTo(0.6)
  })
})
