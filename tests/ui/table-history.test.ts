import { afterEach, expect, test } from 'vitest'
import '../../src/ui/table-history.ts'
import type { VersionSelectDetail } from '../../src/ui/types.ts'
import { cleanup, fixture, record } from './fixture.ts'

afterEach(cleanup)

const COMMITS = [
  { version: 0, timestamp: Date.UTC(2024, 0, 1), operation: 'CREATE TABLE' },
  { version: 2, timestamp: Date.UTC(2024, 0, 3), operation: 'DELETE' },
  { version: 1, timestamp: Date.UTC(2024, 0, 2), operation: 'WRITE' },
]

test('shows history newest first with time and operation', async () => {
  const el = await fixture('st-table-history', { commits: COMMITS, selectedVersion: 1 })
  const rows = [...el.shadowRoot!.querySelectorAll('tbody tr')] as HTMLElement[]
  expect(rows.map(r => r.dataset.version)).toEqual(['2', '1', '0'])
  expect(rows[0]!.textContent).toContain('2024-01-03 00:00:00 UTC')
  expect(rows[0]!.textContent).toContain('DELETE')
  expect(rows[1]!.classList.contains('selected')).toBe(true)
  const select = el.shadowRoot!.querySelector('select')!
  expect(select.value).toBe('1')
  expect(select.options[0]!.textContent).toContain('(latest)')
})

test('picking in the select or clicking a row fires version-select; setting the property does not', async () => {
  const el = await fixture('st-table-history', { commits: COMMITS, selectedVersion: 2 })
  const seen = record<VersionSelectDetail>(document, 'version-select')
  el.selectedVersion = 0
  await el.updateComplete
  expect(seen).toEqual([])
  const select = el.shadowRoot!.querySelector('select')!
  select.value = '1'
  select.dispatchEvent(new Event('change'))
  ;(el.shadowRoot!.querySelector('tr[data-version="2"]') as HTMLElement).click()
  expect(seen).toEqual([{ version: 1 }, { version: 2 }])
})
