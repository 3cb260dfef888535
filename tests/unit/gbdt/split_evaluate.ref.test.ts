import { describe, expect, test } from 'vitest'
import { dequantise, int64ToF32, splitEvaluate } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import { decodeSplit, SPLIT_WORDS } from '../../../src/kernels/gbdt/layout.ts'
import { int64, putInt64 } from '../../../src/kernels/gbdt/fixed-point.ts'
import type { SplitParams, SplitResult } from '../../../src/kernels/gbdt/layout.ts'

/** One node, features given as per-bin [qg, qh] lists; node total = Σ bins + `missing`. */
function evaluate(
  features: Array<Array<[number, number]>>,
  missing: [number, number],
  p: SplitParams,
  opts: { scales?: [number, number]; mask?: number[] } = {},
): SplitResult {
  const cutPtrs = new Uint32Array(features.length + 1)
  features.forEach((f, i) => {
    cutPtrs[i + 1] = cutPtrs[i] + f.length
  })
  const hist = new Uint32Array(cutPtrs[features.length] * 4)
  let G = missing[0],
    H = missing[1],
    b = 0
  for (const f of features) {
    for (const [g, h] of f) {
      putInt64(hist, b * 4, g)
      putInt64(hist, b * 4 + 2, h)
      G += g
      H += h
      b++
    }
  }
  const sums = new Uint32Array(4)
  putInt64(sums, 0, G)
  putInt64(sums, 2, H)
  const out = new Uint32Array(SPLIT_WORDS)
  const mask = Uint32Array.from(opts.mask ?? features.map(() => 1))
  splitEvaluate(
    hist,
    cutPtrs,
    mask,
    new Uint32Array(1),
    sums,
    Float32Array.from([0, 0, ...(opts.scales ?? [1, 1])]),
    out,
    { nodes: 1, features: features.length, maskPerNode: 0 },
    p,
  )
  return decodeSplit(out, 0)
}

const P: SplitParams = { lambda: 1, alpha: 0, minChildWeight: 0 }

describe('splitEvaluate (reference) on hand-computed cases', () => {
  test('2-bin feature without missing: split after bin 0, gain 16/3 + 36/3 − 4/5', () => {
    const r = evaluate(
      [
        [
          [-4, 2],
          [6, 2],
        ],
      ],
      [0, 0],
      P,
    )
    expect([r.feature, r.splitBin, r.defaultLeft]).toEqual([0, 0, false])
    expect(r.gain).toBeCloseTo(16 / 3 + 12 - 0.8, 4)
    expect([r.leftG, r.leftH, r.rightG, r.rightH]).toEqual([-4, 2, 6, 2])
    expect([int64(r.leftSum[0], r.leftSum[1]), int64(r.rightSum[0], r.rightSum[1])]).toEqual([-4, 6])
  })

  test('missing left beats missing right', () => {
    // bins (−4,1), (4,1), missing (−4,1): backward at bin 1 → left (−8,2), right (4,1).
    const r = evaluate(
      [
        [
          [-4, 1],
          [4, 1],
        ],
      ],
      [-4, 1],
      P,
    )
    expect([r.feature, r.splitBin, r.defaultLeft]).toEqual([0, 0, true])
    expect(r.gain).toBeCloseTo(64 / 3 + 8 - 4, 4)
    expect([r.leftG, r.leftH, r.rightG, r.rightH]).toEqual([-8, 2, 4, 1])
  })

  test('equal gains: forward (missing right) wins over the mirrored backward candidate', () => {
    // "only missing left" (splitBin −1) partitions exactly as "all bins left, missing right".
    const r = evaluate(
      [
        [
          [4, 1],
          [4, 1],
        ],
      ],
      [-9, 1],
      P,
    )
    expect([r.splitBin, r.defaultLeft]).toEqual([1, false])
  })

  test('equal gains across features: the smaller feature index wins; the mask removes it', () => {
    const f: Array<[number, number]> = [
      [-4, 2],
      [6, 2],
    ]
    expect(evaluate([f, f, f], [0, 0], P).feature).toBe(0)
    expect(evaluate([f, f, f], [0, 0], P, { mask: [0, 1, 1] }).feature).toBe(1)
    expect(evaluate([f, f, f], [0, 0], P, { mask: [0, 0, 0] }).feature).toBe(-1)
  })

  test('alpha soft-thresholds G, lambda enters every denominator', () => {
    const r = evaluate(
      [
        [
          [-4, 2],
          [6, 2],
        ],
      ],
      [0, 0],
      { lambda: 1, alpha: 1, minChildWeight: 0 },
    )
    expect(r.gain).toBeCloseTo(9 / 3 + 25 / 3 - 1 / 5, 4)
    const l = evaluate(
      [
        [
          [-4, 2],
          [6, 2],
        ],
      ],
      [0, 0],
      { lambda: 0, alpha: 0, minChildWeight: 0 },
    )
    expect(l.gain).toBeCloseTo(8 + 18 - 1, 4)
  })

  test('min_child_weight blocks every split: no feature, gain −∞', () => {
    const r = evaluate(
      [
        [
          [-4, 2],
          [6, 2],
        ],
      ],
      [0, 0],
      { lambda: 1, alpha: 0, minChildWeight: 2.5 },
    )
    expect([r.feature, r.gain]).toEqual([-1, -Infinity])
  })

  test('a node whose best gain is ≤ 0 has no split', () => {
    expect(
      evaluate(
        [
          [
            [1, 1],
            [1, 1],
          ],
        ],
        [0, 0],
        P,
      ).feature,
    ).toBe(-1)
  })

  test('sums are dequantised with the scales', () => {
    const r = evaluate(
      [
        [
          [-16, 4],
          [24, 4],
        ],
      ],
      [0, 0],
      P,
      { scales: [4, 2] },
    )
    expect([r.leftG, r.leftH, r.rightG, r.rightH]).toEqual([-4, 2, 6, 2])
    expect(int64(r.leftSum[0], r.leftSum[1])).toBe(-16)
  })
})

describe('64-bit helpers', () => {
  test('int64 / putInt64 round-trip negative and large values', () => {
    const w = new Uint32Array(2)
    for (const v of [0, -1, -5, 2 ** 40 + 3, -(2 ** 50) - 7]) {
      putInt64(w, 0, v)
      expect(int64(w[0], w[1])).toBe(v)
    }
    putInt64(w, 0, -1)
    expect([w[0], w[1]]).toEqual([0xffffffff, 0xffffffff])
  })

  test('int64ToF32 is exact for small values and rounds large ones to f32', () => {
    expect(int64ToF32(-5)).toBe(-5)
    expect(int64ToF32(2 ** 40 + 1)).toBe(Math.fround(2 ** 40))
    expect(dequantise(-3 * 2 ** 30, 2 ** 30)).toBe(-3)
  })
})
