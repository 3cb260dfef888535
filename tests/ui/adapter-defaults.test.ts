/**
 * The forms on a software adapter (SwiftShader): the train panel proposes the smaller parameters
 * and says why under the form, and once a run on this adapter kept its rate, the run's cost in
 * minutes; the sweep form's default max resource is the smaller one, its cost line in minutes too.
 */
import { afterEach, beforeEach, expect, test } from 'vitest'
import '../../src/ui/train-panel.ts'
import '../../src/ui/sweep-setup.ts'
import { adapterLabel } from '../../src/gpu/device.ts'
import { familyOf } from '../../src/models/registry.ts'
import { keepRate, pageParamsFor, rateKey } from '../../src/ui/adapter-defaults.ts'
import type { AdapterView, SweepConfig, SweepPlanView } from '../../src/ui/types.ts'
import { cleanup, fixture, textOf } from './fixture.ts'

const SOFTWARE: AdapterView = {
  vendor: 'google',
  architecture: 'swiftshader',
  device: '',
  description: 'test',
  isFallbackAdapter: true,
  limits: {},
  features: [],
}
const fields = ['age', 'job', 'y'].map(name => ({
  name,
  type: name === 'job' ? 'string' : 'integer',
  nullable: false,
  metadata: {},
}))

/** No kept rate of this adapter: other files' runs in this browser may have kept one under its label. */
function forgetRates() {
  for (const model of ['gbdt', 'recsys']) localStorage.removeItem(rateKey(adapterLabel(SOFTWARE), model))
}
beforeEach(forgetRates)
afterEach(() => {
  cleanup()
  forgetRates()
})

/** Picks `model` in a form's model menu. */
async function pick(el: HTMLElement & { updateComplete: Promise<boolean> }, model: string) {
  const menu = el.shadowRoot!.querySelector('#model') as HTMLSelectElement
  menu.value = model
  menu.dispatchEvent(new Event('change'))
  await el.updateComplete
}

test('train panel: smaller parameters on a software adapter, said why; minutes once a rate is kept', async () => {
  const panel = await fixture('st-train-panel', { fields })
  const area = () => panel.shadowRoot!.querySelector('textarea') as HTMLTextAreaElement
  expect(area().value).toBe(familyOf('gbdt').pageParams)
  expect(panel.shadowRoot!.querySelector('.cost')).toBeNull()
  // The adapter answers after the first render.
  panel.adapter = SOFTWARE
  await panel.updateComplete
  expect(area().value).toBe(pageParamsFor('gbdt', SOFTWARE))
  expect(JSON.parse(area().value).num_round).toBe(10)
  expect(textOf(panel)).toContain('Software adapter (google): WebGPU runs on the CPU here')
  expect(textOf(panel)).not.toContain('This run: about')
  keepRate(adapterLabel(SOFTWARE), 'gbdt', 5, 10, 'round') // a run: 0.5 rounds/s
  panel.requestUpdate()
  await panel.updateComplete
  expect(textOf(panel)).toContain(
    "This run: about 20 s (10 rounds at 0.50 rounds/s, measured on this adapter's last gbdt run",
  )
})

test('sweep setup: a software adapter gets the smaller max resource and the cost in minutes', async () => {
  keepRate(adapterLabel(SOFTWARE), 'gbdt', 1, 2, 'round')
  const planned: SweepConfig[] = []
  const planner = (c: SweepConfig): SweepPlanView => {
    planned.push(c)
    return { errors: [], trials: 4, brackets: [{ index: 0, rungs: [] }], resourceTotal: 60, resourceFullBudget: 108 }
  }
  const el = await fixture('st-sweep-setup', {
    fields,
    table: { url: 'http://h/m/', version: 0 },
    planner,
    adapter: SOFTWARE,
    spaceOf: () => ({ eta: { type: 'loguniform', low: 0.01, high: 0.3 } }),
  })
  expect((el.shadowRoot!.querySelector('#maxResource') as HTMLInputElement).value).toBe('27')
  expect(planned.at(-1)?.maxResource).toBe(27)
  expect(textOf(el)).toContain('60 boosting rounds in total')
  expect(textOf(el)).toContain('about 2 min (60 rounds at 0.50 rounds/s')
  expect(textOf(el)).toContain('Software adapter (google)')
})

test("train panel, recommender: steps from the table's rows and batch size at the kept steps/s; no rows, said so", async () => {
  keepRate(adapterLabel(SOFTWARE), 'recsys', 5, 10, 'step') // a run: 0.5 steps/s
  const panel = await fixture('st-train-panel', { fields, adapter: SOFTWARE, rows: 40_000 })
  await pick(panel, 'recsys')
  const area = panel.shadowRoot!.querySelector('textarea') as HTMLTextAreaElement
  area.value = JSON.stringify({ ...JSON.parse(area.value), batch_size: 4096, epochs: 2 })
  area.dispatchEvent(new Event('input'))
  await panel.updateComplete
  // ⌈40000 / 4096⌉ = 10 steps an epoch × 2 epochs = 20 steps at 0.5 steps/s.
  expect(textOf(panel)).toContain(
    "This run: about 40 s (20 steps at 0.50 steps/s, measured on this adapter's last recsys run; assumed 40000 live rows from the log's stats, batch size 4096: 10 steps an epoch × 2 epochs; the 20% validation rows ride in the same batches, masked",
  )
  panel.rows = undefined
  await panel.updateComplete
  expect(textOf(panel)).toContain("This run: no estimate in minutes: the table's log has no row counts")
  expect(textOf(panel)).not.toContain('about')
})

test("sweep setup, recommender: the epochs in total become steps with the rows and the space's smallest batch", async () => {
  keepRate(adapterLabel(SOFTWARE), 'recsys', 1, 2, 'step') // 0.5 steps/s
  const planner = (c: SweepConfig): SweepPlanView => ({
    errors: [],
    trials: 3,
    brackets: [{ index: 0, rungs: [] }],
    resourceTotal: c.model === 'recsys' ? 6 : 60,
    resourceFullBudget: 9,
  })
  const el = await fixture('st-sweep-setup', {
    fields,
    table: { url: 'http://h/m/', version: 0 },
    planner,
    adapter: SOFTWARE,
    rows: 40_000,
    spaceOf: m =>
      m === 'recsys'
        ? {
            lr: { type: 'loguniform', low: 1e-4, high: 1e-2 },
            batch_size: { type: 'categorical', choices: [8192, 4096] },
          }
        : { eta: { type: 'loguniform', low: 0.01, high: 0.3 } },
  })
  await pick(el, 'recsys')
  // 6 epochs in total × ⌈40000 / 4096⌉ = 10 steps = 60 steps at 0.5 steps/s.
  expect(textOf(el)).toContain('6 epochs in total')
  expect(textOf(el)).toContain(
    "about 2 min (60 steps at 0.50 steps/s, measured on this adapter's last recsys run; assumed 40000 live rows from the log's stats, batch size 4096 (the space's smallest: an upper bound): 10 steps an epoch × 6 epochs",
  )
})
