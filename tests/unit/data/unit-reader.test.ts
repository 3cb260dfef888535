import { beforeAll, describe, expect, it } from 'vitest'
import { createUnitReader, readUnit } from '../../../src/data/unit-reader.ts'
import type { ColumnEncoding, DecodeSpec, DecodedUnit } from '../../../src/data/types.ts'
import {
  CLICKS,
  GOLDEN,
  concatValues,
  expectedColumn,
  concatLengths,
  expectedLengths,
  firstMismatch,
  openFixture,
  type Fixture,
} from './loader-fixtures.ts'

const SPEC: DecodeSpec = { user_id: 'hash32', item_id: 'int32' }

async function readAll(fx: Fixture, spec: DecodeSpec, ids = false): Promise<DecodedUnit[]> {
  const reader = createUnitReader(fx.plan, spec, { fetch: fx.fetch })
  return Promise.all(fx.plan.units.map(u => reader.read(u.id, { ids })))
}

// clicks (213k rows) read once by the row reader, and each column's expected values computed once
// (the reference hash is slow): both describes below compare against them.
let clicks: Promise<Fixture> | undefined
const clicksFixture = (): Promise<Fixture> => (clicks ??= openFixture(CLICKS))
const expected = new Map<string, number[]>()
function expectedClicks(rows: Fixture['rows'], name: string, encoding: ColumnEncoding): number[] {
  const key = `${name} ${encoding}`
  if (!expected.has(key)) expected.set(key, expectedColumn(rows, name, encoding))
  return expected.get(key)!
}

describe('readUnit on clicks', () => {
  let fx: Fixture
  let units: DecodedUnit[]
  beforeAll(async () => {
    fx = await clicksFixture()
    units = await readAll(fx, SPEC, true)
  }, 60_000)

  it('decodes every column to the row reader values (after the same encoding)', () => {
    expect(units.reduce((n, u) => n + u.rows, 0)).toBe(fx.rows.length)
    for (const name of fx.plan.columns) {
      const columns = units.map(u => u.columns[name])
      const want = expectedClicks(fx.rows, name, columns[0].encoding)
      const at = firstMismatch(concatValues(columns), want)
      expect(at, `${name} (${columns[0].encoding}) differs at ${at}`).toBe(-1)
      if (columns[0].encoding !== 'hash_list') continue
      const row = firstMismatch(concatLengths(columns), expectedLengths(fx.rows, name))
      expect(row, `${name}: item count differs at row ${row}`).toBe(-1)
    }
  })

  it('uses the documented typed arrays: hash32 ids, int32, NaN floats, emb as n × 8 Float32Array', () => {
    const u = units[0]
    expect(u.columns.user_id).toMatchObject({ encoding: 'hash32' })
    expect(u.columns.user_id.values).toBeInstanceOf(Uint32Array)
    expect(u.columns.item_id.values).toBeInstanceOf(Int32Array)
    expect(u.columns.device.values).toBeInstanceOf(Uint32Array)
    expect(u.columns.label.values).toBeInstanceOf(Int32Array)
    expect(u.columns.dense_2.values).toBeInstanceOf(Float32Array)
    expect(units.some(x => Array.from(x.columns.dense_2.values).some(Number.isNaN))).toBe(true)
    expect(u.columns.emb).toMatchObject({ encoding: 'fixed_list', length: 8 })
    expect(u.columns.emb.values).toBeInstanceOf(Float32Array)
    expect(u.columns.emb.values.length).toBe(u.rows * 8)
  })

  it('returns row identities matching the plan', () => {
    for (const [i, u] of units.entries()) {
      const unit = fx.plan.units[i]
      const want = unit.live ?? Uint32Array.from({ length: unit.rowEnd - unit.rowStart }, (_, k) => unit.rowStart + k)
      expect(u.unitId).toBe(unit.id)
      expect(Array.from(u.rowIds!)).toEqual(Array.from(want))
    }
  })

  it('hashes strings the same in separate readers (stable across workers and runs)', async () => {
    const again = await readUnit(fx.plan, 3, SPEC, { fetch: fx.fetch })
    expect(Array.from(again.columns.country.values)).toEqual(Array.from(units[3].columns.country.values))
  })

  it('range-reads only the needed columns of the unit, never the footer', async () => {
    const fetch = Object.assign(fx.fetch, {}) as typeof fx.fetch & { requests: { range?: string }[] }
    const before = fetch.requests.length
    const reader = createUnitReader(
      {
        ...fx.plan,
        columns: ['label'],
        schema: { ...fx.plan.schema!, fields: fx.plan.schema!.fields.filter(f => f.name === 'label') },
      },
      {},
      { fetch },
    )
    const u = await reader.read(1)
    const seen = fetch.requests.slice(before)
    expect(seen.length).toBe(1)
    const [, from, to] = /bytes=(\d+)-(\d+)/.exec(seen[0].range!)!.map(Number)
    expect(to - from + 1).toBeLessThan(fx.plan.files[0].size / 20)
    expect(u.timing.bytes).toBe(to - from + 1)
    expect(Array.from(u.columns.label.values)).toEqual(Array.from(units[1].columns.label.values))
  })

  it('refuses nulls in an id column, naming the column and the file', async () => {
    const reader = createUnitReader(fx.plan, { dense_2: 'hash32' }, { fetch: fx.fetch })
    let err: unknown
    for (const u of fx.plan.units)
      if (!err)
        err = await reader
          .read(u.id)
          .catch((e: Error) => e)
          .then(r => (r instanceof Error ? r : undefined))
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toMatch(
      /part-\d+-[0-9a-f-]+\.snappy\.parquet: column 'dense_2': null value .* at file row \d+/,
    )
  })

  it('names an unknown column in the decode spec', async () => {
    const big = { ...fx.plan, units: fx.plan.units.slice(0, 1) }
    await expect(readUnit(big, 0, { nope: 'int32' }, { fetch: fx.fetch })).rejects.toThrow(/'nope'/)
  })
})

describe('readUnit on units cut from inside row groups', () => {
  it('decodes row ranges that start and end mid-group (pages skipped, lists clipped) exactly', async () => {
    // Planned anew with small units; the rows (same table order) are the whole table's above.
    const fx = await openFixture(CLICKS, ['user_id', 'country', 'dense_2', 'emb', 'label'], false, 3001)
    const { rows } = await clicksFixture()
    expect(fx.plan.units.some(u => u.rowStart % 12500 !== 0)).toBe(true)
    const units = await readAll(fx, { user_id: 'hash32' })
    for (const name of fx.plan.columns) {
      const columns = units.map(u => u.columns[name])
      const at = firstMismatch(concatValues(columns), expectedClicks(rows, name, columns[0].encoding))
      expect(at, `${name} differs at ${at}`).toBe(-1)
    }
  })
})

describe('readUnit on conformance tables (deletion vectors, column mapping, partitions)', () => {
  for (const table of [
    'dv-with-columnmapping',
    'table-with-dv-small',
    'table-with-dv-large',
    'dv-partitioned-with-checkpoint',
  ]) {
    it(`${table}: live rows equal the row reader's`, async () => {
      const fx = await openFixture(`${GOLDEN}/${table}`)
      const units = await readAll(fx, {})
      expect(units.reduce((n, u) => n + u.rows, 0)).toBe(fx.rows.length)
      for (const name of fx.plan.columns) {
        const columns = units.map(u => u.columns[name])
        if (!columns.length) continue
        const at = firstMismatch(concatValues(columns), expectedColumn(fx.rows, name, columns[0].encoding))
        expect(at, `${table}.${name} differs at ${at}`).toBe(-1)
      }
    })
  }
})
