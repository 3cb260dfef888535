import { describe, expect, test } from 'vitest'
import { crossBackward } from '../../../src/kernels/recsys/cross_backward.ref.ts'
import { crossForward } from '../../../src/kernels/recsys/cross_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { dot, expectGradient } from './mlp-gradcheck.ts'

/** B = batch rows, C = C0 cross width; L = Σ g ⊙ out is a random linear functional of the output. */
describe('cross references', () => {
  test('forward: out = x0 ⊙ (z + bias) + xl, bias per column', () => {
    const out = new Float32Array(4)
    crossForward(
      new Float32Array([1, 2, 3, 4]),
      new Float32Array([10, 20, 30, 40]),
      new Float32Array([0.5, 1, 2, -1]),
      new Float32Array([1, -1]),
      out,
      2,
      2,
    )
    expect([...out]).toEqual([1 * 1.5 + 10, 2 * 0 + 20, 3 * 3 + 30, 4 * -2 + 40])
  })

  test.each([
    [1, 1],
    [3, 5],
    [4, 2],
  ])('backward is the gradient of Σ g·out w.r.t. x0, z, bias (xl separate: its gradient is g) (B=%i C=%i)', (b, c) => {
    const rng = new Rng(b * 31 + c)
    const x0 = rng.floats(b * c),
      xl = rng.floats(b * c),
      z = rng.floats(b * c),
      bias = rng.floats(c),
      g = rng.floats(b * c)
    const out = new Float32Array(b * c)
    const loss = (): number => {
      crossForward(x0, xl, z, bias, out, b, c)
      return dot(g, out)
    }
    const dz = new Float32Array(b * c),
      dx0 = new Float32Array(b * c).fill(Number.NaN),
      dbias = new Float32Array(c)
    crossBackward(g, x0, z, bias, dz, dx0, dbias, b, c, false, false)
    expectGradient(dx0, x0, 1e-2, loss, 1e-4, 1e-3, 'dx0')
    expectGradient(dz, z, 1e-2, loss, 1e-4, 1e-3, 'dz')
    expectGradient(dbias, bias, 1e-2, loss, 1e-4, 1e-3, 'dbias')
    expectGradient(g, xl, 1e-2, loss, 1e-4, 1e-3, 'dxl')
  })

  test('residual (layer 0, xl = x0): dx0 is the gradient through both uses of x0', () => {
    const b = 3,
      c = 4,
      rng = new Rng(77)
    const x0 = rng.floats(b * c),
      z = rng.floats(b * c),
      bias = rng.floats(c),
      g = rng.floats(b * c)
    const out = new Float32Array(b * c)
    const loss = (): number => {
      crossForward(x0, x0, z, bias, out, b, c)
      return dot(g, out)
    }
    const dz = new Float32Array(b * c),
      dx0 = new Float32Array(b * c),
      dbias = new Float32Array(c)
    crossBackward(g, x0, z, bias, dz, dx0, dbias, b, c, false, true)
    expectGradient(dx0, x0, 1e-2, loss, 1e-4, 1e-3, 'dx0')
  })

  test('accumulate adds x0’s share to dx0; dz and dbias are overwritten', () => {
    const b = 2,
      c = 3,
      rng = new Rng(5)
    const [dout, x0, z, bias, start] = [
      rng.floats(b * c),
      rng.floats(b * c),
      rng.floats(b * c),
      rng.floats(c),
      rng.floats(b * c),
    ]
    const fresh = { dz: new Float32Array(b * c), dx0: new Float32Array(b * c), db: new Float32Array(c) }
    crossBackward(dout, x0, z, bias, fresh.dz, fresh.dx0, fresh.db, b, c, false, false)
    const acc = { dz: new Float32Array(b * c).fill(9), dx0: start.slice(), db: new Float32Array(c).fill(9) }
    crossBackward(dout, x0, z, bias, acc.dz, acc.dx0, acc.db, b, c, true, false)
    expect(acc.dz).toEqual(fresh.dz)
    expect(acc.db).toEqual(fresh.db)
    acc.dx0.forEach((v, i) => expect(v).toBe(Math.fround(start[i] + fresh.dx0[i])))
  })

  test('B = 0 gives dbias = 0', () => {
    const dbias = new Float32Array(2).fill(9)
    const none = new Float32Array(0)
    crossBackward(none, none, none, new Float32Array(2), none, none, dbias, 0, 2, false, false)
    expect([...dbias]).toEqual([0, 0])
  })
})
