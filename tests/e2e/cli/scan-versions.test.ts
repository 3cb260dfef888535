/**
 * The sample `clicks` table through the real CLI: version 0 and the latest version differ by
 * exactly the rows appended (v1) and deleted (v2, `country = 'HO'`). Counts come from the
 * generator's own record (`_generator.json`), rows from three independent scans.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { REPO, lastJson, runCli } from '../../support/cli.ts'

const TABLE = 'public/tables/clicks'
const gen = JSON.parse(readFileSync(join(REPO, TABLE, '_generator.json'), 'utf8'))

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
    for (const row of deleted) expect(JSON.parse(row).country).toBe('HO')
    for (const row of v2) expect(JSON.parse(row).country).not.toBe('HO')
  }, 120_000)
})
