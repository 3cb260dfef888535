import { describe, expect, test } from 'vitest'
import { dequantise, int64ToF32, splitEvaluate } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import {
  decodeSplit,
  FEATURE_NUMERIC,
  FEATURE_ONE_HOT,
  FEATURE_PARTITION,
  featureKinds,
  SPLIT_WORDS,
} from '../../../src/kernels/gbdt/layout.ts'
import { int64, putInt64 } from '../../../src/kernels/gbdt/fixed-point.ts'
import type { SplitParams, SplitResult } from '../../../src/kernels/gbdt/layout.ts'

/** One node, features given as per-bin [qg, qh] lists; node total = Σ bins + `missing`. */
function evaluate(
  features: Array<Array<[number, number]>>,
  missing: [number, number],
  p: SplitParams,
  opts: { scales?: [number, number]; mask?: number[]; kinds?: number[] } = {},
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
    opts.kinds && Uint32Array.from(opts.kinds),
  )
  return decodeSplit(out, 0)
}

/** The bins set in a categorical result's bitset. */
function rightBins(r: SplitResult): number[] {
  const out: number[] = []
  for (let b = 0; b < 256; b++) if (r.catBins && (r.catBins[b >> 5] >>> (b & 31)) & 1) out.push(b)
  return out
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

describe('splitEvaluate (reference): categorical features, XGBoost 1.7 semantics', () => {
  // Weights −G/(H + 1): c0 −2.5, c1 2, c2 −2, c3 1.5, c4 (empty) 0 → sorted c0, c2, c4, c3, c1.
  const five: Array<[number, number]> = [
    [5, 1],
    [-6, 2],
    [4, 1],
    [-3, 1],
    [0, 0],
  ]

  test('one-hot: one category alone goes right, beating every ordinal split of the codes', () => {
    const f: Array<[number, number]> = [
      [-4, 2],
      [6, 2],
      [-4, 2],
    ]
    const r = evaluate([f], [0, 0], P, { kinds: [FEATURE_ONE_HOT] })
    expect([r.feature, r.splitBin, r.defaultLeft, rightBins(r)]).toEqual([0, -1, true, [1]])
    expect(r.gain).toBeCloseTo(64 / 5 + 12 - 4 / 7, 4)
    expect([r.leftG, r.leftH, r.rightG, r.rightH]).toEqual([-8, 4, 6, 2])
    const ordinal = evaluate([f], [0, 0], P)
    expect(ordinal.catBins).toBeUndefined()
    expect(ordinal.gain).toBeLessThan(r.gain / 2)
  })

  test('one-hot with missing: missing left first, so the mirrored missing-right tie keeps it', () => {
    // c0 right + missing left = (−4, 2) | (11, 3); c1 right with missing = (11, 3) | (−4, 2): equal gains.
    const r = evaluate(
      [
        [
          [-4, 2],
          [6, 2],
        ],
      ],
      [5, 1],
      P,
      { kinds: [FEATURE_ONE_HOT] },
    )
    expect([r.defaultLeft, rightBins(r), r.rightG, r.rightH]).toEqual([true, [0], -4, 2])
    expect(r.gain).toBeCloseTo(121 / 4 + 16 / 3 - 49 / 6, 4)
    // Missing right with the chosen category when that is strictly better.
    const m = evaluate(
      [
        [
          [-4, 2],
          [6, 2],
          [1, 5],
        ],
      ],
      [5, 1],
      P,
      { kinds: [FEATURE_ONE_HOT] },
    )
    expect([m.defaultLeft, rightBins(m), m.rightG, m.rightH]).toEqual([false, [1], 11, 3])
  })

  test('partition: categories sorted by weight, the best prefix goes right (forward, missing left)', () => {
    const r = evaluate([five], [0, 0], P, { kinds: [FEATURE_PARTITION] })
    // {c0, c2} right (9, 2) | left (−9, 3); adding the empty c4 ties, and the earlier prefix stays.
    expect([r.feature, r.splitBin, r.defaultLeft, rightBins(r)]).toEqual([0, -1, true, [0, 2]])
    expect(r.gain).toBeCloseTo(27 + 81 / 4, 4)
    expect([r.leftG, r.leftH, r.rightG, r.rightH]).toEqual([-9, 3, 9, 2])
  })

  test('partition: backward (missing right) wins with positive missing; the empty category joins the set', () => {
    const r = evaluate([five], [5, 1], P, { kinds: [FEATURE_PARTITION] })
    // Left {c1, c3} (−9, 3); right sorted[0, 3) = {c0, c2, c4} + missing (14, 3).
    expect([r.defaultLeft, rightBins(r), r.leftG, r.leftH]).toEqual([false, [0, 2, 4], -9, 3])
    expect(r.gain).toBeCloseTo(81 / 4 + 49 - 25 / 7, 4)
  })

  test('max_cat_threshold bounds each scan: 2 → only one category on the scanned side, 1 → no split', () => {
    const two = evaluate([five], [5, 1], { ...P, maxCatThreshold: 2 }, { kinds: [FEATURE_PARTITION] })
    // forward {c0} right: 12.5 + 0; backward {c1} left: 12 + 121/5 — the backward one.
    expect([two.defaultLeft, rightBins(two)]).toEqual([false, [0, 2, 3, 4]])
    expect(two.gain).toBeCloseTo(12 + 121 / 5 - 25 / 7, 4)
    expect(evaluate([five], [5, 1], { ...P, maxCatThreshold: 1 }, { kinds: [FEATURE_PARTITION] }).feature).toBe(-1)
  })

  test('min_child_weight zeroes light categories in the sort and blocks light children', () => {
    // mcw 1.5: c0, c2, c3 (H = 1) weigh 0 like c4 → sorted c0, c2, c3, c4, c1 (ties by index).
    const r = evaluate([five], [0, 0], { ...P, minChildWeight: 1.5 }, { kinds: [FEATURE_PARTITION] })
    expect(rightBins(r)).toEqual([0, 2])
    expect(r.leftH).toBeGreaterThanOrEqual(1.5)
    expect(r.rightH).toBeGreaterThanOrEqual(1.5)
  })

  test('a tie between a numeric and a categorical feature keeps the smaller feature index', () => {
    const f: Array<[number, number]> = [
      [-4, 2],
      [6, 2],
    ]
    // Two bins: one-hot {1} partitions the rows as the numeric split after bin 0.
    expect(evaluate([f, f], [0, 0], P, { kinds: [FEATURE_ONE_HOT, FEATURE_NUMERIC] }).feature).toBe(0)
    const numericFirst = evaluate([f, f], [0, 0], P, { kinds: [FEATURE_NUMERIC, FEATURE_ONE_HOT] })
    expect([numericFirst.feature, numericFirst.catBins]).toEqual([0, undefined])
  })

  test('featureKinds: one-hot below max_cat_to_onehot categories (XGBoost UseOneHot), partition from it', () => {
    const cutPtrs = Uint32Array.from([0, 3, 7, 11, 12])
    expect(Array.from(featureKinds(cutPtrs, Uint8Array.from([1, 1, 0, 1]), 4))).toEqual([
      FEATURE_ONE_HOT,
      FEATURE_PARTITION,
      FEATURE_NUMERIC,
      FEATURE_ONE_HOT,
    ])
    expect(Array.from(featureKinds(cutPtrs, undefined, 4))).toEqual([0, 0, 0, 0])
    expect(Array.from(featureKinds(cutPtrs, Uint8Array.from([1, 1, 0, 1]), 1))).toEqual([2, 2, 0, 2])
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
