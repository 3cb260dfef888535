import { describe, expect, it } from 'vitest'
import {
  chunkParts,
  combine,
  mergeParts,
  prune,
  sketchColumn,
  sketchPlan,
  summarise,
  totalWeight,
  type Summary,
} from '../../../src/models/gbdt/sketch.ts'
import { buildCuts, cutsFromSummaries, featureBins, searchBin } from '../../../src/models/gbdt/cuts.ts'
import { binAt, binMatrix } from '../../../src/models/gbdt/binned.ts'
import { dequantisePair, numberToPair, pairToNumber, quantiseScales } from '../../../src/models/gbdt/quantiser.ts'
import { Rng } from '../../../src/util/rng.ts'

/** True rank bounds of v in the data: [weight below v, weight up to and including v]. */
function trueRank(data: Float32Array, v: number): [number, number] {
  let below = 0,
    upTo = 0
  for (const x of data) {
    if (x < v) below++
    if (x <= v) upTo++
  }
  return [below, upTo]
}

function checkBounds(s: Summary, data: Float32Array, slack: number): void {
  for (let k = 0; k < s.values.length; k++) {
    const [below, upTo] = trueRank(data, s.values[k])
    expect(s.rmin[k]).toBeLessThanOrEqual(below + 1e-9)
    expect(s.rmax[k]).toBeGreaterThanOrEqual(upTo - 1e-9)
    expect(s.rmax[k] - s.rmin[k]).toBeLessThanOrEqual(upTo - below + slack)
  }
}

describe('sketch', () => {
  it('summarise is exact: rank bounds are the true ranks, duplicates collapsed', () => {
    const s = summarise([3, 1, NaN, 3, 2], [1, 1, 1, 2, 1])
    expect(Array.from(s.values)).toEqual([1, 2, 3])
    expect(Array.from(s.rmin)).toEqual([0, 1, 2])
    expect(Array.from(s.rmax)).toEqual([1, 2, 5])
    expect(totalWeight(s)).toBe(5)
  })

  it('merge of two halves keeps valid rank bounds and total weight, pruned within the error bound', () => {
    const data = new Rng(3).floats(4000, -5, 5).map(x => Math.round(x * 50) / 50)
    const a = prune(summarise(data.subarray(0, 2000)), 64),
      b = prune(summarise(data.subarray(2000)), 64)
    const merged = prune(combine(a, b), 64)
    expect(totalWeight(merged)).toBe(4000)
    checkBounds(merged, data, (3 * 4000) / 63)
  })

  it('sketching in chunks gives the same cuts as one exact sketch (within one bin of rank)', () => {
    const data = new Rng(5).floats(5000, 0, 1)
    const whole = cutsFromSummaries([summarise(data)], [16])
    const chunked = cutsFromSummaries([sketchColumn(data, undefined, 4)], [16])
    expect(featureBins(chunked, 0)).toBe(featureBins(whole, 0))
    for (let b = 0; b < featureBins(whole, 0) - 1; b++) {
      const [rw] = trueRank(data, whole.cutValues[b]),
        [rc] = trueRank(data, chunked.cutValues[b])
      expect(Math.abs(rw - rc)).toBeLessThanOrEqual(5000 / 16 / 2)
    }
  })
})

describe('sketch: sorting and the fixed chunk merge', () => {
  it('float32 radix path equals the weighted (index sort) path: signs, ±0, ±∞, NaN, ties', () => {
    const rng = new Rng(11)
    const edge = [0, -0, Infinity, -Infinity, NaN, 1e-40, -1e-40, 3.5e38, -3.5e38, 1, 1, -1]
    const col = Float32Array.from([...edge, ...Array.from(rng.floats(5000, -1e3, 1e3), x => Math.round(x) / 8)])
    const fast = summarise(col),
      slow = summarise(col, new Float32Array(col.length).fill(1))
    expect(fast.values.length).toBeGreaterThan(100)
    // −0 and +0 are one entry; which of the two it keeps is the sort's (either bins alike).
    const plain = (a: Float64Array) => Array.from(a, v => (v === 0 ? 0 : v))
    for (const k of ['values', 'rmin', 'rmax', 'wmin'] as const) expect(plain(fast[k])).toEqual(plain(slow[k]))
    for (let k = 1; k < fast.values.length; k++) expect(fast.values[k]).toBeGreaterThan(fast.values[k - 1])
    expect(totalWeight(fast)).toBe(col.length - 1)
  })

  it('parts of any contiguous row split (loader units, ranks) merge to sketchColumn of all rows', () => {
    const n = 30_000,
      maxBin = 64
    const col = new Rng(4).floats(n, -5, 5).map((x, i) => (i % 97 === 0 ? NaN : Math.round(x * 300)))
    expect(Math.ceil(n / sketchPlan(n, maxBin).chunkRows)).toBeGreaterThan(3)
    const want = sketchColumn(col, undefined, maxBin)
    const rng = new Rng(8)
    for (let trial = 0; trial < 3; trial++) {
      const cuts = [0, ...Array.from(rng.floats(5, 0, n), Math.floor).sort((a, b) => a - b), n]
      const parts = cuts.slice(1).map((hi, u) => chunkParts(col.subarray(cuts[u], hi), undefined, cuts[u], n, maxBin))
      expect(mergeParts(parts, n, maxBin)).toEqual(want)
    }
    // The merge is not a plain pass-through: dropping a part changes the summary.
    const [a] = [chunkParts(col.subarray(0, n / 2), undefined, 0, n, maxBin)]
    expect(mergeParts([a], n, maxBin)).not.toEqual(want)
  })
})

describe('cuts', () => {
  it('uniform 0..999 with max_bin 4 → XGBoost 1.7 cuts, near the quartiles, and one above the max', () => {
    const col = Float32Array.from({ length: 1000 }, (_, i) => i)
    const cuts = buildCuts([col], 4)
    const got = Array.from(cuts.cutValues.subarray(0, 3))
    // XGBoost 1.7.4 hist, max_bin 4 on these values: split conditions 258, 515, 743 (its sketch
    // at eps = 1/32 over 4 chunks of 258 rows, the same one sketchColumn runs).
    expect(got).toEqual([258, 515, 743])
    got.forEach((c, k) => expect(Math.abs(c - 250 * (k + 1))).toBeLessThanOrEqual(1000 / 32))
    expect(cuts.cutValues[3]).toBeGreaterThan(999)
    expect(cuts.minValues[0]).toBeLessThan(0)
  })

  it('constant → one bin; ≤ max_bin bins; missing values → ≤ 255 bins; all-missing → one bin', () => {
    const n = 2000
    const constant = new Float32Array(n).fill(7)
    const wide = Float32Array.from({ length: n }, (_, i) => i)
    const withNaN = wide.map((x, i) => (i % 10 === 0 ? NaN : x))
    const allNaN = new Float32Array(n).fill(NaN)
    const cuts = buildCuts([constant, wide, withNaN, allNaN], 256)
    expect([0, 1, 2, 3].map(f => featureBins(cuts, f))).toEqual([1, 256, 255, 1])
    expect(cuts.cutValues[0]).toBeGreaterThan(7)
  })

  it('missing values at max_bin 256: XGBoost’s 256 cuts minus the one between the two lightest neighbouring bins', () => {
    const rng = new Rng(3)
    // Skewed values: bins near the top are sparse, so which neighbours weigh least is not a tie.
    const present = Float32Array.from({ length: 30_000 }, () => rng.next() ** 3 * 5000)
    const withNaN = Float32Array.from([...present, ...new Array<number>(500).fill(NaN)])
    const [full, dropped] = [buildCuts([present], 256), buildCuts([withNaN], 256)]
    expect([featureBins(full, 0), featureBins(dropped, 0)]).toEqual([256, 255])
    const kept = Array.from(dropped.cutValues),
      all = Array.from(full.cutValues)
    const gone = all.filter(c => !kept.includes(c))
    expect(gone).toHaveLength(1)
    expect(kept.at(-1)).toBe(all.at(-1))
    // The merged pair is the lightest: no other interior cut separates two bins with fewer rows.
    const count = (lo: number, hi: number) => present.filter(v => v >= lo && v < hi).length
    const pairRows = (k: number) => count(k > 0 ? all[k - 1] : -Infinity, all[k + 1])
    const k = all.indexOf(gone[0])
    for (let j = 0; j + 1 < all.length; j++) expect(pairRows(k)).toBeLessThanOrEqual(pairRows(j))
  })

  it('cut values increase strictly within each feature and the max falls in the last bin', () => {
    const col = new Rng(9).floats(3000, -100, 100).map(x => Math.round(x))
    const cuts = buildCuts([col], 32)
    for (let b = 1; b < featureBins(cuts, 0); b++) expect(cuts.cutValues[b]).toBeGreaterThan(cuts.cutValues[b - 1])
    expect(searchBin(cuts, 0, Math.max(...col))).toBe(featureBins(cuts, 0) - 1)
    expect(searchBin(cuts, 0, 1e9)).toBe(featureBins(cuts, 0) - 1)
  })
})

describe('binned matrix', () => {
  it('packs feature-major bytes; bin = first cut above the value; missing = byte 0', () => {
    const a = Float32Array.from([0, 1, 2, 3, 4]),
      b = Float32Array.from([NaN, 10, 20, NaN, 30])
    const cuts = buildCuts([a, b], 256)
    const m = binMatrix([a, b], cuts)
    expect(m.rowWords).toBe(2)
    expect(Array.from(m.missOff)).toEqual([0, 1])
    for (let i = 0; i < 5; i++) {
      expect(binAt(m, i, 0)).toBe(i)
      expect(binAt(m, i, 1)).toBe(Number.isNaN(b[i]) ? -1 : searchBin(cuts, 1, b[i]))
    }
    // Row 1 of feature 1 (bin 0, stored 1) is byte 1 of word rowWords + 0.
    expect((m.bins[m.rowWords] >>> 8) & 0xff).toBe(1)
  })

  it('refuses a feature with missing values and 256 bins (no byte left for missing)', () => {
    const full = Float32Array.from({ length: 600 }, (_, i) => i)
    const cuts = buildCuts([full], 256)
    expect(() => binMatrix([full.map((x, i) => (i === 0 ? NaN : x))], cuts)).toThrow(
      /feature 0 has missing values and 256 bins/,
    )
  })

  it('float32 bins (key-prefix table) equal searchBin: NaN, values equal to cuts, beyond the last cut, ±0, ±∞', () => {
    const col = new Rng(6).floats(3000, -50, 50).map(x => Math.round(x * 10) / 10)
    const cuts = buildCuts([col], 40)
    const at = Array.from(cuts.cutValues.subarray(0, featureBins(cuts, 0)))
    const probe = Float32Array.from([
      ...at,
      ...at.map(c => Math.fround(c - 1e-3)),
      ...at.map(c => Math.fround(c * (1 + 2 ** -23))),
      NaN,
      0,
      -0,
      Infinity,
      -Infinity,
      1e30,
      -1e30,
      1e-42,
      -1e-42,
      ...col.subarray(0, 17),
    ])
    const m = binMatrix([probe], cuts)
    expect(m.missOff[0]).toBe(1)
    for (let i = 0; i < probe.length; i++)
      expect(binAt(m, i, 0)).toBe(Number.isNaN(probe[i]) ? -1 : searchBin(cuts, 0, probe[i]))
    // A value equal to a cut is in the bin above it; above the last cut, the last bin.
    expect(binAt(m, 0, 0)).toBe(1)
    expect(binAt(m, probe.indexOf(Infinity), 0)).toBe(featureBins(cuts, 0) - 1)
    expect(binAt(m, probe.indexOf(-Infinity), 0)).toBe(0)
  })

  it('binary-search bins agree with a linear scan on random data', () => {
    const col = new Rng(2).floats(500, -1, 1)
    const cuts = buildCuts([col], 20)
    const m = binMatrix([col], cuts)
    for (let i = 0; i < 500; i++) {
      let b = 0
      while (b < featureBins(cuts, 0) - 1 && !(col[i] < cuts.cutValues[b])) b++
      expect(binAt(m, i, 0)).toBe(b)
    }
  })
})

describe('quantiser', () => {
  it('scales keep |q| ≤ 2^30 per row', () => {
    const { gScale, hScale } = quantiseScales(0.73, 0.25, 1000)
    expect(0.73 * gScale).toBeLessThanOrEqual(2 ** 30)
    expect(0.73 * gScale).toBeGreaterThan(2 ** 29)
    expect(0.25 * hScale).toBe(2 ** 30)
  })

  it('64-bit pairs round-trip, negative included', () => {
    for (const x of [0, 1, -1, 2 ** 40 + 3, -(2 ** 45) - 7]) {
      const [lo, hi] = numberToPair(x)
      expect(pairToNumber(lo, hi)).toBe(x)
    }
    const [lo, hi] = numberToPair(-3 * 2 ** 30)
    expect(dequantisePair(lo, hi, 2 ** 30)).toBe(-3)
  })
})
