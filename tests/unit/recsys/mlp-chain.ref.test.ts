/**
 * The MLP references compose: a 2-layer net (matmul → bias+ReLU → matmul → bias → BCE mean) whose
 * backward chain of refs matches finite differences of its forward chain, as R3's train step will
 * wire the kernels. B = 4 rows, C = 3 inputs, H = 5 hidden, one logit.
 */
import { describe, test } from 'vitest'
import { bceLossBackward } from '../../../src/kernels/recsys/bce_loss_backward.ref.ts'
import { bceLossForward } from '../../../src/kernels/recsys/bce_loss_forward.ref.ts'
import { biasReluBackward } from '../../../src/kernels/recsys/bias_relu_backward.ref.ts'
import { biasReluForward } from '../../../src/kernels/recsys/bias_relu_forward.ref.ts'
import { matmulBackwardDinp } from '../../../src/kernels/recsys/matmul_backward_dinp.ref.ts'
import { matmulBackwardDweight } from '../../../src/kernels/recsys/matmul_backward_dweight.ref.ts'
import { matmulForward } from '../../../src/kernels/recsys/matmul_forward.ref.ts'
import { Rng } from '../../../src/util/rng.ts'
import { expectGradient } from './mlp-gradcheck.ts'

const B = 4,
  C = 3,
  H = 5
const rng = new Rng(11)
const x = rng.floats(B * C),
  w1 = rng.floats(H * C),
  b1 = rng.floats(H, -0.2, 0.2),
  w2 = rng.floats(H),
  b2 = rng.floats(1)
const y = Float32Array.from([1, 0, 1, 0])

/** Forward pass; returns the mean loss and the activations backward needs. */
function forward(): { mean: number; a1: Float32Array; z: Float32Array } {
  const h1 = new Float32Array(B * H),
    a1 = new Float32Array(B * H),
    h2 = new Float32Array(B),
    z = new Float32Array(B)
  matmulForward(x, w1, h1, B, C, H)
  biasReluForward(h1, b1, a1, B, H, true)
  matmulForward(a1, w2, h2, B, H, 1)
  biasReluForward(h2, b2, z, B, 1, false)
  const loss = new Float32Array(B),
    probs = new Float32Array(B)
  bceLossForward(z, y, null, loss, probs, B)
  return { mean: loss.reduce((s, v) => s + v, 0) / B, a1, z }
}

describe('MLP reference chain', () => {
  test('backward refs give the finite-difference gradient of every parameter and the input', () => {
    const { a1, z } = forward()
    const dz = new Float32Array(B),
      dh2 = new Float32Array(B),
      db2 = new Float32Array(1),
      dw2 = new Float32Array(H)
    bceLossBackward(z, y, null, dz, B, B)
    biasReluBackward(dz, z, dh2, db2, B, 1, false)
    matmulBackwardDweight(dh2, a1, dw2, B, H, 1, false)
    const da1 = new Float32Array(B * H),
      dh1 = new Float32Array(B * H),
      db1 = new Float32Array(H),
      dw1 = new Float32Array(H * C),
      dx = new Float32Array(B * C)
    matmulBackwardDinp(dh2, w2, da1, B, H, 1)
    biasReluBackward(da1, a1, dh1, db1, B, H, true)
    matmulBackwardDweight(dh1, x, dw1, B, C, H, false)
    matmulBackwardDinp(dh1, w1, dx, B, C, H)
    const loss = (): number => forward().mean
    const grads: [string, Float32Array, Float32Array][] = [
      ['b2', db2, b2],
      ['w2', dw2, w2],
      ['b1', db1, b1],
      ['w1', dw1, w1],
      ['x', dx, x],
    ]
    for (const [name, g, p] of grads) expectGradient(g, p, 1e-3, loss, 3e-5, 3e-3, name)
  })
})
