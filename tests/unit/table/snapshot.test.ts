import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listCommits, openSnapshot } from '../../../src/table/index.ts'
import { TableError } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const ROOT = join(import.meta.dirname, '../../conformance')
const SCHEMA = JSON.stringify({
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: true, metadata: {} },
    { name: 'p', type: 'string', nullable: true, metadata: {} },
  ],
})
const PROTOCOL = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } }
const META = {
  metaData: {
    id: 't',
    format: { provider: 'parquet', options: {} },
    schemaString: SCHEMA,
    partitionColumns: ['p'],
    configuration: {},
  },
}
const info = (timestamp?: number, extra: object = {}) => ({ commitInfo: { timestamp, operation: 'WRITE', ...extra } })
const add = (path: string, numRecords = 1) => ({
  add: {
    path,
    partitionValues: { p: 'x' },
    size: 10,
    modificationTime: 0,
    dataChange: true,
    stats: JSON.stringify({ numRecords }),
  },
})
const remove = (path: string) => ({ remove: { path, deletionTimestamp: 0, dataChange: true } })

/** Write a table whose commit i holds commits[i] (actions as objects); returns the folder. */
function writeTable(commits: object[][], mtimes: number[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-'))
  mkdirSync(join(dir, 't/_delta_log'), { recursive: true })
  commits.forEach((actions, v) => {
    const file = join(dir, 't/_delta_log', `${String(v).padStart(20, '0')}.json`)
    writeFileSync(file, actions.map(a => JSON.stringify(a)).join('\n') + '\n')
    if (mtimes[v] !== undefined) utimesSync(file, mtimes[v] / 1000, mtimes[v] / 1000)
  })
  return dir
}

async function failure(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  return error as TableError
}

const THREE = [
  [info(1000), PROTOCOL, META, add('a.parquet', 2)],
  [info(2000), add('b.parquet', 3)],
  [info(3000, { operationMetrics: { numRemovedFiles: '1' } }), remove('a.parquet')],
]

describe.each([true, false])('openSnapshot (listing %s)', listing => {
  const dir = writeTable(THREE, [1000, 2000, 3000])
  const fetch = fileFetch(dir, { listing })
  const url = 'http://table.test/t'

  it('opens the latest version, with a normalised table URL', async () => {
    const s = await openSnapshot(url, { fetch })
    expect(s.tableUrl).toBe('http://table.test/t/')
    expect(s.version).toBe(2)
    expect(s.timestamp).toBe(3000)
    expect(s.files.map(f => f.path)).toEqual(['b.parquet'])
    expect(s.partitionColumns).toEqual(['p'])
    expect(s.files[0].partitionValues).toEqual({ p: 'x' })
    expect(s.columnMapping).toBe('none')
  })

  it('travels to a version', async () => {
    const s = await openSnapshot(url, { fetch, version: 1 })
    expect(s.files.map(f => f.path)).toEqual(['a.parquet', 'b.parquet'])
    expect(s.files.map(f => f.stats?.numRecords)).toEqual([2, 3])
  })

  it('travels to a timestamp (latest commit at or before it)', async () => {
    expect((await openSnapshot(url, { fetch, timestamp: 2500 })).version).toBe(1)
    expect((await openSnapshot(url, { fetch, timestamp: new Date(2000).toISOString() })).version).toBe(1)
    expect((await openSnapshot(url, { fetch, timestamp: 1999 })).version).toBe(0)
    expect((await openSnapshot(url, { fetch, timestamp: 9e12 })).version).toBe(2)
    const early = await failure(openSnapshot(url, { fetch, timestamp: 999 }))
    expect(early.code).toBe('version-not-found')
    expect(early.message).toContain('1970-01-01T00:00:00.999Z')
  })

  it('names the available range for a missing version', async () => {
    const e = await failure(openSnapshot(url, { fetch, version: 9 }))
    expect(e.code).toBe('version-not-found')
    expect(e.message).toBe('version 9 not found in http://table.test/t/: available versions are 0 to 2')
  })

  it('lists the history', async () => {
    const history = await listCommits(url, { fetch })
    expect(history).toEqual([
      { version: 0, timestamp: 1000, operation: 'WRITE' },
      { version: 1, timestamp: 2000, operation: 'WRITE' },
      { version: 2, timestamp: 3000, operation: 'WRITE', operationMetrics: { numRemovedFiles: '1' } },
    ])
  })

  it('says not-a-table where there is no log', async () => {
    const e = await failure(openSnapshot('http://table.test/elsewhere/', { fetch }))
    expect(e.code).toBe('not-a-table')
    expect(e.message).toContain('http://table.test/elsewhere/')
  })
})

describe('commit timestamps', () => {
  it('takes inCommitTimestamp, else the file time, never commitInfo.timestamp', async () => {
    const dir = writeTable(
      [
        [{ commitInfo: { timestamp: 5, inCommitTimestamp: 1000 } }, PROTOCOL, META],
        [{ commitInfo: { timestamp: 2000 } }, add('a.parquet')],
        [add('b.parquet')],
      ],
      [7000, 5_000_000, 3_000_000],
    )
    for (const listing of [true, false]) {
      const history = await listCommits('http://table.test/t/', { fetch: fileFetch(dir, { listing }) })
      // Version 2's file is older than version 1's: it counts as version 1's time + 1 ms.
      expect(history.map(c => c.timestamp)).toEqual([1000, 5_000_000, 5_000_001])
    }
  })
})

describe('bad logs', () => {
  it('names the file and line of a malformed commit', async () => {
    const dir = writeTable([[PROTOCOL, META]])
    writeFileSync(join(dir, 't/_delta_log/00000000000000000001.json'), '{"add":{"path":"x"\n')
    const e = await failure(openSnapshot('http://table.test/t/', { fetch: fileFetch(dir) }))
    expect(e.code).toBe('malformed-log')
    expect(e.message).toMatch(/^http:\/\/table\.test\/t\/_delta_log\/00000000000000000001\.json line 1: /)
  })

  it('says which action is missing', async () => {
    const dir = writeTable([[info(1), add('a.parquet')]])
    const e = await failure(openSnapshot('http://table.test/t/', { fetch: fileFetch(dir) }))
    expect(e.message).toContain('no protocol action')
  })

  it('refuses a catalog-managed table, also when asked for a version only the catalog has', async () => {
    for (const version of [undefined, 0, 2]) {
      const e = await failure(
        openSnapshot('http://table.test/golden/catalog-owned-preview/', { fetch: fileFetch(ROOT), version }),
      )
      expect(e.code).toBe('catalog-managed')
    }
  })
})

describe.each([true, false])('time travel across checkpoints (listing %s)', listing => {
  const fetch = fileFetch(ROOT, { listing })
  const golden = (name: string) => `http://table.test/golden/${name}/`

  it('opens versions older than the last checkpoint from the commits', async () => {
    const s = await openSnapshot(golden('basic-with-inserts-deletes-checkpoint'), { fetch, version: 5 })
    expect(s.version).toBe(5)
    const history = await listCommits(golden('basic-with-inserts-deletes-checkpoint'), { fetch })
    expect(history.map(c => c.version)).toEqual([...Array(14).keys()])
    const byTime = await openSnapshot(golden('basic-with-inserts-deletes-checkpoint'), {
      fetch,
      timestamp: history[3].timestamp,
    })
    expect(byTime.version).toBe(3)
  })

  it('refuses a version whose commits were cleaned up, naming the range', async () => {
    const e = await failure(openSnapshot('http://table.test/dat/no_replay/delta/', { fetch, version: 1 }))
    expect(e.code).toBe('version-not-found')
    expect(e.message).toContain('version 1 not found')
    expect(e.message).toContain('available versions are 2 to 3')
  })
})
