import { parquetWriteBuffer } from 'hyparquet-writer'
import { describe, expect, test } from 'vitest'
import { readRows, scanFile } from '../../../src/table/rows.ts'
import { TableError, type AddFile, type FetchLike, type Snapshot, type StructField } from '../../../src/table/types.ts'
import { z85Encode } from '../../../src/table/z85.ts'
import { deltaBitmap } from './roaring-fixtures.ts'

const TABLE = 'http://host/table/'

/** In-memory server with Range support. */
function memoryFetch(files: Record<string, Uint8Array>): FetchLike {
  return async (url, init) => {
    const body = files[url]
    if (!body) return new Response(null, { status: 404 })
    const match = /bytes=(\d+)-(\d*)/.exec(new Headers(init?.headers).get('Range') ?? '')
    if (!match) return new Response(body as BodyInit, { status: 200 })
    const end = match[2] ? Number(match[2]) + 1 : body.length
    return new Response(body.slice(Number(match[1]), end), { status: 206 })
  }
}

function field(name: string, type: string, extra: Partial<StructField> = {}): StructField {
  return { name, type, nullable: true, metadata: {}, ...extra }
}

function snapshot(fields: StructField[], files: AddFile[], over: Partial<Snapshot> = {}): Snapshot {
  return {
    tableUrl: TABLE,
    version: 0,
    timestamp: 0,
    protocol: { minReaderVersion: 1, minWriterVersion: 2 },
    metadata: { id: 'x', format: { provider: 'parquet' }, schemaString: '', partitionColumns: [], configuration: {} },
    schema: { type: 'struct', fields },
    partitionColumns: [],
    columnMapping: 'none',
    files,
    ...over,
  }
}

function addFile(name: string, bytes: Uint8Array, over: Partial<AddFile> = {}): AddFile {
  return { path: name, url: TABLE + name, size: bytes.length, partitionValues: {}, modificationTime: 0, ...over }
}

/** 7 rows in row groups of 3: id 0..6 (INT64), name 'n0'..'n6'. */
function sampleParquet(idName = 'id', nameName = 'name'): Uint8Array {
  const ids = Array.from({ length: 7 }, (_, i) => BigInt(i))
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: idName, data: ids, type: 'INT64' },
        { name: nameName, data: ids.map(i => `n${i}`), type: 'STRING' },
      ],
      rowGroupSize: 3,
    }),
  )
}

describe('rows', () => {
  const bytes = sampleParquet()
  const files = { [TABLE + 'a.parquet']: bytes }
  const fetch = memoryFetch(files)
  const fields = [field('id', 'long'), field('name', 'string')]

  test('reads all rows with Delta value types', async () => {
    const rows = await readRows(snapshot(fields, [addFile('a.parquet', bytes)]), { fetch })
    expect(rows).toHaveLength(7)
    expect(rows[6]).toEqual({ id: 6n, name: 'n6' })
  })

  test('adds typed partition columns and honours columns + limit', async () => {
    const withPart = [...fields, field('day', 'date'), field('k', 'integer')]
    const file = addFile('a.parquet', bytes, { partitionValues: { day: '2021-09-08', k: null } })
    const snap = snapshot(withPart, [file, file], { partitionColumns: ['day', 'k'] })
    const rows = await readRows(snap, { fetch, columns: ['k', 'day', 'id'], limit: 9 })
    expect(rows).toHaveLength(9)
    expect(rows[8]).toEqual({ k: null, day: '2021-09-08', id: 1n })
    expect(Object.keys(rows[0])).toEqual(['k', 'day', 'id'])
  })

  test('a deletion vector removes rows by index within the file, across row groups', async () => {
    const bitmap = deltaBitmap([0, 3, 4, 6], 'plain')
    const padded = new Uint8Array(Math.ceil(bitmap.length / 4) * 4)
    padded.set(bitmap)
    const deletionVector = {
      storageType: 'i' as const,
      pathOrInlineDv: z85Encode(padded),
      sizeInBytes: bitmap.length,
      cardinality: 4,
    }
    const snap = snapshot(fields, [addFile('a.parquet', bytes, { deletionVector })])
    const rows = await readRows(snap, { fetch })
    expect(rows.map(r => r.id)).toEqual([1n, 2n, 5n])
    const batches: number[] = []
    for await (const batch of scanFile(snap, snap.files[0], { fetch })) batches.push(batch.length)
    expect(batches).toEqual([2, 1, 0])
  })

  test('a row group deleted entirely yields nothing; limit spans files', async () => {
    const bitmap = deltaBitmap([0, 1, 2], 'run')
    const padded = new Uint8Array(Math.ceil(bitmap.length / 4) * 4)
    padded.set(bitmap)
    const deletionVector = {
      storageType: 'i' as const,
      pathOrInlineDv: z85Encode(padded),
      sizeInBytes: bitmap.length,
      cardinality: 3,
    }
    const file = addFile('a.parquet', bytes, { deletionVector })
    const snap = snapshot(fields, [file, addFile('a.parquet', bytes), file])
    expect((await readRows(snap, { fetch })).map(r => r.id)).toEqual([
      3n,
      4n,
      5n,
      6n,
      0n,
      1n,
      2n,
      3n,
      4n,
      5n,
      6n,
      3n,
      4n,
      5n,
      6n,
    ])
    expect((await readRows(snap, { fetch, limit: 6 })).map(r => r.id)).toEqual([3n, 4n, 5n, 6n, 0n, 1n])
    expect(await readRows(snap, { fetch, limit: 0 })).toEqual([])
  })

  test('column mapping: reads physical columns, returns logical names', async () => {
    const mapped = sampleParquet('col-a', 'col-b')
    const f = memoryFetch({ [TABLE + 'm.parquet']: mapped })
    const mappedFields = [
      field('id', 'long', { metadata: { 'delta.columnMapping.physicalName': 'col-a', 'delta.columnMapping.id': 1 } }),
      field('name', 'string', {
        metadata: { 'delta.columnMapping.physicalName': 'col-b', 'delta.columnMapping.id': 2 },
      }),
    ]
    const rows = await readRows(snapshot(mappedFields, [addFile('m.parquet', mapped)], { columnMapping: 'name' }), {
      fetch: f,
    })
    expect(rows[2]).toEqual({ id: 2n, name: 'n2' })
  })

  test('a column missing from the file reads as null; a non-nullable one is a schema error', async () => {
    const rows = await readRows(snapshot([...fields, field('extra', 'double')], [addFile('a.parquet', bytes)]), {
      fetch,
      limit: 1,
    })
    expect(rows[0]).toEqual({ id: 0n, name: 'n0', extra: null })
    const strict = snapshot([...fields, field('extra', 'double', { nullable: false })], [addFile('a.parquet', bytes)])
    const error = await readRows(strict, { fetch }).catch(e => e)
    expect(error).toBeInstanceOf(TableError)
    expect(error.code).toBe('schema')
    expect(error.message).toContain(TABLE + 'a.parquet')
    expect(error.message).toContain("'extra'")
  })

  test('corrupt and truncated parquet files are corrupt-file errors naming the URL', async () => {
    const garbage = new Uint8Array(bytes.length).fill(7)
    const truncated = bytes.slice(0, bytes.length - 10)
    for (const [name, body] of [
      ['g.parquet', garbage],
      ['t.parquet', truncated],
    ] as const) {
      const snap = snapshot(fields, [addFile(name, body)])
      const error = await readRows(snap, { fetch: memoryFetch({ [TABLE + name]: body }) }).catch(e => e)
      expect(error, name).toBeInstanceOf(TableError)
      expect(error.code).toBe('corrupt-file')
      expect(error.message).toContain(TABLE + name)
    }
  })

  test('a missing data file is an http error; an unknown column a schema error', async () => {
    const error = await readRows(snapshot(fields, [addFile('gone.parquet', bytes)]), { fetch, attempts: 1 }).catch(
      e => e,
    )
    expect(error.code).toBe('http')
    expect(error.message).toContain('gone.parquet')
    await expect(readRows(snapshot(fields, []), { fetch, columns: ['nope'] })).rejects.toThrow(/no column 'nope'/)
  })
})
