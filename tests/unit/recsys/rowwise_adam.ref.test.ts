import { describe, expect, test } from 'vitest'
import { adam } from '../../../src/kernels/recsys/adam.ref.ts'
import { rowwiseAdam } from '../../../src/kernels/recsys/rowwise_adam.ref.ts'
import { Rng } from '../../../src/util/rng.ts'

const H = { lr: 0.05, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 }

describe('rowwiseAdam (reference)', () => {
  test('each row follows dense Adam with its own step count; untouched rows stay bit for bit', () => {
    const R = 5,
      D = 3,
      rng = new Rng(9)
    const w = rng.floats(R * D),
      m = new Float32Array(R * D),
      v = new Float32Array(R * D),
      rowStep = new Uint32Array(R)
    const w0 = w.slice()
    // Row 1 is touched in all three batches, row 4 (= R − 1) in the last only, rows 0, 2 never.
    const batches = [
      [1, 3],
      [3, 1],
      [4, 1],
    ].map(ids => ({ uniq: Uint32Array.from(ids), dRows: rng.floats(ids.length * D) }))
    const dense = new Map<number, { p: Float32Array; m: Float32Array; v: Float32Array; t: number }>()
    for (const b of batches) {
      rowwiseAdam(w, m, v, rowStep, b.dRows, b.uniq, { uniq: b.uniq.length, dim: D, totalRows: R }, H)
      b.uniq.forEach((row, k) => {
        const s = dense.get(row) ?? {
          p: w0.slice(row * D, row * D + D),
          m: new Float32Array(D),
          v: new Float32Array(D),
          t: 0,
        }
        s.t++
        adam(s.p, b.dRows.subarray(k * D, k * D + D), s.m, s.v, { params: D }, { ...H, t: s.t })
        dense.set(row, s)
      })
    }
    expect(Array.from(rowStep)).toEqual([0, 3, 0, 2, 1])
    for (const [row, s] of dense)
      expect(Array.from(w.subarray(row * D, row * D + D)), `row ${row}`).toEqual(Array.from(s.p))
    for (const row of [0, 2]) {
      expect(Array.from(w.subarray(row * D, row * D + D))).toEqual(Array.from(w0.subarray(row * D, row * D + D)))
      expect(m[row * D] + v[row * D]).toBe(0)
    }
  })

  test('U = 0 and rows ≥ R change nothing', () => {
    const w = Float32Array.from([1, 2]),
      rowStep = new Uint32Array(2)
    rowwiseAdam(
      w,
      new Float32Array(2),
      new Float32Array(2),
      rowStep,
      Float32Array.from([1]),
      Uint32Array.from([2]),
      { uniq: 1, dim: 1, totalRows: 2 },
      H,
    )
    rowwiseAdam(
      w,
      new Float32Array(2),
      new Float32Array(2),
      rowStep,
      new Float32Array(0),
      new Uint32Array(0),
      { uniq: 0, dim: 1, totalRows: 2 },
      H,
    )
    expect(Array.from(w)).toEqual([1, 2])
    expect(Array.from(rowStep)).toEqual([0, 0])
  })
})
