import { afterEach, expect, test } from 'vitest'
import '../../src/ui/train-curve.ts'
import { cleanup, fixture, textOf } from './fixture.ts'

afterEach(cleanup)

test('empty until the first round, then one uPlot point per round, updated in place', async () => {
  const el = await fixture('st-train-curve', { history: [] })
  expect(textOf(el)).toContain('first round')
  expect(el.shadowRoot!.querySelector('canvas')).toBeNull()
  el.history = [{ auc: 0.7, logloss: 0.5 }]
  await el.updateComplete
  const canvas = el.shadowRoot!.querySelector('canvas')
  expect(canvas).not.toBeNull()
  expect(el.dataset.points).toBe('1')
  el.history = [...el.history, { auc: 0.72, logloss: 0.45 }, { auc: 0.74, logloss: 0.41 }]
  await el.updateComplete
  expect(el.dataset.points).toBe('3')
  // Same metrics: the plot is updated, not rebuilt.
  expect(el.shadowRoot!.querySelector('canvas')).toBe(canvas)
  expect(textOf(el)).toMatch(/auc/)
  expect(textOf(el)).toMatch(/logloss/)
})

test('another metric set rebuilds the plot; clearing removes it', async () => {
  const el = await fixture('st-train-curve', { history: [{ rmse: 1 }, { rmse: 0.8 }] })
  const first = el.shadowRoot!.querySelector('canvas')
  expect(first).not.toBeNull()
  el.history = [{ error: 0.2 }]
  await el.updateComplete
  expect(el.shadowRoot!.querySelector('canvas')).not.toBe(first)
  el.history = []
  await el.updateComplete
  expect(el.shadowRoot!.querySelector('canvas')).toBeNull()
  expect(el.dataset.points).toBe('0')
})

test('metrics it has not seen before: larger-is-better ones on the left axis, the rest on the right, each its own colour', async () => {
  const history = [
    { aucpr: 0.6, 'tweedie-nloglik@1.5': 3.2, mae: 1.1, 'error@0.3': 0.3 },
    { aucpr: 0.65, 'tweedie-nloglik@1.5': 3.0, mae: 1.0, 'error@0.3': 0.25 },
  ]
  const el = await fixture('st-train-curve', { history })
  const plot = (
    el as unknown as { chart: { plot: { series: Array<{ label: string; scale: string; stroke: unknown }> } } }
  ).chart.plot
  const series = plot.series.slice(1).map(s => [s.label, s.scale])
  expect(series).toEqual([
    ['aucpr', 'auc'],
    ['tweedie-nloglik@1.5', 'loss'],
    ['mae', 'loss'],
    ['error@0.3', 'loss'],
  ])
  const strokes = plot.series
    .slice(1)
    .map(s => String(typeof s.stroke === 'function' ? (s.stroke as () => string)() : s.stroke))
  expect(new Set(strokes).size).toBe(4)
  for (const name of ['aucpr', 'tweedie-nloglik@1.5', 'mae', 'error@0.3']) expect(textOf(el)).toContain(name)
})

/** The drawn series: label, scale, colour and dash (undefined = solid). */
function drawn(el: HTMLElement) {
  const plot = (
    el as unknown as {
      chart: { plot: { series: Array<{ label: string; scale: string; stroke: unknown; dash?: number[] }> } }
    }
  ).chart.plot
  return plot.series.slice(1).map(s => ({
    label: s.label,
    scale: s.scale,
    stroke: String(typeof s.stroke === 'function' ? (s.stroke as () => string)() : s.stroke),
    dashed: Array.isArray(s.dash) && s.dash.length > 0,
  }))
}

test('training-rows metrics (train-auc, …): dashed, in their validation metric’s colour and scale', async () => {
  const history = [
    { auc: 0.7, logloss: 0.5, 'train-auc': 0.75, 'train-logloss': 0.45 },
    { auc: 0.72, logloss: 0.48, 'train-auc': 0.8, 'train-logloss': 0.4 },
  ]
  const el = await fixture('st-train-curve', { history })
  const s = drawn(el)
  expect(s.map(x => [x.label, x.scale, x.dashed])).toEqual([
    ['auc', 'auc', false],
    ['logloss', 'loss', false],
    ['train-auc', 'auc', true],
    ['train-logloss', 'loss', true],
  ])
  expect(s[2].stroke).toBe(s[0].stroke)
  expect(s[3].stroke).toBe(s[1].stroke)
  expect(s[0].stroke).not.toBe(s[1].stroke)
  expect(textOf(el)).toContain('Training (dashed) and validation metrics per round')
  // Validation only: solid lines, the validation heading.
  el.history = [{ auc: 0.7, logloss: 0.5 }]
  await el.updateComplete
  expect(drawn(el).some(x => x.dashed)).toBe(false)
  expect(textOf(el)).toContain('Validation metrics per round')
})

test('the recommender’s calibration has an axis of its own, not the loss axis', async () => {
  const history = [
    { train_loss: 0.5, auc: 0.7, logloss: 0.45, calibration: 1.1 },
    { train_loss: 0.4, auc: 0.72, logloss: 0.44, calibration: 1.02 },
  ]
  const el = await fixture('st-train-curve', { history, xLabel: 'evaluation' })
  expect(drawn(el).map(x => [x.label, x.scale])).toEqual([
    ['train_loss', 'loss'],
    ['auc', 'auc'],
    ['logloss', 'loss'],
    ['calibration', 'calibration'],
  ])
  const axes = (el as unknown as { chart: { plot: { axes: Array<{ scale: string; label?: string }> } } }).chart.plot
    .axes
  expect(axes.find(a => a.scale === 'calibration')?.label).toMatch(/calibration/)
  expect(axes.find(a => a.scale === 'loss')?.label).not.toMatch(/calibration/)
})
