/**
 * A clicks table through the real CLI: version 0 and the latest version differ by exactly the
 * rows appended (v1) and deleted (v2, the generator's `country = '…'` predicate). Counts come from
 * the generator's own record (what it writes to `_generator.json`), rows from three independent scans. The table is
 * the sample's generator at 20,000 rows (v0 in 4 files, as the 200,000-row sample, which the CLI
 * printed 7 times over here at ~4 s a scan): the versions, not the size, are under test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { writeClicks } from '../../../tools/datagen/clicks.ts'
import type { GeneratorInfo } from '../../../tools/datagen/types.ts'
import { lastJson, runCli } from '../../support/cli.ts'

const root = mkdtempSync(join(tmpdir(), 'snaptrain-scan-versions-'))
const TABLE = join(root, 'clicks')
/** What the generator wrote (its `_generator.json` record). */
let gen: GeneratorInfo
beforeAll(async () => {
  gen = await writeClicks({ dir: TABLE, rows: 20_000, seed: 42 })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function lines(version: number): Promise<string[]> {
  const r = await runCli(['scan', '--table', TABLE, '--version', String(version)], {}, 60_000)
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.trim().split('\n')
}

function counts(rows: string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const r of rows) m.set(r, (m.get(r) ?? 0) + 1)
  return m
}

/** Multiset a − b. */
function minus(a: string[], b: string[]): string[] {
  const left = counts(b)
  const out: string[] = []
  for (const r of a) {
    const n = left.get(r) ?? 0
    if (n > 0) left.set(r, n - 1)
    else out.push(r)
  }
  return out
}

describe('clicks versions through snaptrain scan', () => {
  test('--json row counts per version match the generator', async () => {
    for (const v of gen.versions) {
      const r = await runCli(['scan', '--table', TABLE, '--version', String(v.version), '--json'], {}, 60_000)
      expect(r.code, r.stderr).toBe(0)
      expect(lastJson(r).rows).toBe(v.rows)
    }
    const latest = lastJson(await runCli(['scan', '--table', TABLE, '--json'], {}, 60_000))
    expect(latest.version).toBe(gen.versions.length - 1)
    expect(latest.rows).toBe(gen.rows + gen.rowsAppended - gen.rowsDeleted)
  }, 240_000)

  test('latest = v0 + appended − deleted, row for row', async () => {
    const [v0, v1, v2] = [await lines(0), await lines(1), await lines(2)]
    const appended = minus(v1, v0)
    expect(appended.length).toBe(gen.rowsAppended)
    expect(minus(v0, v1)).toEqual([])
    const deleted = minus(v1, v2)
    expect(deleted.length).toBe(gen.rowsDeleted)
    expect(minus(v2, v1)).toEqual([])
    const country = /^country = '(\w+)'$/.exec(gen.versions[2]!.predicate ?? '')![1]
    expect(deleted.length).toBeGreaterThan(0)
    for (const row of deleted) expect(JSON.parse(row).country).toBe(country)
    for (const row of v2) expect(JSON.parse(row).country).not.toBe(country)
  }, 120_000)
})
