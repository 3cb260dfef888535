import { afterEach, expect, test } from 'vitest'
import '../../src/ui/adapter-panel.ts'
import type { AdapterView } from '../../src/ui/types.ts'
import { cleanup, fixture, textOf } from './fixture.ts'

afterEach(cleanup)

const ADAPTER: AdapterView = {
  vendor: 'acme',
  architecture: 'rdna9',
  device: '',
  description: 'Acme Radeon 9999',
  isFallbackAdapter: true,
  limits: { maxBufferSize: 268435456, maxComputeInvocationsPerWorkgroup: 256, maxBindGroups: 4 },
  features: ['shader-f16', 'timestamp-query'],
}

test('shows identity, fallback flag, key limits and features', async () => {
  const el = await fixture('st-adapter-panel', { adapter: ADAPTER, state: 'ready' })
  const text = textOf(el)
  expect(el.shadowRoot!.querySelector('.vendor')!.textContent).toBe('acme')
  expect(text).toContain('rdna9')
  expect(text).toContain('Acme Radeon 9999')
  expect(text).toContain('yes (software, slow)')
  const key = el.shadowRoot!.querySelector('table.key')!
  expect([...key.querySelectorAll('tr[data-limit]')].map(r => r.getAttribute('data-limit'))).toEqual([
    'maxBufferSize',
    'maxComputeInvocationsPerWorkgroup',
  ])
  const buf = key.querySelector('tr[data-limit=maxBufferSize] td.num')!
  expect(buf.textContent).toBe('256 MiB')
  expect(buf.getAttribute('title')).toBe('268435456')
  expect(el.shadowRoot!.querySelectorAll('table.all tr[data-limit]').length).toBe(3)
  expect(text).toContain('features (2)')
  expect(text).toContain('timestamp-query')
})

test('without an adapter explains the browser requirement and shows the cause', async () => {
  const error = { context: 'Requesting the WebGPU adapter', message: 'navigator.gpu is undefined', causes: [] }
  const el = await fixture('st-adapter-panel', { state: 'error', error })
  const text = textOf(el)
  expect(text).toContain('WebGPU is not available')
  expect(text).toContain('Chrome or Edge 113+')
  expect(text).toContain('--enable-unsafe-webgpu')
  const errorView = el.shadowRoot!.querySelector('st-error-view')!
  await errorView.updateComplete
  expect(textOf(errorView)).toContain('navigator.gpu is undefined')
})

test('while loading says so, and updates when the owner sets the adapter', async () => {
  const el = await fixture('st-adapter-panel', { state: 'loading' })
  expect(textOf(el)).toContain('Requesting adapter')
  el.adapter = ADAPTER
  el.state = 'ready'
  await el.updateComplete
  expect(textOf(el)).toContain('acme')
})
