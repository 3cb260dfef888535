/**
 * The fast column path (src/parquet/page-decode.ts via unit-fast.ts) against hyparquet's general
 * path + decode.ts, byte for byte: on clicks (where every column must take the fast path — the
 * loader's speed depends on it), on every conformance table that plans, and on written files that
 * exercise the cases it must decline (nulls in ints, ragged lists) or handle (NaN nulls, several
 * pages, dictionary floats, uncompressed pages, rows cut from mid-group).
 */
import { readdirSync } from 'node:fs'
import { parquetMetadata, parquetRead } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { describe, expect, it } from 'vitest'
import { decodeColumn } from '../../../src/data/decode.ts'
import type { ColumnEncoding, DecodedColumn, PlanFile, Unit } from '../../../src/data/types.ts'
import { fetchRanges, type UnitBytes } from '../../../src/parquet/unit-bytes.ts'
import { resolveColumns, type ColumnSource } from '../../../src/data/unit-columns.ts'
import { decodeFastColumns } from '../../../src/data/unit-fast.ts'
import { selectFast } from '../../../src/parquet/page-decode.ts'
import { CLICKS, GOLDEN, openFixture, type Fixture } from './loader-fixtures.ts'

/** The whole file in memory as UnitBytes (every chunk is inside the one fetched range). */
async function wholeFile(buffer: ArrayBuffer): Promise<UnitBytes> {
  const file = { byteLength: buffer.byteLength, slice: async (a: number, b?: number) => buffer.slice(a, b) }
  return fetchRanges(file, [{ start: 0, end: buffer.byteLength }])
}

/** hyparquet's general path for one column of one unit, as the unit reader runs it. */
async function general(
  buffer: ArrayBuffer,
  file: PlanFile,
  unit: Unit,
  c: ColumnSource & { kind: 'parquet' },
): Promise<DecodedColumn> {
  const chunks: { rowStart: number; data: ArrayLike<unknown> }[] = []
  await parquetRead({
    file: buffer,
    metadata: file.metadata,
    columns: [c.parquetName],
    rowStart: unit.rowStart,
    rowEnd: unit.rowEnd,
    compressors,
    utf8: false,
    parsers: { dateFromDays: (d: number) => d },
    onChunk: ({ columnData, rowStart }) => chunks.push({ rowStart, data: columnData }),
  })
  return decodeColumn(chunks, { start: unit.rowStart, end: unit.rowEnd, live: unit.live }, c.encoding, {
    column: c.name,
    url: file.url,
  })
}

function bytesOf(c: DecodedColumn): number[] {
  return Array.from(new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength))
}

/** Compares both paths on every unit and column; returns how many columns took the fast path. */
async function compareAll(
  fx: Fixture,
  read: (file: PlanFile) => Promise<ArrayBuffer>,
  units = fx.plan.units,
): Promise<{ fast: number; total: number }> {
  let fast = 0
  let total = 0
  for (const unit of units) {
    const file = fx.plan.files[unit.fileIndex]
    const buffer = await read(file)
    const columns = resolveColumns(fx.plan, file, {})
    const got = decodeFastColumns(await wholeFile(buffer), file, unit, columns, compressors)
    for (const c of columns) {
      if (c.kind !== 'parquet') continue
      total++
      const mine = got.get(c.name)
      if (!mine) continue
      fast++
      const want = await general(buffer, file, unit, c)
      expect(mine.length, `${file.url} ${c.name}: list length`).toBe(want.length)
      expect(bytesOf(mine), `${file.url} unit ${unit.id} ${c.name} (${c.encoding})`).toEqual(bytesOf(want))
    }
  }
  return { fast, total }
}

async function bodyOf(fx: Fixture, file: PlanFile): Promise<ArrayBuffer> {
  return (await fx.fetch(file.url)).arrayBuffer()
}

describe('fast column path vs hyparquet + decode.ts', () => {
  // Variable-length lists (hash_list: `history`) have no fast path yet; the general path decodes them.
  it('clicks: every column but the variable-length list takes the fast path, byte-identical (whole row groups and mid-group units)', async () => {
    for (const maxUnitRows of [undefined, 3001]) {
      const fx = await openFixture(CLICKS, undefined, false, maxUnitRows)
      const buffers = new Map<string, Promise<ArrayBuffer>>()
      const read = (f: PlanFile): Promise<ArrayBuffer> =>
        buffers.get(f.url) ?? buffers.set(f.url, bodyOf(fx, f)).get(f.url)!
      // Fast path on every unit; the (slow) general path compared on a sample from different files:
      // two whole row groups (first and last file; ~3 s for three), three units cut mid-group.
      for (const unit of fx.plan.units) {
        const file = fx.plan.files[unit.fileIndex]
        const columns = resolveColumns(fx.plan, file, {})
        const got = decodeFastColumns(await wholeFile(await read(file)), file, unit, columns, compressors)
        expect([...got.keys()].sort()).toEqual(
          columns
            .map(c => c.name)
            .filter(n => n !== 'history')
            .sort(),
        )
      }
      const units = fx.plan.units
      const sample = maxUnitRows
        ? [units[1], units[units.length >> 1], units[units.length - 1]]
        : [units[1], units[units.length - 1]]
      const { fast, total } = await compareAll(fx, read, sample)
      expect(fast).toBe(total - sample.length)
    }
  }, 60_000)

  it('conformance tables: identical wherever the fast path decodes', async () => {
    let fast = 0
    for (const table of readdirSync(GOLDEN).filter(t => !t.endsWith('.json'))) {
      const fx = await openFixture(`${GOLDEN}/${table}`, undefined, false).catch(() => undefined)
      if (!fx) continue // tables the reader refuses (other tests cover why)
      const safe = await compareAll(fx, f => bodyOf(fx, f)).catch((e: Error) =>
        e.name === 'AssertionError' ? Promise.reject(e) : { fast: 0, total: 0 },
      )
      fast += safe.fast
    }
    expect(fast).toBeGreaterThan(20) // the path is exercised on Spark-written (v1 page) files too
  }, 60_000)
})

/** A written file as a one-file plan fixture. */
type WriteOptions = Omit<Parameters<typeof parquetWriteBuffer>[0], 'columnData'>

function written(columnData: Parameters<typeof parquetWriteBuffer>[0]['columnData'], opts: WriteOptions = {}) {
  const buffer = parquetWriteBuffer({ columnData, ...opts })
  const metadata = parquetMetadata(buffer)
  const file: PlanFile = {
    index: 0,
    path: 'mem.parquet',
    url: 'mem://mem.parquet',
    size: buffer.byteLength,
    partitionValues: {},
    metadata,
  }
  let row = 0
  const units: Unit[] = metadata.row_groups.map((g, i) => {
    const rows = Number(g.num_rows)
    row += rows
    return { id: i, fileIndex: 0, rowGroup: i, rowStart: row - rows, rowEnd: row, liveRows: rows }
  })
  return { buffer, file, units }
}

async function fastOf(
  w: ReturnType<typeof written>,
  unit: Unit,
  name: string,
  encoding: ColumnEncoding,
): Promise<DecodedColumn | undefined> {
  const c: ColumnSource = { name, encoding, kind: 'parquet', parquetName: name }
  return decodeFastColumns(await wholeFile(w.buffer), w.file, unit, [c], compressors).get(name)
}

describe('fast column path on written files', () => {
  const n = 5000
  const floats = Float32Array.from({ length: n }, (_, i) => i / 7)
  const nullable = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : i * 0.5))

  it('spreads float nulls as NaN over several pages, compressed or not, and matches the general path', async () => {
    for (const codec of ['SNAPPY', 'UNCOMPRESSED'] as const) {
      const w = written(
        [
          { name: 'x', data: nullable, type: 'DOUBLE', nullable: true },
          { name: 'f', data: floats, type: 'FLOAT' },
        ],
        { pageSize: 4096, codec, rowGroupSize: 2000 },
      )
      expect(w.units.length).toBe(3)
      for (const unit of w.units) {
        for (const name of ['x', 'f']) {
          const mine = await fastOf(w, unit, name, 'float32')
          expect(mine, `${codec} ${name}`).toBeDefined()
          const want = await general(w.buffer, w.file, unit, {
            name,
            encoding: 'float32',
            kind: 'parquet',
            parquetName: name,
          })
          expect(bytesOf(mine!)).toEqual(bytesOf(want))
        }
      }
      const first = await fastOf(w, w.units[0], 'x', 'float32')
      expect(Number.isNaN(first!.values[0])).toBe(true)
      expect(first!.values[1]).toBe(0.5)
    }
  })

  it('selects live rows and mid-group ranges like the general path', async () => {
    const w = written([{ name: 'f', data: floats, type: 'FLOAT' }], { pageSize: 2048, rowGroupSize: n })
    const live = Uint32Array.from([3, 4, 1000, 2500, 4999])
    const unit: Unit = { id: 0, fileIndex: 0, rowGroup: 0, rowStart: 3, rowEnd: 5000, live, liveRows: live.length }
    const mine = await fastOf(w, unit, 'f', 'float32')
    expect(Array.from(mine!.values)).toEqual(Array.from(live, r => floats[r]))
    const cut: Unit = { id: 0, fileIndex: 0, rowGroup: 0, rowStart: 1234, rowEnd: 3210, liveRows: 3210 - 1234 }
    expect(Array.from((await fastOf(w, cut, 'f', 'float32'))!.values)).toEqual(Array.from(floats.subarray(1234, 3210)))
  })

  /** Schema: nullable int `i`, then a float list `l` (optional list and element when `nullable`). */
  function listFile(ints: (number | null)[], lists: (number | null)[][], nullable: boolean) {
    const rep = nullable ? 'OPTIONAL' : 'REQUIRED'
    return written(
      [
        { name: 'i', data: ints },
        { name: 'l', data: lists },
      ],
      {
        schema: [
          { name: 'root', num_children: 2 },
          { name: 'i', type: 'INT32', repetition_type: 'OPTIONAL' },
          { name: 'l', repetition_type: rep, converted_type: 'LIST', num_children: 1 },
          { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
          { name: 'element', type: 'FLOAT', repetition_type: rep },
        ],
      },
    )
  }

  it('declines what only the general path can report: nulls in int32/hash32 columns, ragged or null lists', async () => {
    const ints = Array.from({ length: 100 }, (_, i) => (i === 50 ? null : i))
    const ragged = listFile(
      ints,
      Array.from({ length: 100 }, (_, i) => Array.from({ length: 1 + (i % 2) }, () => 1.5)),
      false,
    )
    expect(await fastOf(ragged, ragged.units[0], 'i', 'int32')).toBeUndefined()
    expect(await fastOf(ragged, ragged.units[0], 'i', 'hash32')).toBeUndefined()
    expect(await fastOf(ragged, ragged.units[0], 'l', 'fixed_list')).toBeUndefined()
    expect((await fastOf(ragged, ragged.units[0], 'i', 'float32'))!.values[50]).toBeNaN()
    const holes = listFile(
      ints,
      Array.from({ length: 100 }, (_, i) => [i, i === 7 ? null : 2]),
      true,
    )
    expect(await fastOf(holes, holes.units[0], 'l', 'fixed_list')).toBeUndefined()
  })

  it('decodes fixed-length lists (required or optional levels) to a flat n × L array', async () => {
    for (const nullable of [false, true]) {
      const lists = Array.from({ length: 300 }, (_, i) => [i, i + 0.5, -i])
      const w = listFile(
        Array.from({ length: 300 }, (_, i) => i),
        lists,
        nullable,
      )
      const mine = await fastOf(w, w.units[0], 'l', 'fixed_list')
      expect(mine, `nullable ${nullable}`).toMatchObject({ encoding: 'fixed_list', length: 3 })
      expect(Array.from(mine!.values)).toEqual(lists.flat())
    }
  })

  it('decodes dictionary-encoded ints and strings to the general path hashes', async () => {
    const w = written([
      { name: 's', data: Array.from({ length: 3000 }, (_, i) => ['a', 'bé', 'c'][i % 3]), type: 'STRING' },
      { name: 'k', data: Int32Array.from({ length: 3000 }, (_, i) => i % 5), type: 'INT32' },
    ])
    for (const [name, encoding] of [
      ['s', 'hash32'],
      ['k', 'hash32'],
      ['k', 'int32'],
      ['k', 'float32'],
    ] as const) {
      const mine = await fastOf(w, w.units[0], name, encoding)
      expect(mine, `${name} as ${encoding}`).toBeDefined()
      const want = await general(w.buffer, w.file, w.units[0], { name, encoding, kind: 'parquet', parquetName: name })
      expect(bytesOf(mine!)).toEqual(bytesOf(want))
    }
  })
})

describe('fast column path: what it hands over', () => {
  it('a whole chunk in its own array goes as it is; a view into shared bytes is copied, so a transfer never detaches them', () => {
    const owned = Float32Array.from([1, 2, 3, 4, 5, 6])
    const chunk = { rowStart: 10, rows: 6, width: 1, values: owned }
    expect(selectFast(chunk, { start: 10, end: 16 }, 'float32')).toBe(owned)
    const part = selectFast(chunk, { start: 11, end: 13 }, 'float32')
    expect(part).not.toBe(owned)
    expect(Array.from(part)).toEqual([2, 3])

    const shared = new Float32Array(10).fill(7)
    const view = new Float32Array(shared.buffer, 8, 6) // like an uncompressed page inside the fetched chunk
    const out = selectFast({ rowStart: 0, rows: 6, width: 1, values: view }, { start: 0, end: 6 }, 'float32')
    expect(out).not.toBe(view)
    expect(out.byteOffset === 0 && out.byteLength === out.buffer.byteLength).toBe(true)
    structuredClone(out, { transfer: [out.buffer as ArrayBuffer] })
    expect(shared.buffer.byteLength).toBe(40)
    expect(Array.from(view)).toEqual([7, 7, 7, 7, 7, 7])
  })

  it('a unit of an uncompressed one-page chunk is decoded again from the same bytes after its values were transferred', async () => {
    const floats = Float32Array.from({ length: 300 }, (_, i) => i / 3)
    const w = written([{ name: 'f', data: floats, type: 'FLOAT' }], { codec: 'UNCOMPRESSED', rowGroupSize: 300 })
    const unit = w.units[0]
    const bytes = await wholeFile(w.buffer)
    const c: ColumnSource = { name: 'f', encoding: 'float32', kind: 'parquet', parquetName: 'f' }
    const first = decodeFastColumns(bytes, w.file, unit, [c], compressors).get('f')!
    expect(first).toBeDefined()
    const copy = Array.from(first.values)
    structuredClone(first.values, { transfer: [first.values.buffer as ArrayBuffer] })
    const again = decodeFastColumns(bytes, w.file, unit, [c], compressors).get('f')!
    expect(Array.from(again.values)).toEqual(copy)
    expect(copy[299]).toBeCloseTo(299 / 3, 5)
  })
})
