import { afterEach, expect, test } from 'vitest'
import '../../src/ui/table-list.ts'
import type { TableSelectDetail } from '../../src/ui/types.ts'
import { cleanup, fixture, record, textOf } from './fixture.ts'

afterEach(cleanup)

const TABLES = [
  { name: 'clicks', url: 'http://h/tables/clicks/', latestVersion: 3 },
  { name: 'marketing', url: 'http://h/tables/marketing/' },
]

test('lists tables with their latest version; a click fires table-select', async () => {
  const el = await fixture('st-table-list', { tables: TABLES, state: 'ready' })
  const seen = record<TableSelectDetail>(document, 'table-select')
  const buttons = [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button[data-table]')]
  expect(buttons.map(b => b.dataset.table)).toEqual(['clicks', 'marketing'])
  expect(buttons[0]!.textContent).toContain('v3')
  expect(buttons[1]!.querySelector('.version')!.textContent).toBe('')
  buttons[1]!.click()
  expect(seen).toEqual([{ name: 'marketing', url: 'http://h/tables/marketing/' }])
})

test('setting `selected` highlights without firing an event', async () => {
  const el = await fixture('st-table-list', { tables: TABLES, state: 'ready' })
  const seen = record(document, 'table-select')
  el.selected = 'clicks'
  await el.updateComplete
  expect(el.shadowRoot!.querySelector('button[data-table=clicks]')!.getAttribute('aria-pressed')).toBe('true')
  expect(el.shadowRoot!.querySelector('button[data-table=marketing]')!.getAttribute('aria-pressed')).toBe('false')
  expect(seen).toEqual([])
})

test('empty, loading and error states', async () => {
  const el = await fixture('st-table-list', { tables: [], state: 'ready' })
  expect(textOf(el)).toContain('No tables found')
  el.state = 'loading'
  await el.updateComplete
  expect(textOf(el)).toContain('Listing tables')
  el.error = { context: 'Listing tables', message: 'GET /?list-type=2: 500', causes: [] }
  el.state = 'error'
  await el.updateComplete
  const ev = el.shadowRoot!.querySelector('st-error-view')!
  await ev.updateComplete
  expect(textOf(ev)).toContain('GET /?list-type=2: 500')
})
