/** Finite-difference helpers for the recsys reference gradient checks (tiny shapes, Node only). */
import { expect } from 'vitest'

/**
 * Central difference of `loss` (a function of the current contents of `x`) at element i:
 * (L(x + h) − L(x − h)) / (x₊ − x₋), where x± are the f32 values actually stored, so rounding of
 * the perturbed input does not bias the slope.
 */
export function centralDiff(x: Float32Array, i: number, eps: number, loss: () => number): number {
  const x0 = x[i]
  x[i] = x0 + eps
  const up = x[i],
    lUp = loss()
  x[i] = x0 - eps
  const down = x[i],
    lDown = loss()
  x[i] = x0
  return (lUp - lDown) / (up - down)
}

/** Σ g[i]·y[i] in f64: a random linear functional, so dL/dy = g. */
export function dot(g: ArrayLike<number>, y: ArrayLike<number>): number {
  let s = 0
  for (let i = 0; i < g.length; i++) s += g[i] * y[i]
  return s
}

/** Asserts every analytic gradient entry matches its finite difference within atol + rtol·|fd|. */
export function expectGradient(
  analytic: ArrayLike<number>,
  x: Float32Array,
  eps: number,
  loss: () => number,
  atol: number,
  rtol: number,
  what: string,
): void {
  expect(analytic.length, `${what}: gradient length`).toBe(x.length)
  for (let i = 0; i < x.length; i++) {
    const fd = centralDiff(x, i, eps, loss)
    expect(
      Math.abs(analytic[i] - fd),
      `${what}[${i}]: analytic ${analytic[i]} vs finite difference ${fd}`,
    ).toBeLessThanOrEqual(atol + rtol * Math.abs(fd))
  }
}
