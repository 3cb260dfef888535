/**
 * The forms on a software adapter (SwiftShader): the train panel proposes the smaller parameters
 * and says why under the form, and once a run on this adapter kept its rate, the run's cost in
 * minutes; the sweep form's default max resource is the smaller one, its cost line in minutes too.
 */
import { afterEach, expect, test } from 'vitest'
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

afterEach(() => {
  cleanup()
  localStorage.removeItem(rateKey(adapterLabel(SOFTWARE), 'gbdt'))
})

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
  expect(textOf(panel)).not.toContain('about')
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
