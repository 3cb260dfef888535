import { afterEach, expect, test } from 'vitest'
import '../../src/ui/run-explanation.ts'
import type { Explanation } from '../../src/api-types.ts'
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
