import { describe, expect, it } from 'vitest'
import { decode, encode, parseSpace, sample, searchDims } from '../../../src/tune/space.ts'
import { defaultSpace } from '../../../src/tune/defaults.ts'
import { grid, gridSize, gridValues } from '../../../src/tune/grid.ts'
import { Rng } from '../../../src/util/rng.ts'
import { MODEL_PARAMS } from '../../../src/sweep/model-params.ts'
import { familyOf } from '../../../src/models/registry.ts'

describe('parseSpace', () => {
  it('normalises fixed values, sorts keys and keeps domains', () => {
    const s = parseSpace({
      z: 3,
      eta: { type: 'loguniform', low: 0.01, high: 0.3 },
      a: { type: 'categorical', choices: [[1], [2, 3]] },
    })
    expect(Object.keys(s)).toEqual(['a', 'eta', 'z'])
    expect(s.z).toEqual({ type: 'fixed', value: 3 })
    expect(searchDims(s)).toEqual(['a', 'eta'])
  })

  it.each([
    [{ eta: { type: 'uniform', low: 0.5, high: 0.1 } }, undefined, /space\.eta: low 0\.5 > high 0\.1/],
    [{ eta: { type: 'loguniform', low: 0, high: 0.1 } }, undefined, /space\.eta: log scale needs low > 0, got 0/],
    [
      { max_depth: { type: 'int', low: 0, high: 4, log: true } },
      undefined,
      /space\.max_depth: log scale needs low > 0/,
    ],
    [{ max_depth: { type: 'int', low: 1.5, high: 4 } }, undefined, /space\.max_depth: int needs integer bounds/],
    [
      { layers: { type: 'categorical', choices: [] } },
      undefined,
      /space\.layers: categorical needs a non-empty "choices"/,
    ],
    [{ eta: { type: 'normal', low: 0, high: 1 } }, undefined, /space\.eta: unknown type "normal"/],
    [{ eta: { type: 'uniform', low: 'a', high: 1 } }, undefined, /space\.eta: uniform needs finite numbers/],
    [{ etaa: { type: 'uniform', low: 0.1, high: 0.2 } }, 'gbdt', /space\.etaa: unknown parameter for gbdt/],
    [
      { learning_rate: { type: 'uniform', low: 0.1, high: 0.2 } },
      'recsys',
      /space\.learning_rate: unknown parameter for recsys/,
    ],
    [{ eta: { type: 'uniform', low: 0.1, high: 2 } }, 'gbdt', /space\.eta: eta: must be a number in \(0, 1\]/],
    [
      { embedding_dim: { type: 'categorical', choices: [8, 0] } },
      'recsys',
      /space\.embedding_dim: embedding_dim must be an integer/,
    ],
    [
      { weight_decay: { type: 'loguniform', low: 1e-5, high: 1e-3 } },
      'recsys',
      /space: .*weight_decay .* needs optimizer 'adamw'/,
    ],
    [[1, 2], undefined, /space must be a JSON object/],
  ] as const)('refuses %j (model %s)', (raw, model, msg) => {
    expect(() => parseSpace(raw, model && MODEL_PARAMS[model])).toThrow(msg)
  })

  it("checks the middle configuration over the sweep's fixed parameters", () => {
    const wd = { weight_decay: { type: 'loguniform', low: 1e-5, high: 1e-3 } }
    expect(searchDims(parseSpace(wd, MODEL_PARAMS.recsys, { optimizer: 'adamw' }))).toEqual(['weight_decay'])
    const cross = {
      architecture: 'dcn',
      cross_layers: { type: 'int', low: 1, high: 4 },
      cross_rank: { type: 'categorical', choices: [0, 8, 16] },
    }
    expect(searchDims(parseSpace(cross, MODEL_PARAMS.recsys))).toEqual(['cross_layers', 'cross_rank'])
    expect(() => parseSpace({ ...cross, architecture: 'mlp' }, MODEL_PARAMS.recsys)).toThrow(
      /space: .*cross_layers .* needs architecture 'dcn'/,
    )
    expect(() =>
      parseSpace({ architecture: { type: 'categorical', choices: ['mlp', 'deep'] } }, MODEL_PARAMS.recsys),
    ).toThrow(/space\.architecture: architecture must be one of 'mlp', 'dcn'/)
    expect(() =>
      parseSpace({ learning_rate: { type: 'uniform', low: 0.1, high: 0.2 } }, MODEL_PARAMS.gbdt, { eta: 0.3 }),
    ).toThrow(/learning_rate: given twice/)
  })

  it('accepts the default spaces of both models', () => {
    const g = parseSpace(defaultSpace(familyOf('gbdt')), MODEL_PARAMS.gbdt)
    expect(searchDims(g)).toEqual([
      'alpha',
      'colsample_bylevel',
      'colsample_bytree',
      'eta',
      'max_depth',
      'min_child_weight',
      'num_round',
    ])
    expect(g.num_round).toEqual({ type: 'int', low: 27, high: familyOf('gbdt').sweep.resources.maxResource })
    const r = parseSpace(defaultSpace(familyOf('recsys')), MODEL_PARAMS.recsys)
    expect(searchDims(r)).toEqual(['batch_size', 'embedding_dim', 'epochs', 'layers', 'lr', 'weight_decay'])
    expect(r.optimizer).toEqual({ type: 'fixed', value: 'adamw' })
  })
})

describe('sample / encode / decode', () => {
  const s = parseSpace({
    u: { type: 'uniform', low: -1, high: 1 },
    l: { type: 'loguniform', low: 1e-4, high: 1 },
    i: { type: 'int', low: 2, high: 5 },
    il: { type: 'int', low: 1, high: 100, log: true },
    c: { type: 'categorical', choices: ['a', [1, 2], 3] },
    f: 'x',
  })

  it('samples inside the domains, deterministically per seed', () => {
    const a = new Rng(1),
      b = new Rng(1)
    for (let k = 0; k < 200; k++) {
      const x = sample(s, a)
      expect(x).toEqual(sample(s, b))
      expect(x.u as number).toBeGreaterThanOrEqual(-1)
      expect(x.u as number).toBeLessThan(1)
      expect(x.l as number).toBeGreaterThanOrEqual(1e-4)
      expect(x.l as number).toBeLessThanOrEqual(1)
      expect([2, 3, 4, 5]).toContain(x.i)
      expect(Number.isInteger(x.il) && (x.il as number) >= 1 && (x.il as number) <= 100).toBe(true)
      expect([JSON.stringify('a'), '[1,2]', '3']).toContain(JSON.stringify(x.c))
      expect(x.f).toBe('x')
    }
    expect(sample(s, new Rng(2))).not.toEqual(sample(s, new Rng(1)))
  })

  it('loguniform is uniform in log: about half the draws of [1e-4, 1] fall below 1e-2', () => {
    const rng = new Rng(5)
    const below = Array.from({ length: 2000 }, () => sample(s, rng).l as number).filter(v => v < 1e-2).length
    expect(below / 2000).toBeGreaterThan(0.45)
    expect(below / 2000).toBeLessThan(0.55)
  })

  it('decode(encode(x)) = x', () => {
    const rng = new Rng(9)
    for (let k = 0; k < 50; k++) {
      const x = sample(s, rng)
      const y = decode(s, encode(s, x))
      expect(y.c).toEqual(x.c)
      expect(y.i).toBe(x.i)
      expect(y.il).toBe(x.il)
      expect(y.u as number).toBeCloseTo(x.u as number, 9)
      expect(y.l as number).toBeCloseTo(x.l as number, 9)
    }
  })
})

describe('grid', () => {
  it('spaces continuous dims evenly (log for log scales) and lists every choice', () => {
    expect(gridValues({ type: 'uniform', low: 0, high: 1 }, 3)).toEqual([0, 0.5, 1])
    expect(
      (gridValues({ type: 'loguniform', low: 1e-3, high: 1e-1 }, 3) as number[]).map(v => +v.toPrecision(6)),
    ).toEqual([1e-3, 1e-2, 1e-1])
    expect(gridValues({ type: 'int', low: 1, high: 3 }, 5)).toEqual([1, 2, 3])
    expect(gridValues({ type: 'int', low: 1, high: 100, log: true }, 3)).toEqual([1, 10, 100])
    expect(gridValues({ type: 'categorical', choices: ['a', 'b'] }, 3)).toEqual(['a', 'b'])
    expect(gridValues({ type: 'uniform', low: 0, high: 4 }, 1)).toEqual([2])
  })
  it('is the cartesian product in a fixed order, last key fastest', () => {
    const s = parseSpace({
      b: { type: 'categorical', choices: ['x', 'y'] },
      a: { type: 'uniform', low: 0, high: 1 },
      f: 1,
    })
    expect(gridSize(s, 2)).toBe(4)
    expect(grid(s, 2)).toEqual([
      { a: 0, b: 'x', f: 1 },
      { a: 0, b: 'y', f: 1 },
      { a: 1, b: 'x', f: 1 },
      { a: 1, b: 'y', f: 1 },
    ])
    expect(grid(s, 2, 3)).toHaveLength(3)
  })
})
