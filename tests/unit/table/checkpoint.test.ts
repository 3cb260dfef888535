import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { describe, expect, it } from 'vitest'
import type { Action } from '../../../src/table/actions.ts'
import { jsonLike, readCheckpoint, sidecarUrl } from '../../../src/table/checkpoint.ts'
import type { CheckpointFile } from '../../../src/table/listing.ts'
import { TableError } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const ROOT = join(import.meta.dirname, '../../conformance')
const fetch = fileFetch(ROOT)
const table = (name: string) => `http://table.test/golden/${name}/`
const log = (name: string, file: string) => `${table(name)}_delta_log/${file}`

const kinds = (actions: Action[]) => {
  const n: Record<string, number> = {}
  for (const a of actions) n[a.kind] = (n[a.kind] ?? 0) + 1
  return n
}

describe('readCheckpoint', () => {
  it('reads a classic checkpoint (size from the hint, or by HEAD when unknown)', async () => {
    const cp: CheckpointFile = {
      version: 10,
      kind: 'classic',
      parts: [{ url: log('basic-with-inserts-deletes-checkpoint', '00000000000000000010.checkpoint.parquet') }],
    }
    const actions = await readCheckpoint(cp, table('basic-with-inserts-deletes-checkpoint'), { fetch })
    expect(kinds(actions)).toMatchObject({ protocol: 1, metaData: 1 })
    expect(kinds(actions).remove).toBeUndefined() // tombstones are not read
    const adds = actions.flatMap(a => (a.kind === 'add' ? [a.add] : []))
    expect(adds.length).toBeGreaterThan(0)
    expect(typeof adds[0].size).toBe('number')
  })

  it('reads all parts of a multi-part checkpoint', async () => {
    const cp: CheckpointFile = {
      version: 1,
      kind: 'multipart',
      parts: [1, 2].map(i => ({
        url: log('multi-part-checkpoint', `00000000000000000001.checkpoint.000000000${i}.0000000002.parquet`),
      })),
    }
    const actions = await readCheckpoint(cp, table('multi-part-checkpoint'), { fetch })
    expect(kinds(actions)).toMatchObject({ protocol: 1, metaData: 1 })
    expect(kinds(actions).add).toBeGreaterThan(1)
  })

  it.each([
    ['v2-checkpoint-json', '00000000000000000002.checkpoint.6374b053-df23-479b-b2cf-c9c550132b49.json'],
    ['v2-checkpoint-parquet', '00000000000000000002.checkpoint.e8fa2696-9728-4e9c-b285-634743fdd4fb.parquet'],
  ])('reads a v2 checkpoint and its sidecars (%s)', async (name, file) => {
    const cp: CheckpointFile = { version: 2, kind: 'v2', parts: [{ url: log(name, file) }] }
    const actions = await readCheckpoint(cp, table(name), { fetch })
    expect(kinds(actions)).toMatchObject({ protocol: 1, metaData: 1, checkpointMetadata: 1, add: 4 })
    expect(kinds(actions).sidecar).toBeUndefined()
    expect(fetch.requests.some(r => r.url.startsWith(`${table(name)}_delta_log/_sidecars/`))).toBe(true)
  })

  it('converts stats_parsed when stats are absent', async () => {
    // No conformance checkpoint carries stats_parsed, so write one: protocol row + add row.
    const O = 'OPTIONAL' as const
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'protocol', data: [{ minReaderVersion: 1, minWriterVersion: 2 }, null] },
        {
          name: 'add',
          data: [
            null,
            {
              path: 'f.parquet',
              size: 10n,
              modificationTime: 5n,
              stats_parsed: { numRecords: 7n, minValues: { id: 3n, day: new Date('2020-01-02T00:00:00Z') } },
            },
          ],
        },
      ],
      schema: [
        { name: 'root', num_children: 2 },
        { name: 'protocol', repetition_type: O, num_children: 2 },
        { name: 'minReaderVersion', type: 'INT32', repetition_type: O },
        { name: 'minWriterVersion', type: 'INT32', repetition_type: O },
        { name: 'add', repetition_type: O, num_children: 4 },
        { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: O },
        { name: 'size', type: 'INT64', repetition_type: O },
        { name: 'modificationTime', type: 'INT64', repetition_type: O },
        { name: 'stats_parsed', repetition_type: O, num_children: 2 },
        { name: 'numRecords', type: 'INT64', repetition_type: O },
        { name: 'minValues', repetition_type: O, num_children: 2 },
        { name: 'id', type: 'INT64', repetition_type: O },
        { name: 'day', type: 'INT32', converted_type: 'DATE', repetition_type: O },
      ],
    })
    const dir = mkdtempSync(join(tmpdir(), 'cp-'))
    mkdirSync(join(dir, 't/_delta_log'), { recursive: true })
    writeFileSync(join(dir, 't/_delta_log/00000000000000000001.checkpoint.parquet'), new Uint8Array(bytes))
    const cp: CheckpointFile = {
      version: 1,
      kind: 'classic',
      parts: [{ url: 'http://table.test/t/_delta_log/00000000000000000001.checkpoint.parquet' }],
    }
    const actions = await readCheckpoint(cp, 'http://table.test/t/', { fetch: fileFetch(dir) })
    expect(actions.map(a => a.kind)).toEqual(['protocol', 'add'])
    const add = actions[1].kind === 'add' ? actions[1].add : undefined
    expect(add).toMatchObject({ path: 'f.parquet', size: 10, modificationTime: 5 })
    expect(add?.statsParsed).toEqual({ numRecords: 7, minValues: { id: 3, day: '2020-01-02' } })
  })

  it('recovers from a stale size hint', async () => {
    const cp: CheckpointFile = {
      version: 10,
      kind: 'classic',
      parts: [{ url: log('checkpoint', '00000000000000000010.checkpoint.parquet'), size: 999 }],
    }
    const actions = await readCheckpoint(cp, table('checkpoint'), { fetch })
    expect(kinds(actions).metaData).toBe(1)
  })

  it('names a checkpoint that is not parquet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-'))
    mkdirSync(join(dir, 't/_delta_log'), { recursive: true })
    writeFileSync(join(dir, 't/_delta_log/00000000000000000001.checkpoint.parquet'), 'not parquet at all')
    const url = 'http://table.test/t/_delta_log/00000000000000000001.checkpoint.parquet'
    const error = await readCheckpoint({ version: 1, kind: 'classic', parts: [{ url }] }, 'http://table.test/t/', {
      fetch: fileFetch(dir),
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TableError)
    expect((error as TableError).code).toBe('malformed-log')
    expect((error as TableError).message).toContain(url)
  })
})

describe('helpers', () => {
  it('resolves sidecar paths under _delta_log/_sidecars/', () => {
    expect(sidecarUrl('http://h/t/', 'a b.parquet')).toBe('http://h/t/_delta_log/_sidecars/a%20b.parquet')
    expect(sidecarUrl('http://h/t/', 's3://b/x.parquet')).toBe('s3://b/x.parquet')
  })

  it('makes parquet values look like JSON stats', () => {
    expect(
      jsonLike({
        a: 5n,
        d: new Date('2020-01-02T00:00:00Z'),
        t: new Date('2020-01-02T03:04:05.006Z'),
        n: null,
        s: { x: 1n },
      }),
    ).toEqual({ a: 5, d: '2020-01-02', t: '2020-01-02T03:04:05.006Z', s: { x: 1 } })
  })
})
