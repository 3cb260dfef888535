import { afterEach, expect, test } from 'vitest'
import '../../src/ui/schema-view.ts'
import '../../src/ui/rows-preview.ts'
import '../../src/ui/error-view.ts'
import '../../src/ui/snapshot-summary.ts'
import type { StructField } from '../../src/ui/types.ts'
import { cleanup, fixture, textOf } from './fixture.ts'

afterEach(cleanup)

const FIELDS: StructField[] = [
  { name: 'user_id', type: 'long', nullable: false, metadata: {} },
  { name: 'tags', type: { type: 'array', elementType: 'string', containsNull: true }, nullable: true, metadata: {} },
  { name: 'day', type: 'date', nullable: true, metadata: {} },
]

test('schema: one row per field with type, nullability and partition marker', async () => {
  const el = await fixture('st-schema-view', { fields: FIELDS, partitionColumns: ['day'] })
  const rows = [...el.shadowRoot!.querySelectorAll('tbody tr')] as HTMLElement[]
  expect(rows.map(r => r.dataset.field)).toEqual(['user_id', 'tags', 'day'])
  expect(rows.map(r => r.querySelector('.type')!.textContent)).toEqual(['long', 'array<string>', 'date'])
  expect(rows.map(r => r.children[2]!.textContent)).toEqual(['no', 'yes', 'yes'])
  expect(rows.map(r => r.querySelector('.partition') !== null)).toEqual([false, false, true])
})

test('rows preview: header in column order, formatted cells, nulls marked', async () => {
  const rows = [
    { user_id: 7n, tags: ['a'], day: '2024-01-01' },
    { user_id: 8n, tags: null, day: null },
  ]
  const el = await fixture('st-rows-preview', { columns: ['user_id', 'tags', 'day'], rows })
  expect([...el.shadowRoot!.querySelectorAll('thead th')].map(th => th.textContent)).toEqual([
    '#',
    'user_id',
    'tags',
    'day',
  ])
  const body = [...el.shadowRoot!.querySelectorAll('tbody tr')]
  expect(body.length).toBe(2)
  expect([...body[0]!.querySelectorAll('td')].map(td => td.textContent)).toEqual(['0', '7', '[a]', '2024-01-01'])
  expect(body[1]!.querySelectorAll('td.null').length).toBe(2)
  el.rows = []
  await el.updateComplete
  expect(textOf(el)).toContain('No rows')
})

test('error view: context, message, code, url and causes; nothing when unset', async () => {
  const error = {
    context: 'Opening table x',
    message: 'GET http://h/x/: 404',
    code: 'not-a-table',
    url: 'http://h/x/',
    causes: ['inner'],
  }
  const el = await fixture('st-error-view', { error })
  const text = textOf(el)
  for (const part of ['Opening table x failed', 'GET http://h/x/: 404', 'not-a-table', 'http://h/x/', 'inner']) {
    expect(text).toContain(part)
  }
  expect(el.shadowRoot!.querySelector('[role=alert]')).not.toBeNull()
  el.error = undefined
  await el.updateComplete
  expect(textOf(el)).toBe('')
})

test('snapshot summary: version, files, rows from stats', async () => {
  const file = (n: number) => ({
    path: `p${n}`,
    url: `u${n}`,
    size: 1000,
    partitionValues: {},
    modificationTime: 0,
    stats: { numRecords: n },
  })
  const withDv = {
    ...file(5),
    deletionVector: { storageType: 'u' as const, pathOrInlineDv: 'x', sizeInBytes: 1, cardinality: 2 },
  }
  const snapshot = {
    version: 4,
    timestamp: 0,
    files: [file(10), withDv],
    protocol: { minReaderVersion: 1, minWriterVersion: 2 },
    columnMapping: 'none' as const,
  }
  const el = await fixture('st-snapshot-summary', { snapshot })
  const text = textOf(el)
  expect(el.shadowRoot!.querySelector('.version')!.textContent).toBe('4')
  expect(el.shadowRoot!.querySelector('.files')!.textContent).toBe('2')
  expect(text).toContain('live rows (from stats)13')
})
