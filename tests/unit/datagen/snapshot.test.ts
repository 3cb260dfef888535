import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { generateSampleTables } from '../../../tools/datagen/index.ts'
import type { GeneratorInfo } from '../../../tools/datagen/types.ts'
import { readRows } from '../../../src/table/rows.ts'
import { openSnapshot } from '../../../src/table/snapshot.ts'
import { fileFetch } from '../../support/file-fetch.ts'

// The generated tables read back through the project's own Delta reader (log replay + rows).
let out: string
let clicks: GeneratorInfo
let marketing: GeneratorInfo
beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'datagen-snap-'))
  const s = await generateSampleTables({ outDir: out, rows: 2000, marketingRows: 500, seed: 21 })
  clicks = s.tables[0].info
  marketing = s.tables[1].info
})
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('generated tables through openSnapshot/readRows', () => {
  test('clicks v0, v1, v2 have the generated row counts', async () => {
    const fetch = fileFetch(out)
    for (const [version, expected] of clicks.versions.map(v => [v.version, v.rows] as const)) {
      const snap = await openSnapshot('http://table.test/clicks/', { fetch, version })
      expect(snap.version).toBe(version)
      const fromStats = snap.files.reduce((s, f) => s + (f.stats?.numRecords ?? NaN), 0)
      expect(fromStats).toBe(expected)
      const rows = await readRows(snap, { fetch, columns: ['user_id', 'country', 'emb', 'label'] })
      expect(rows).toHaveLength(expected)
    }
    expect(clicks.versions.map(v => v.rows)).toEqual([2000, 2200, 2200 - clicks.rowsDeleted])
  })

  test('latest clicks snapshot: schema, types and no deleted rows', async () => {
    const fetch = fileFetch(out)
    const snap = await openSnapshot('http://table.test/clicks/', { fetch })
    expect(snap.version).toBe(2)
    expect(snap.schema.fields.find(f => f.name === 'emb')?.type).toEqual({
      type: 'array',
      elementType: 'float',
      containsNull: false,
    })
    const rows = await readRows(snap, { fetch, limit: 100 })
    expect(typeof rows[0].user_id).toBe('bigint')
    expect((rows[0].emb as number[]).length).toBe(8)
    const country = /'(\w+)'/.exec(clicks.versions[2].predicate as string)?.[1]
    const all = await readRows(snap, { fetch, columns: ['country'] })
    expect(all.some(r => r.country === country)).toBe(false)
  })

  test('marketing reads back with nulls in optional columns', async () => {
    const fetch = fileFetch(out)
    const snap = await openSnapshot('http://table.test/marketing/', { fetch })
    const rows = await readRows(snap, { fetch })
    expect(rows).toHaveLength(marketing.finalRows)
    expect(rows.some(r => r.contact === null)).toBe(true)
    expect(rows.reduce((s, r) => s + (r.y as number), 0)).toBe(Math.round(marketing.baseRate * marketing.finalRows))
  })
})
