/**
 * Row values of golden tables whose EXPECTED.json entry states only a row count: the expected
 * rows are rebuilt here from the generator described in each entry's note (delta-io/delta
 * GoldenTables), and compared with the exact Row value types of types.ts.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { readRows } from '../../../src/table/rows.ts'
import { openSnapshot } from '../../../src/table/snapshot.ts'
import { Timestamp } from '../../../src/table/timestamp.ts'
import type { Row } from '../../../src/table/types.ts'
import { canonicalRow } from '../../support/canonical.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const GOLDEN = fileURLToPath(new URL('../../conformance/golden/', import.meta.url))

async function golden(name: string): Promise<{ rows: Row[]; snapshot: Awaited<ReturnType<typeof openSnapshot>> }> {
  const dir = join(GOLDEN, name)
  const snapshot = await openSnapshot('http://table.test/', { fetch: fileFetch(dir) })
  return { rows: await readRows(snapshot, { fetch: fileFetch(dir) }), snapshot }
}

/** Rows sorted by one column, nulls first, for order-free comparison. */
function sortBy(rows: Row[], column: string): Row[] {
  return [...rows].sort((a, b) =>
    a[column] === null ? -1 : b[column] === null ? 1 : Number(a[column]) - Number(b[column]),
  )
}

const ten = Array.from({ length: 10 }, (_, i) => i)

describe('golden row values', () => {
  test('data-reader-primitives: every primitive type, one all-null row', async () => {
    const { rows } = await golden('data-reader-primitives')
    const nullRow = Object.fromEntries(
      [
        'as_int',
        'as_long',
        'as_byte',
        'as_short',
        'as_boolean',
        'as_float',
        'as_double',
        'as_string',
        'as_binary',
        'as_big_decimal',
      ].map(c => [c, null]),
    )
    expect(sortBy(rows, 'as_int')).toEqual([
      nullRow,
      ...ten.map(i => ({
        as_int: i,
        as_long: BigInt(i),
        as_byte: i,
        as_short: i,
        as_boolean: i % 2 === 0,
        as_float: i,
        as_double: i,
        as_string: String(i),
        as_binary: new Uint8Array([i, i]),
        as_big_decimal: String(i),
      })),
    ])
  })

  test('data-reader-partition-values: typed partition columns, null partitions, the string "null"', async () => {
    const { rows } = await golden('data-reader-partition-values')
    const row = (i: number, nullParts: boolean): Row => ({
      as_int: nullParts ? null : i,
      as_long: nullParts ? null : BigInt(i),
      as_byte: nullParts ? null : i,
      as_short: nullParts ? null : i,
      as_boolean: nullParts ? null : i % 2 === 0,
      as_float: nullParts ? null : i,
      as_double: nullParts ? null : i,
      as_string: nullParts ? null : String(i),
      as_string_lit_null: nullParts ? null : 'null',
      as_date: nullParts ? null : '2021-09-08',
      as_timestamp: nullParts ? null : Timestamp.parse('2021-09-08T11:11:11Z'),
      as_big_decimal: nullParts ? null : String(i),
      as_list_of_records: [{ val: i }, { val: i }, { val: i }],
      as_nested_struct: { aa: String(i), ab: String(i), ac: { aca: i, acb: BigInt(i) } },
      value: String(i),
    })
    expect([...rows].sort((a, b) => Number(a.value) - Number(b.value))).toEqual([
      row(0, false),
      row(1, false),
      row(2, true),
    ])
  })

  test('data-reader-map: Maps keep typed keys', async () => {
    const { rows } = await golden('data-reader-map')
    expect(sortBy(rows, 'i')).toEqual(
      ten.map(i => ({
        i,
        a: new Map([[i, i]]),
        b: new Map([[BigInt(i), i]]),
        c: new Map([[i, i % 2 === 0]]),
        d: new Map([[i, i]]),
        e: new Map([[String(i), String(i)]]),
        f: new Map([[i, [{ val: i }, { val: i }, { val: i }]]]),
      })),
    )
  })

  test('data-reader-nested-struct and data-reader-array-primitives', async () => {
    const nested = await golden('data-reader-nested-struct')
    expect(sortBy(nested.rows, 'b')).toEqual(
      ten.map(i => ({
        a: { aa: String(i), ab: String(i), ac: { aca: i, acb: BigInt(i) } },
        b: i,
      })),
    )
    const arrays = await golden('data-reader-array-primitives')
    expect([...arrays.rows].sort((a, b) => (a.as_array_int as number[])[0] - (b.as_array_int as number[])[0])).toEqual(
      ten.map(i => ({
        as_array_int: [i],
        as_array_long: [BigInt(i)],
        as_array_byte: [i],
        as_array_short: [i],
        as_array_boolean: [i % 2 === 0],
        as_array_float: [i],
        as_array_double: [i],
        as_array_string: [String(i)],
        as_array_binary: [new Uint8Array([i, i])],
        as_array_big_decimal: [String(i)],
      })),
    )
  })

  test('column mapping mode id and mode name read the same 22 columns', async () => {
    const byName = await golden('table-with-columnmapping-mode-name')
    const byId = await golden('table-with-columnmapping-mode-id')
    expect(byId.snapshot.columnMapping).toBe('id')
    const canon = (g: typeof byName) => g.rows.map(r => canonicalRow(r, g.snapshot.schema.fields)).sort()
    expect(byId.snapshot.schema.fields.map(f => f.name)).toEqual(byName.snapshot.schema.fields.map(f => f.name))
    expect(canon(byId)).toEqual(canon(byName))
    expect(byId.rows).toHaveLength(6)
    expect(byId.rows.filter(r => Object.values(r).every(v => v === null))).toHaveLength(1)
  })
})
