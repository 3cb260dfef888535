/** A small generated `clicks` table (3000 rows), planned over the fake file fetch, shared by the recsys loop tests. */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { planScan } from '../../../src/data/plan.ts'
import type { ScanPlan } from '../../../src/data/types.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { fileFetch, type FileFetch } from '../../support/file-fetch.ts'
import { runMain } from '../../support/cli.ts'

/** The planned table and the generator's Bayes-optimal AUC. */
export interface ClicksFixture {
  plan: ScanPlan
  fetch: FileFetch
  bayesAuc: number
  dir: string
}

const cached = new Map<number, Promise<ClicksFixture>>()

/** Generates a table of about `rows` rows once per test file (1–2 s) and plans all columns, label `label`. */
export function clicksFixture(rows = 3000): Promise<ClicksFixture> {
  if (!cached.has(rows))
    cached.set(
      rows,
      (async () => {
        const out = mkdtempSync(join(tmpdir(), 'recsys-clicks-'))
        const gen = await runMain([
          'data',
          '--out',
          out,
          '--rows',
          String(rows),
          '--marketing-rows',
          '500',
          '--tables',
          'clicks',
        ])
        if (gen.code !== 0) throw new Error(`snaptrain data: exit ${gen.code}: ${gen.stderr}`)
        const dir = join(out, 'clicks')
        const fetch = fileFetch(dir)
        const snapshot = await openSnapshot('http://table.test/', { fetch })
        const plan = await planScan(snapshot, { fetch, label: 'label' })
        const bayesAuc = JSON.parse(readFileSync(join(dir, '_generator.json'), 'utf8')).bayesAuc as number
        return { plan, fetch, bayesAuc, dir }
      })(),
    )
  return cached.get(rows)!
}
