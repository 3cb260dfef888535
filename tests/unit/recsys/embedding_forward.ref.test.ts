import { describe, expect, test } from 'vitest'
import { embeddingBackward } from '../../../src/kernels/recsys/embedding_backward.ref.ts'
import { embeddingForward } from '../../../src/kernels/recsys/embedding_forward.ref.ts'
import { embeddingSegments } from '../../../src/models/recsys/segments.ts'
import { Rng } from '../../../src/util/rng.ts'

/** L = Σ out·c for the gathered embeddings of `rows` (float64 sum of the f32 outputs). */
function loss(weights: Float32Array, rows: Uint32Array, c: Float32Array, dim: number, totalRows: number): number {
  const out = new Float32Array(rows.length * dim)
  embeddingForward(weights, rows, out, { positions: rows.length, dim, totalRows })
  return out.reduce((s, x, i) => s + x * c[i], 0)
}

/** dL/dweights [R × D] from the refs: segments → embedding_backward → scatter into the table. */
function analyticGrad(rows: Uint32Array, c: Float32Array, dim: number, totalRows: number): Float32Array {
  const { uniq, segStart, order } = embeddingSegments(rows, totalRows)
  const dRows = new Float32Array(uniq.length * dim)
  embeddingBackward(c, order, segStart, dRows, { uniq: uniq.length, dim, positions: rows.length })
  const grad = new Float32Array(totalRows * dim)
  uniq.forEach((row, u) => grad.set(dRows.subarray(u * dim, (u + 1) * dim), row * dim))
  return grad
}

describe('embeddingForward (reference)', () => {
  test('copies row rows[p] to out[p]; the last row R − 1 is reachable; rows ≥ R give zeros', () => {
    const weights = Float32Array.from([1, 2, 3, 4, 5, 6]) // R = 3, D = 2
    const out = new Float32Array(8).fill(9)
    embeddingForward(weights, Uint32Array.from([2, 0, 3, 2]), out, { positions: 4, dim: 2, totalRows: 3 })
    expect(Array.from(out)).toEqual([5, 6, 1, 2, 0, 0, 5, 6])
  })

  test('B = 0 writes nothing', () => {
    const out = Float32Array.from([7])
    embeddingForward(new Float32Array(4), new Uint32Array(0), out, { positions: 0, dim: 4, totalRows: 1 })
    expect(out[0]).toBe(7)
  })

  test.each([
    [1, 5],
    [3, 4],
    [17, 6],
  ])('finite differences match the backward pass (D = %i, R = %i)', (dim, totalRows) => {
    const rng = new Rng(dim * 100 + totalRows)
    // Row 1 repeats many times; row R − 1 appears; some rows never do (gradient 0).
    const rows = Uint32Array.from([1, totalRows - 1, 1, 1, 0, 1, totalRows - 1, 1])
    const weights = rng.floats(totalRows * dim)
    const c = rng.floats(rows.length * dim)
    const grad = analyticGrad(rows, c, dim, totalRows)
    const h = 2 ** -6
    for (let i = 0; i < weights.length; i++) {
      const w0 = weights[i]
      weights[i] = w0 + h
      const up = loss(weights, rows, c, dim, totalRows)
      weights[i] = w0 - h
      const down = loss(weights, rows, c, dim, totalRows)
      weights[i] = w0
      expect((up - down) / (2 * h), `d weights[${i}]`).toBeCloseTo(grad[i], 4)
    }
    expect(grad.some(g => g !== 0)).toBe(true)
  })
})
