/** The specs' dispatch geometry and the call builders' argument checks (no GPU needed). */
import { describe, expect, test } from 'vitest'
import { adagradCall, adagradSpec } from '../../../src/kernels/recsys/adagrad.ts'
import { adamCall, adamSpec } from '../../../src/kernels/recsys/adam.ts'
import { embeddingBackwardCall, embeddingBackwardSpec } from '../../../src/kernels/recsys/embedding_backward.ts'
import { embeddingForwardCall, embeddingForwardSpec } from '../../../src/kernels/recsys/embedding_forward.ts'
import { rowwiseAdamCall, rowwiseAdamSpec } from '../../../src/kernels/recsys/rowwise_adam.ts'

const buf = {} as GPUBuffer
const H = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 }

describe('recsys embedding/optimizer specs', () => {
  test('grids cover the work and fold past 65535 workgroups (the parity tests run these shapes)', () => {
    expect(embeddingForwardSpec.dispatchSize({ positions: 69_000, dim: 2, totalRows: 5000 }, { WG: 1 })).toEqual([
      34_500, 2, 1,
    ])
    expect(embeddingForwardSpec.dispatchSize({ positions: 100, dim: 16, totalRows: 5 }, { WG: 64 })).toEqual([2, 1, 1])
    expect(embeddingBackwardSpec.dispatchSize({ uniq: 5000, dim: 16, positions: 20_000 }, { WG: 1 })[1]).toBe(2)
    expect(adamSpec.dispatchSize({ params: 65_537 }, { WG: 1 })[1]).toBe(2)
    expect(adagradSpec.dispatchSize({ uniq: 4500, dim: 16, totalRows: 5000 }, { WG: 1 })[1]).toBe(2)
    expect(rowwiseAdamSpec.dispatchSize({ uniq: 65_537, dim: 1, totalRows: 70_000 }, { WG: 1 })[1]).toBe(2)
    expect(adamSpec.dispatchSize({ params: 0 }, { WG: 256 })).toEqual([0, 0, 0])
  })

  test('uniform field names match the WGSL Params structs, in order', () => {
    for (const spec of [embeddingForwardSpec, embeddingBackwardSpec, adamSpec, adagradSpec, rowwiseAdamSpec]) {
      const struct = /struct Params \{([^}]*)\}/.exec(spec.code)?.[1] ?? ''
      const fields = [...struct.matchAll(/(\w+):\s*(\w+)/g)].map(m => `${m[1]}:${m[2]}`)
      expect(fields, spec.name).toEqual(spec.uniforms.map(u => `${u.name}:${u.type}`))
      spec.bindings.forEach(b =>
        expect(spec.code, `${spec.name} binding ${b.name}`).toContain(
          `@binding(${b.binding}) var<${b.kind === 'uniform' ? 'uniform' : 'storage'}`,
        ),
      )
    }
  })

  test('call builders reject bad shapes and hyperparameters, naming them', () => {
    expect(() =>
      embeddingForwardCall({ weights: buf, rows: buf, out: buf }, { positions: 1, dim: 0, totalRows: 1 }),
    ).toThrow(/embedding_forward: dim must be an integer ≥ 1, got 0/)
    expect(() =>
      embeddingForwardCall({ weights: buf, rows: buf, out: buf }, { positions: 2 ** 28, dim: 16, totalRows: 1 }),
    ).toThrow(/positions·dim = .* exceeds the u32 index range/)
    expect(() =>
      embeddingBackwardCall({ dout: buf, order: buf, segStart: buf, dRows: buf }, { uniq: 3, dim: 1, positions: 2 }),
    ).toThrow(/uniq 3 > positions 2/)
    expect(() => adamCall({ weights: buf, grads: buf, m: buf, v: buf }, { params: 1 }, { ...H, t: 0 })).toThrow(
      /adam: t must be an integer ≥ 1, got 0/,
    )
    expect(() =>
      adamCall({ weights: buf, grads: buf, m: buf, v: buf }, { params: 1 }, { ...H, beta2: 1, t: 1 }),
    ).toThrow(/adam: beta2 out of range, got 1/)
    expect(() =>
      adagradCall(
        { weights: buf, accum: buf, dRows: buf, uniq: buf },
        { uniq: 1, dim: 1, totalRows: 1 },
        { lr: 0.1, eps: 0 },
      ),
    ).toThrow(/adagrad: eps must be > 0/)
    const rb = { weights: buf, m: buf, v: buf, rowStep: buf, dRows: buf, uniq: buf }
    expect(() => rowwiseAdamCall(rb, { uniq: 1.5, dim: 1, totalRows: 1 }, H)).toThrow(
      /rowwise_adam: uniq must be an integer/,
    )
    expect(() => rowwiseAdamCall(rb, { uniq: 1, dim: 1, totalRows: 1 }, { ...H, lr: -1 })).toThrow(
      /rowwise_adam: lr out of range/,
    )
  })

  test('rowwise_adam passes no step uniform (each row brings its own)', () => {
    const call = rowwiseAdamCall(
      { weights: buf, m: buf, v: buf, rowStep: buf, dRows: buf, uniq: buf },
      { uniq: 2, dim: 4, totalRows: 9 },
      H,
    )
    expect(Object.keys(call.uniforms ?? {}).sort()).toEqual([
      'beta1',
      'beta2',
      'dim',
      'eps',
      'lr',
      'totalRows',
      'uniq',
      'weight_decay',
    ])
  })
})
