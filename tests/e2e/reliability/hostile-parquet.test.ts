/**
 * Parquet files that claim far more than they hold: pages whose declared sizes outrun the row
 * group, decompression bombs, and a wide table. Each hostile file is refused within 10 s, naming
 * the file, the column and the limit, without the process growing past a stated memory bound.
 * Files are hand-assembled at test time (page header, body, footer) so each lie is exact.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { ByteWriter } from 'hyparquet-writer/src/bytewriter.js'
import { writeMetadata } from 'hyparquet-writer/src/metadata.js'
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js'
import { snappyCompress } from 'hysnappy'
import { afterAll, describe, expect, it } from 'vitest'
import { boundedCompressors } from '../../../src/parquet/codecs.ts'
import { DEFAULT_MAX_PAGE_BYTES } from '../../../src/parquet/page-bounds.ts'
import { serveDirectory } from '../../../src/serve/server.ts'
import { openSnapshot, readRows, TableError } from '../../../src/table/index.ts'
import { runCliMeasured } from '../../support/cli.ts'

/** Peak RSS a refused CLI case may reach: Node + the TypeScript loader + the CLI, with room to spare. */
const CLI_RSS_MIB = 400
/** Growth of this process's RSS an in-process refusal may cause (the old code allocated 1–2 GiB). */
const IN_PROCESS_RSS_MIB = 150
const ANSWER_MS = 10_000
const GIB = 2 ** 30

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-hostile-parquet-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** What a crafted one-column, one-page file declares. */
interface Craft {
  type: 'INT64' | 'BYTE_ARRAY'
  codec: 'UNCOMPRESSED' | 'SNAPPY' | 'GZIP' | 'ZSTD'
  rows: number
  /** The row group's (and file's) rows; default `rows`. */
  groupRows?: number
  body: Uint8Array
  /** The page's uncompressed_page_size. */
  pageSize: number
  /** The chunk's total_uncompressed_size; default the page's size plus its header. */
  chunkSize?: bigint
}

const CODECS = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW']

/** A Parquet file of one required column `v` holding one PLAIN data page (v1) with `c.body`. */
function craftParquet(c: Craft): Uint8Array {
  const header = new ByteWriter()
  serializeTCompactProtocol(header, {
    field_1: 0,
    field_2: c.pageSize,
    field_3: c.body.length,
    field_5: { field_1: c.rows, field_2: 0, field_3: 3, field_4: 3 },
  })
  const headerBytes = new Uint8Array(header.getBuffer())
  const out = new ByteWriter()
  out.appendBytes(new TextEncoder().encode('PAR1'))
  out.appendBytes(headerBytes)
  out.appendBytes(c.body)
  const chunkBytes = headerBytes.length + c.body.length
  const meta = {
    type: c.type,
    encodings: ['PLAIN'],
    path_in_schema: ['v'],
    codec: c.codec,
    num_values: BigInt(c.rows),
    total_uncompressed_size: c.chunkSize ?? BigInt(c.pageSize + headerBytes.length),
    total_compressed_size: BigInt(chunkBytes),
    data_page_offset: 4n,
  }
  const groupRows = BigInt(c.groupRows ?? c.rows)
  const metadata = {
    version: 2,
    num_rows: groupRows,
    created_by: 'hostile-parquet.test',
    schema: [
      { name: 'root', num_children: 1 },
      { name: 'v', type: c.type, repetition_type: 'REQUIRED' },
    ],
    row_groups: [
      { columns: [{ file_offset: 4n, meta_data: meta }], total_byte_size: BigInt(chunkBytes), num_rows: groupRows },
    ],
  }
  const start = out.offset
  writeMetadata(out, metadata as never)
  out.appendUint32(out.offset - start)
  out.appendBytes(new TextEncoder().encode('PAR1'))
  expect(CODECS).toContain(c.codec)
  return new Uint8Array(out.getBuffer())
}

/** A one-file Delta table around `bytes`, whose column `v` has Delta type `type`. */
function table(name: string, bytes: Uint8Array, type: string, rows: number): string {
  const dir = join(tmp, name)
  mkdirSync(join(dir, '_delta_log'), { recursive: true })
  writeFileSync(join(dir, 'part-0.parquet'), bytes)
  const schemaString = JSON.stringify({ type: 'struct', fields: [{ name: 'v', type, nullable: false, metadata: {} }] })
  const lines = [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    {
      metaData: {
        id: name,
        format: { provider: 'parquet', options: {} },
        schemaString,
        partitionColumns: [],
        configuration: {},
      },
    },
    {
      add: {
        path: 'part-0.parquet',
        partitionValues: {},
        size: bytes.byteLength,
        modificationTime: 0,
        dataChange: true,
        stats: JSON.stringify({ numRecords: rows }),
      },
    },
  ]
  writeFileSync(join(dir, '_delta_log/00000000000000000000.json'), `${lines.map(l => JSON.stringify(l)).join('\n')}\n`)
  return dir
}

/**
 * A zstd frame of `bytes` zeros made of RLE blocks (4 bytes per 128 KiB): 1 GiB in 32 KiB.
 * `statesSize`: whether the frame header carries the content size (8 bytes) or only a window.
 */
function zstdZeros(bytes: number, statesSize: boolean): Uint8Array {
  const block = 128 * 1024
  const blocks = Math.ceil(bytes / block)
  const head = statesSize ? [0x28, 0xb5, 0x2f, 0xfd, 0xe0, ...u64(bytes)] : [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58]
  const out = new Uint8Array(head.length + blocks * 4)
  out.set(head)
  for (let i = 0, at = head.length; i < blocks; i++, at += 4) {
    const size = Math.min(block, bytes - i * block)
    const h = (size << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0) // RLE block
    out[at] = h & 0xff
    out[at + 1] = (h >>> 8) & 0xff
    out[at + 2] = (h >>> 16) & 0xff
    out[at + 3] = 0
  }
  return out
}

function u64(v: number): number[] {
  return Array.from({ length: 8 }, (_, i) => Math.floor(v / 2 ** (8 * i)) & 0xff)
}

/** Reads every row of the table at `dir` in this process, through the loopback server. */
async function readTable(dir: string): Promise<unknown> {
  const server = await serveDirectory(dir, {})
  try {
    return await readRows(await openSnapshot(server.url))
  } finally {
    await server.close()
  }
}

/** The refusal of `dir` in this process, with the RSS it grew by and the time it took. */
async function refusal(dir: string): Promise<{ error: TableError; grewMiB: number; ms: number }> {
  const rss0 = process.memoryUsage().rss
  const t0 = performance.now()
  const error = await readTable(dir).then(
    () => undefined,
    (e: unknown) => e,
  )
  const ms = performance.now() - t0
  expect(error).toBeInstanceOf(TableError)
  expect((error as TableError).code).toBe('corrupt-file')
  return { error: error as TableError, grewMiB: (process.memoryUsage().rss - rss0) / 2 ** 20, ms }
}

describe('pages declaring more than the row group can hold', () => {
  it('a 1-row snappy page claiming 2^31−1 bytes is refused by scan, bounded in time and memory', async () => {
    const value = new Uint8Array(8)
    const bytes = craftParquet({
      type: 'INT64',
      codec: 'SNAPPY',
      rows: 1,
      body: snappyCompress(value),
      pageSize: 2 ** 31 - 1,
    })
    expect(bytes.byteLength).toBeLessThan(200)
    const dir = table('snappy-lie', bytes, 'long', 1)
    const r = await runCliMeasured(['scan', '--table', dir])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('part-0.parquet')
    expect(r.stderr).toContain("column 'v'")
    expect(r.stderr).toMatch(/over the \d+ that 1 INT64 values can take/)
    expect(r.ms).toBeLessThan(ANSWER_MS)
    expect(r.peakRssMiB).toBeLessThan(CLI_RSS_MIB)
  }, 30_000)

  it('a page larger than its chunk total is refused, naming the chunk total', async () => {
    const body = snappyCompress(new Uint8Array(8))
    const bytes = craftParquet({ type: 'INT64', codec: 'SNAPPY', rows: 1, body, pageSize: 8, chunkSize: 4n })
    const { error } = await refusal(table('page-over-chunk', bytes, 'long', 1))
    expect(error.message).toContain("column 'v'")
    expect(error.message).toContain("past the chunk's total_uncompressed_size of 4")
  })

  it('a chunk claiming more values than its row group has rows is refused', async () => {
    const bytes = craftParquet({
      type: 'INT64',
      codec: 'UNCOMPRESSED',
      rows: 1000,
      groupRows: 1,
      body: new Uint8Array(8),
      pageSize: 8,
    })
    const { error } = await refusal(table('values-over-rows', bytes, 'long', 1))
    expect(error.message).toContain("column 'v': the chunk declares 1000 values, the row group has 1 rows")
  })

  it('a fixed-width chunk declaring more bytes than its values can take is refused', async () => {
    const bytes = craftParquet({
      type: 'INT64',
      codec: 'UNCOMPRESSED',
      rows: 2,
      body: new Uint8Array(16),
      pageSize: 16,
      chunkSize: 10n ** 12n,
    })
    const { error } = await refusal(table('chunk-over-type', bytes, 'long', 2))
    expect(error.message).toContain('the chunk declares 1000000000000 uncompressed bytes, over the')
    expect(error.message).toContain('2 INT64 values can take')
  })

  it('a BYTE_ARRAY page over the page cap is refused before it is decompressed', async () => {
    const body = zstdZeros(GIB, true)
    expect(body.byteLength).toBeLessThan(40_000)
    const bytes = craftParquet({ type: 'BYTE_ARRAY', codec: 'ZSTD', rows: 1, body, pageSize: GIB })
    const { error, grewMiB, ms } = await refusal(table('zstd-declared', bytes, 'binary', 1))
    expect(error.message).toContain(`over the page cap of ${DEFAULT_MAX_PAGE_BYTES} (maxPageBytes)`)
    expect(error.message).toContain('part-0.parquet')
    expect(ms).toBeLessThan(ANSWER_MS)
    expect(grewMiB).toBeLessThan(IN_PROCESS_RSS_MIB)
  })
})

describe('decompression bombs under a small declared size', () => {
  it('a 33 KB zstd page whose frame inflates to 1 GiB stops at the declared 100 bytes', async () => {
    const bytes = craftParquet({
      type: 'BYTE_ARRAY',
      codec: 'ZSTD',
      rows: 1,
      body: zstdZeros(GIB, true),
      pageSize: 100,
    })
    const { error, grewMiB, ms } = await refusal(table('zstd-bomb', bytes, 'binary', 1))
    expect(error.message).toContain('part-0.parquet')
    expect(error.message).toContain('zstd frames state at least 1073741824 bytes, the page declares 100')
    expect(ms).toBeLessThan(ANSWER_MS)
    expect(grewMiB).toBeLessThan(IN_PROCESS_RSS_MIB)
  })

  it('a zstd frame that states no size is held to the declared size by its blocks', () => {
    const zstd = boundedCompressors(DEFAULT_MAX_PAGE_BYTES).ZSTD!
    expect(() => zstd(zstdZeros(GIB, false), 100)).toThrow(
      'zstd frames state at least 1073741824 bytes, the page declares 100',
    )
    expect(zstd(zstdZeros(100, false), 100)).toEqual(new Uint8Array(100))
    expect(zstd(zstdZeros(300, true), 300)).toEqual(new Uint8Array(300))
  })

  it('a gzip bomb is refused by its trailer before inflating; snappy by its preamble', () => {
    const codecs = boundedCompressors(DEFAULT_MAX_PAGE_BYTES)
    const bomb = gzipSync(new Uint8Array(64 * 2 ** 20))
    const t0 = performance.now()
    expect(() => codecs.GZIP!(bomb, 100)).toThrow('gzip trailer states 67108864 bytes, the page declares 100')
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(codecs.GZIP!(gzipSync(new Uint8Array(100).fill(7)), 100)).toEqual(new Uint8Array(100).fill(7))
    expect(() => codecs.SNAPPY!(snappyCompress(new Uint8Array(1000)), 2 ** 31 - 1)).toThrow('over the page cap')
    expect(() => codecs.SNAPPY!(snappyCompress(new Uint8Array(1000)), 999)).toThrow(
      'snappy data states 1000 bytes, the page declares 999',
    )
    for (const codec of ['BROTLI', 'LZ4', 'LZ4_RAW'] as const)
      expect(() => codecs[codec]!(new Uint8Array(4), GIB)).toThrow('over the page cap')
  })
})

describe('wide tables', () => {
  /** A 1-row table of `n` INT32 columns c0…c(n−1). */
  function wide(n: number): string {
    const columnData = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, data: [i], type: 'INT32' as const }))
    const bytes = new Uint8Array(parquetWriteBuffer({ columnData }))
    const dir = join(tmp, `wide-${n}`)
    mkdirSync(join(dir, '_delta_log'), { recursive: true })
    writeFileSync(join(dir, 'part-0.parquet'), bytes)
    const fields = columnData.map(c => ({ name: c.name, type: 'integer', nullable: true, metadata: {} }))
    const lines = [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      {
        metaData: {
          id: `wide-${n}`,
          format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify({ type: 'struct', fields }),
          partitionColumns: [],
          configuration: {},
        },
      },
      {
        add: {
          path: 'part-0.parquet',
          partitionValues: {},
          size: bytes.byteLength,
          modificationTime: 0,
          dataChange: true,
          stats: JSON.stringify({ numRecords: 1 }),
        },
      },
    ]
    writeFileSync(
      join(dir, '_delta_log/00000000000000000000.json'),
      `${lines.map(l => JSON.stringify(l)).join('\n')}\n`,
    )
    return dir
  }

  /** Reads one row; counts the bytes of the data file asked for (Range requests to part-0.parquet). */
  async function readCounted(dir: string, columns?: string[]): Promise<{ keys: number; bytes: number }> {
    const server = await serveDirectory(dir, {})
    const realFetch = globalThis.fetch
    let bytes = 0
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      const response = await realFetch(input, init)
      if (url.endsWith('/part-0.parquet')) bytes += (await response.clone().arrayBuffer()).byteLength
      return response
    }
    try {
      const snapshot = await openSnapshot(server.url)
      const rows = await readRows(snapshot, { columns, limit: 1 })
      return { keys: Object.keys(rows[0]).length, bytes }
    } finally {
      globalThis.fetch = realFetch
      await server.close()
    }
  }

  // Linear vs quadratic is a matter of seconds, so it is bounded by this test's own time limit, not
  // by a timing assertion: the old quadratic path took 61 s for one row of 50 000 columns (7.1 s for
  // 16 000); the linear one 1.2 s for 16 000.
  it('one row of a 50 000-column table is read whole within the hang bound; one column asks for its own chunk only', async () => {
    const broad = wide(50_000)
    const all = await readCounted(broad)
    const one = await readCounted(broad, ['c49999'])
    expect([all.keys, one.keys]).toEqual([50_000, 1])
    // Each INT32 column chunk of one value is ≥ 10 bytes; reading one column fetches the footer and
    // that chunk, so it asks for at least 49 999 × 10 bytes less than reading all of them.
    expect(all.bytes - one.bytes).toBeGreaterThan(49_999 * 10)
  }, 60_000) // the quadratic path needed 61 s for the whole read alone; this one 9 s on a quiet 2-core machine
})
