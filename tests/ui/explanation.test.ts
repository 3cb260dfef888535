import { afterEach, describe, expect, test } from 'vitest'
import '../../src/ui/run-explanation.ts'
import type { Explanation } from '../../src/api-types.ts'
import { train } from '../../src/models/gbdt/driver.ts'
import { parseParams } from '../../src/models/gbdt/params.ts'
import { treeShap } from '../../src/models/gbdt/shap.ts'
import { allImportances } from '../../src/models/gbdt/importance.ts'
import { shapSummary } from '../../src/models/gbdt/explain-run.ts'
import { categorySwatches } from '../../src/ui/shap-summary.ts'
import { Rng } from '../../src/util/rng.ts'
import { cleanup, fixture, textOf } from './fixture.ts'

afterEach(cleanup)

const IMPORTANCE: Explanation['importance'] = {
  weight: { age: 7, job: 2, month: 4 },
  gain: { age: 1.5, job: 9.25, month: 3 },
  cover: { age: 40, job: 10, month: 20 },
  total_gain: { age: 10.5, job: 18.5, month: 12 },
  total_cover: { age: 280, job: 20, month: 80 },
}

/** Bars in order as [name, value, width in % of the largest]. */
function bars(root: ShadowRoot): Array<[string, number, number]> {
  return [...root.querySelectorAll<HTMLElement>('.row')].map(r => [
    r.dataset.name!,
    Number(r.dataset.value),
    Number.parseFloat(r.querySelector<HTMLElement>('.bar')!.style.width),
  ])
}

test('importance bars follow the chosen type; arrow keys move along the type chooser', async () => {
  const el = await fixture('st-feature-importance', { importance: IMPORTANCE })
  const root = el.shadowRoot!
  expect(root.querySelector('[aria-pressed=true]')!.textContent).toBe('gain')
  expect(bars(root)).toEqual([
    ['job', 9.25, 100],
    ['month', 3, 32.4],
    ['age', 1.5, 16.2],
  ])
  root.querySelector<HTMLButtonElement>('button[data-type=total_cover]')!.click()
  await el.updateComplete
  expect(bars(root).map(b => b[0])).toEqual(['age', 'month', 'job'])
  expect(bars(root)[0][1]).toBe(280)
  expect(textOf(el)).toContain('total_cover: total hessian sum')
  const group = root.querySelector<HTMLElement>('[role=group]')!
  group.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }))
  await el.updateComplete
  // Past the last type the chooser wraps to the first.
  expect(root.querySelector('[aria-pressed=true]')!.textContent).toBe('weight')
  expect(bars(root)).toEqual([
    ['age', 7, 100],
    ['month', 4, 57.1],
    ['job', 2, 28.6],
  ])
  await new Promise(r => requestAnimationFrame(r))
  expect(root.activeElement?.textContent).toBe('weight')
})

test('a model without splits says so', async () => {
  const empty = Object.fromEntries(Object.keys(IMPORTANCE).map(k => [k, {}])) as Explanation['importance']
  const el = await fixture('st-feature-importance', { importance: empty })
  expect(el.shadowRoot!.querySelectorAll('.row')).toHaveLength(0)
  expect(textOf(el)).toContain('no splits')
})

/** Three rows of a 3-feature model: SHAP columns a, b, c, bias. */
function explanation(): Explanation {
  return {
    features: ['a', 'b', 'c'],
    importance: IMPORTANCE,
    shap: Float32Array.from([0.1, -2, 0, 0.5, -0.3, 1, 0, 0.5, 0.2, 3, 0, 0.5]),
    meanAbsShap: [
      { feature: 'b', mean_abs_shap: 2 },
      { feature: 'a', mean_abs_shap: 0.2 },
      { feature: 'c', mean_abs_shap: 0 },
    ],
    values: Float32Array.from([1, 5, 0, 2, NaN, 0, 3, 7, 0]),
    rows: 3,
    validRows: 10,
    adapter: 'fake adapter',
  }
}

test('SHAP summary: bars by mean |SHAP| (zero ones left out) and a beeswarm of one dot per row and feature', async () => {
  const el = await fixture('st-shap-summary', { explanation: explanation() })
  const root = el.shadowRoot!
  expect(bars(root)).toEqual([
    ['b', 2, 100],
    ['a', 0.2, 10],
  ])
  const canvas = root.querySelector('canvas')!
  expect(canvas.height).toBeGreaterThan(0)
  expect(el.dataset.features).toBe('b,a')
  expect(el.dataset.points).toBe('6')
  expect(textOf(el)).toContain("over 3 of the run's 10 validation rows (an evenly spaced sample)")
  expect(textOf(el)).toContain('Computed on fake adapter.')
})

test('SHAP beeswarm: a categorical feature is coloured by category, named in a legend (most rows first), not by code', async () => {
  // 12 rows; job codes: 'services' (2) on 6 rows, 'admin.' (0) on 4, 'blue-collar' (1) on 1, one missing.
  const codes = [2, 0, 2, 0, 2, 1, 2, 0, 2, NaN, 2, 0]
  const e: Explanation = {
    ...explanation(),
    features: ['age', 'job'],
    shap: Float32Array.from(codes.flatMap((c, i) => [0.1 * i, Number.isNaN(c) ? 0 : c - 1, 0.5])),
    meanAbsShap: [
      { feature: 'job', mean_abs_shap: 0.8 },
      { feature: 'age', mean_abs_shap: 0.5 },
    ],
    values: Float32Array.from(codes.flatMap((c, i) => [20 + i, c])),
    rows: 12,
    categories: { job: ['admin.', 'blue-collar', 'services'] },
  }
  const el = await fixture('st-shap-summary', { explanation: e })
  const root = el.shadowRoot!
  expect(el.dataset.points).toBe('24')
  const legends = [...root.querySelectorAll<HTMLElement>('.categories')]
  expect(legends.map(l => l.dataset.feature)).toEqual(['job']) // age is numeric: blue low … red high
  const swatches = [...legends[0].querySelectorAll<HTMLElement>('.category')]
  expect(swatches.map(x => x.dataset.category)).toEqual(['services', 'admin.', 'blue-collar'])
  expect(swatches.map(x => x.title)).toEqual(['6 of the 12 rows', '4 of the 12 rows', '1 of the 12 rows'])
  const colours = swatches.map(x => x.querySelector<HTMLElement>('.swatch')!.style.background)
  expect(new Set(colours).size).toBe(3)
  expect(textOf(el)).toContain('categorical features by category')
  // Without categories (an older stored explanation) the same codes are ranked values: no legend.
  el.explanation = { ...e, categories: undefined }
  await el.updateComplete
  expect(root.querySelectorAll('.categories')).toHaveLength(0)
})

test('category swatches: the nine most frequent categories each a colour, the rest one "others" swatch', () => {
  const codes = Array.from({ length: 12 }, (_, c) => Array.from({ length: 12 - c }, () => c)).flat()
  const names = Array.from({ length: 12 }, (_, c) => `c${c}`)
  const s = categorySwatches(Float32Array.from(codes), codes.length, 1, 0, names)
  expect(s.map(x => x.name)).toEqual([...names.slice(0, 9), '3 others'])
  expect(s.map(x => x.rows)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3 + 2 + 1])
  expect(new Set(s.slice(0, 9).map(x => x.colour)).size).toBe(9)
})

test('the explanation block: waiting note, error, then both charts', async () => {
  const el = await fixture('st-run-explanation', { state: 'loading', maxRows: 2000 })
  expect(textOf(el)).toContain('up to 2,000 validation rows')
  el.state = 'error'
  el.error = {
    context: 'Explaining the model of m',
    message: 'explain: the run on t has no validation rows',
    causes: [],
  }
  await el.updateComplete
  const alert = el.shadowRoot!.querySelector('st-error-view')!
  await alert.updateComplete
  expect(textOf(alert)).toContain('no validation rows')
  el.state = 'ready'
  el.explanation = explanation()
  await el.updateComplete
  const imp = el.shadowRoot!.querySelector('st-feature-importance')!
  const shap = el.shadowRoot!.querySelector('st-shap-summary')!
  await imp.updateComplete
  await shap.updateComplete
  expect(imp.shadowRoot!.querySelectorAll('.row')).toHaveLength(3)
  expect(shap.dataset.points).toBe('6')
})

describe('SHAP summary of a multiclass model (K = 3, trained here on the CPU reference)', () => {
  const K = 3,
    F = 3,
    names = ['a', 'b', 'noise']
  /** Rows whose class is a's sign + b's sign (classes 0, 1, 2), plus a noise column. */
  function rows(n: number, rng: Rng) {
    const columns = names.map(() => Float32Array.from({ length: n }, () => rng.uniform(-1, 1)))
    const labels = Float32Array.from({ length: n }, (_, i) => Number(columns[0][i] > 0) + Number(columns[1][i] > 0.3))
    return { columns, labels }
  }

  async function multiclassExplanation(): Promise<Explanation> {
    const rng = new Rng(29)
    const valid = rows(60, rng)
    const params = parseParams({ objective: 'multi:softprob', num_class: K, num_round: 3, max_depth: 3 })
    const trained = await train({ ...rows(400, rng), featureNames: names, valid }, params)
    const booster = { ...trained, labelValues: ['cat', 'dog', 'eel'] }
    const shap = treeShap(booster, valid.columns)
    const values = new Float32Array(60 * F)
    for (let f = 0; f < F; f++) for (let i = 0; i < 60; i++) values[i * F + f] = valid.columns[f][i]
    return {
      features: names,
      importance: allImportances(booster),
      ...shapSummary(booster, shap),
      values,
      rows: 60,
      validRows: 60,
      adapter: 'cpu (reference)',
    }
  }

  /** Mean |φ| per feature of class k over the rows (every class summed for 'all'), computed here; non-zero ones. */
  function meanAbs(e: Explanation, k: number | 'all'): Map<string, number> {
    const sums = new Float64Array(F)
    for (let i = 0; i < e.rows; i++)
      for (let c = 0; c < K; c++)
        if (k === 'all' || c === k) for (let f = 0; f < F; f++) sums[f] += Math.abs(e.shap[(i * K + c) * (F + 1) + f])
    return new Map(names.map((n, f) => [n, sums[f] / e.rows] as const).filter(([, v]) => v > 0))
  }

  function expectBars(root: ShadowRoot, want: Map<string, number>) {
    const got = bars(root)
    expect(got.map(b => b[0]).sort()).toEqual([...want.keys()].sort())
    for (const [name, value] of got) expect(value, name).toBeCloseTo(want.get(name)!, 9)
    // Largest first.
    expect(got.map(b => b[1])).toEqual([...got.map(b => b[1])].sort((x, y) => y - x))
  }

  test('class 0 first, each class its own bars and beeswarm; all classes: the bars summed, no beeswarm', async () => {
    const e = await multiclassExplanation()
    expect(e.classes).toBe(K)
    expect(e.shap.length).toBe(60 * K * (F + 1))
    const el = await fixture('st-shap-summary', { explanation: e })
    const root = el.shadowRoot!
    const select = root.querySelector<HTMLSelectElement>('select#shap-class')!
    expect([...select.options].map(o => o.textContent)).toEqual(['cat', 'dog', 'eel', 'all classes (summed)'])
    expect(select.value).toBe('0')
    const perClass = [0, 1, 2].map(k => meanAbs(e, k))
    // The classes' bars differ (the check below can tell them apart).
    expect(perClass[0].get('a')).not.toBeCloseTo(perClass[1].get('a')!, 3)
    expectBars(root, perClass[0])
    expect(textOf(el)).toContain("class cat's margin")
    for (const k of [1, 2, 0]) {
      select.value = String(k)
      select.dispatchEvent(new Event('change'))
      await el.updateComplete
      expectBars(root, perClass[k])
      expect(el.dataset.points).toBe(String(60 * perClass[k].size))
      expect(el.dataset.features).toBe(
        bars(root)
          .map(b => b[0])
          .join(','),
      )
      // The dots' axis spans class k's SHAP values of those features (and 0).
      let lo = 0,
        hi = 0
      for (const name of perClass[k].keys())
        for (let i = 0; i < e.rows; i++) {
          const v = e.shap[(i * K + k) * (F + 1) + names.indexOf(name)]
          lo = Math.min(lo, v)
          hi = Math.max(hi, v)
        }
      expect(el.dataset.range).toBe(`${lo},${hi}`)
    }
    select.value = 'all'
    select.dispatchEvent(new Event('change'))
    await el.updateComplete
    const all = meanAbs(e, 'all')
    expectBars(root, all)
    for (const [name, v] of all)
      expect(v).toBeCloseTo(
        perClass.reduce((s, m) => s + (m.get(name) ?? 0), 0),
        9,
      )
    expect(root.querySelector('canvas')).toBeNull()
    expect(el.dataset.points).toBe('0')
    expect(textOf(el)).toContain('summed over the 3 classes')
    expect(textOf(el)).toContain('choose a class for its beeswarm')
  })

  test('one output per row: no class picker', async () => {
    const el = await fixture('st-shap-summary', { explanation: explanation() })
    expect(el.shadowRoot!.querySelector('select')).toBeNull()
  })
})
