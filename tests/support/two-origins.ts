/**
 * A copy of marketing served by two fault servers on two ports: `a` (the table's origin) answers
 * only requests carrying `auth`, and the log's second data file is rewritten to an absolute URL
 * on `b`, another origin that must never see the credential. Registers its own hooks.
 */
import { afterAll, beforeAll, expect } from 'vitest'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO } from './cli.ts'
import { startFaultServer, type FaultServer } from './fault-server.ts'

/** The two servers and the temp folder (set once beforeAll has run). */
export interface TwoOrigins {
  dir: string
  a: FaultServer
  b: FaultServer
}

/** Sets up the two-origin table before the file's tests and removes it after. */
export function useTwoOrigins(auth: string, prefix: string): TwoOrigins {
  const t = {} as TwoOrigins
  beforeAll(async () => {
    t.dir = await mkdtemp(join(tmpdir(), prefix))
    const table = join(t.dir, 'marketing')
    await cp(join(REPO, 'public/tables/marketing'), table, { recursive: true })
    t.b = await startFaultServer(table)
    t.a = await startFaultServer(table, { requireAuthorization: auth })
    // Point the log's second data file at server B (an absolute path, as Delta allows).
    const commit = join(table, '_delta_log', '00000000000000000000.json')
    const lines = (await readFile(commit, 'utf8'))
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as Record<string, { path?: string }>)
    const adds = lines.filter(l => l.add)
    expect(adds.length).toBe(2)
    adds[1].add.path = `${t.b.tableUrl}${adds[1].add.path}`
    await writeFile(commit, lines.map(l => JSON.stringify(l)).join('\n') + '\n')
  })
  afterAll(async () => {
    await t.a?.close()
    await t.b?.close()
    await rm(t.dir, { recursive: true, force: true })
  })
  return t
}
