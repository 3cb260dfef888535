/**
 * The data path of `snaptrain scan` in process: flag rules (usage errors naming flags), cursor
 * conflicts, plan URLs that survive the loopback port, and row values in delivery order equal to
 * the plain reader's rows (deletion vectors applied).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cursorConflicts, stablePlan, startPoint, wantsDataPath, type DataFlags } from '../../../src/cli/scan-data.ts'
import { run } from '../../../src/cli/scan.ts'
import { UsageError } from '../../../src/cli/args.ts'
import type { Cursor, ScanPlan } from '../../../src/data/types.ts'
import { planDigest } from '../../../src/data/digest.ts'

const DV_TABLE = 'tests/conformance/golden/table-with-dv-small'
const CURSOR: Cursor = {
  tableUrl: 'file:///t/',
  version: 3,
  planDigest: 'abc',
  seed: 5,
  epoch: 1,
  worldSize: 4,
  rank: 2,
  mode: 'drop_last',
  shuffleBuffer: 100,
  position: 10,
}
const tmp: string[] = []
afterAll(async () => {
  for (const d of tmp) await rm(d, { recursive: true, force: true })
})

function flags(extra: Partial<DataFlags> = {}): DataFlags {
  return { json: false, ...extra }
}

async function capture(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await run(argv, {
    out: l => {
      out.push(l)
    },
    err: l => {
      err.push(l)
    },
  })
  return { code, out: out.join('\n').split('\n').filter(Boolean), err }
}

describe('scan data-path flags', () => {
  it('wantsDataPath: any data flag or --format ids; plain otherwise', () => {
    expect(wantsDataPath(flags())).toBe(false)
    expect(wantsDataPath(flags({ format: 'csv', limit: 3 }))).toBe(false)
    expect(wantsDataPath(flags({ format: 'ids' }))).toBe(true)
    expect(wantsDataPath(flags({ seed: 0 }))).toBe(true)
    expect(wantsDataPath(flags({ filter: 'a = 1' }))).toBe(true)
  })

  it('startPoint: defaults (table order, drop_last, one shard) and shard rules', async () => {
    expect(await startPoint(flags({ format: 'ids' }))).toEqual({
      assign: { seed: undefined, epoch: 0, worldSize: 1, rank: 0, mode: 'drop_last', shuffleBuffer: undefined },
      position: 0,
    })
    await expect(startPoint(flags({ shard: 1 }))).rejects.toThrow(/--shard: needs --shards/)
    await expect(startPoint(flags({ shards: 2 }))).rejects.toThrow(/--shards: needs --shard/)
    await expect(startPoint(flags({ shards: 2, shard: 2 }))).rejects.toThrow(/--shard: expected 0 … 1/)
    await expect(startPoint(flags({ resume: '/no/such/cursor.json' }))).rejects.toBeInstanceOf(UsageError)
  })

  it('cursorConflicts names every flag that disagrees with the cursor', () => {
    expect(
      cursorConflicts(
        flags({ seed: 5, epoch: 1, shards: 4, shard: 2, mode: 'drop_last', 'shuffle-buffer': 100 }),
        CURSOR,
      ),
    ).toEqual([])
    expect(
      cursorConflicts(
        flags({ seed: 6, epoch: 0, shards: 2, shard: 1, mode: 'pad', version: 1, timestamp: '2020-01-01' }),
        CURSOR,
      ),
    ).toEqual([
      '--seed (cursor: 5)',
      '--epoch (cursor: 1)',
      '--shards (cursor: 4)',
      '--shard (cursor: 2)',
      '--mode (cursor: drop_last)',
      '--version (cursor: 3)',
      '--timestamp (the cursor pins the version)',
    ])
    expect(cursorConflicts(flags({ 'shuffle-buffer': 50 }), CURSOR)).toEqual(['--shuffle-buffer (cursor: 100)'])
    expect(cursorConflicts(flags({ 'shuffle-buffer': 5000 }), CURSOR)).toEqual([]) // window was capped by the rank's length
  })

  it('startPoint --resume takes the assignment and position from the cursor', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'snaptrain-sd-'))
    tmp.push(dir)
    const path = join(dir, 'c.json')
    await writeFile(path, JSON.stringify(CURSOR))
    const sp = await startPoint(flags({ resume: path }))
    expect(sp.position).toBe(10)
    expect(sp.assign).toEqual({ seed: 5, epoch: 1, worldSize: 4, rank: 2, mode: 'drop_last', shuffleBuffer: 100 })
    await expect(startPoint(flags({ resume: path, seed: 1 }))).rejects.toThrow(/--seed \(cursor: 5\)/)
  })

  it('stablePlan: a local folder gets its file:// URL (digest recomputed), a remote URL is kept', () => {
    const base = { tableUrl: 'http://127.0.0.1:4321/t/', version: 1, columns: ['a'], files: [], units: [] }
    const plan = { ...base, stats: {} as ScanPlan['stats'], digest: planDigest(base) } as ScanPlan
    const local = stablePlan(plan, { url: 'http://127.0.0.1:4321/t/', display: '/data/t' })
    expect(local.tableUrl).toBe('file:///data/t/')
    expect(local.digest).toBe(planDigest({ ...base, tableUrl: 'file:///data/t/' }))
    expect(local.digest).not.toBe(plan.digest)
    expect(stablePlan(plan, { url: plan.tableUrl, display: plan.tableUrl })).toBe(plan)
  })
})

describe('scan data path in process', () => {
  it('jsonl in table order equals the plain reader; seeded jsonl is a permutation of it', async () => {
    const plain = await capture(['--table', DV_TABLE])
    const ordered = await capture(['--table', DV_TABLE, '--epoch', '0', '--format', 'jsonl'])
    const shuffled = await capture(['--table', DV_TABLE, '--seed', '9', '--format', 'csv'])
    expect(plain.code).toBe(0)
    expect(ordered.code).toBe(0)
    expect(plain.out.length).toBeGreaterThan(1)
    expect(ordered.out).toEqual(plain.out)
    expect(shuffled.code).toBe(0)
    const header = shuffled.out[0]!
    const values = (l: string) =>
      Object.values(JSON.parse(l) as Record<string, unknown>)
        .map(v => (v === null ? '' : String(v)))
        .join(',')
    expect(header.split(',').length).toBe(Object.keys(JSON.parse(plain.out[0]!)).length)
    expect(shuffled.out.slice(1).sort()).toEqual(plain.out.map(values).sort())
  })

  it('a bad filter is a usage error naming the column', async () => {
    const res = await capture(['--table', DV_TABLE, '--filter', 'nope = 1', '--format', 'ids'])
    expect(res.code).toBe(2)
    expect(res.err.join('\n')).toContain('nope')
  })
})
