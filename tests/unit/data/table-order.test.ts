/**
 * Table order comes from the files' content, not their paths: the same table with its files
 * renamed (so their path order reverses, as a share's URLs or another store's keys may) plans the
 * same files in the same order (by footer fingerprint), the same units and the same rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { footerFingerprint, planScan } from '../../../src/data/plan.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { fileFetch } from '../../support/file-fetch.ts'
import { CLICKS } from './loader-fixtures.ts'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-table-order-'))
const RENAMED = join(tmp, 'clicks')

beforeAll(() => {
  // Every data file gets a name whose order is the reverse of the original names' order.
  const names = readdirSync(CLICKS)
    .filter(n => n.endsWith('.parquet'))
    .sort()
  const renamed = new Map(names.map((n, i) => [n, `z/${String(names.length - i).padStart(3, '0')}-${n}`]))
  mkdirSync(join(RENAMED, '_delta_log'), { recursive: true })
  mkdirSync(join(RENAMED, 'z'))
  for (const [from, to] of renamed) copyFileSync(join(CLICKS, from), join(RENAMED, to))
  for (const log of readdirSync(join(CLICKS, '_delta_log'))) {
    let text = readFileSync(join(CLICKS, '_delta_log', log), 'utf8')
    for (const [from, to] of renamed) text = text.replaceAll(`"${from}"`, `"${to}"`)
    writeFileSync(join(RENAMED, '_delta_log', log), text)
  }
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

async function plan(dir: string) {
  const fetch = fileFetch(dir)
  return planScan(await openSnapshot('http://table.test/', { fetch }), { fetch })
}

describe('table order', () => {
  it('is the same for the same files under other names', async () => {
    const [original, renamed] = await Promise.all([plan(CLICKS), plan(RENAMED)])
    expect(renamed.files.length).toBeGreaterThan(2)
    // The paths really sort the other way round…
    const at = (p: typeof original) => p.files.map(f => f.path.replace(/^z\/\d+-/, ''))
    const byPath = (p: typeof original) =>
      p.files
        .map(f => f.path)
        .sort()
        .map(path => path.replace(/^z\/\d+-/, ''))
    expect(byPath(renamed)).toEqual([...byPath(original)].reverse())
    expect(byPath(renamed)).not.toEqual(at(original)) // ordering by path would change the table order
    // …yet the files come in the same order (by footer fingerprint), with the same units.
    expect(at(renamed)).toEqual(at(original))
    const prints = original.files.map(f => footerFingerprint(f.metadata))
    expect(prints).toEqual([...prints].sort())
    const units = (p: typeof original) => p.units.map(u => [u.fileIndex, u.rowGroup, u.rowStart, u.rowEnd, u.liveRows])
    expect(units(renamed)).toEqual(units(original))
    expect(renamed.stats.rows).toBe(original.stats.rows)
  })
})
