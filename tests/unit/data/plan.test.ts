import { describe, expect, test } from 'vitest'
import { FilterError } from '../../../src/data/filter-parse.ts'
import { evalFilter } from '../../../src/data/filter-eval.ts'
import { parseFilter } from '../../../src/data/filter-parse.ts'
import { footerFingerprint, planScan } from '../../../src/data/plan.ts'
import { openFile, readFooter } from '../../../src/table/rows.ts'
import type { ScanPlan } from '../../../src/data/types.ts'
import { liveRowAt } from '../../../src/data/units.ts'
import { loadDeletionVector } from '../../../src/table/deletion-vector.ts'
import { openSnapshot, readRows, scanFile, Timestamp } from '../../../src/table/index.ts'
import { TableError, type FetchLike, type Row, type Snapshot } from '../../../src/table/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { fileFetch, type FileFetch } from '../../support/file-fetch.ts'

const CLICKS = new URL('../../../public/tables/clicks', import.meta.url).pathname
const CONFORMANCE = 'tests/conformance/'
const URL_ = 'http://table.test/'

async function open(dir: string): Promise<{ snapshot: Snapshot; fetch: FileFetch }> {
  const fetch = fileFetch(dir)
  return { snapshot: await openSnapshot(URL_, { fetch }), fetch }
}

/**
 * The snapshot's files in table order: by footer fingerprint, then size, then path (the path
 * alone would not do: a share's files have no Delta path).
 */
async function tableOrder(snapshot: Snapshot, fetch: FileFetch): Promise<Snapshot['files']> {
  const keyed = await Promise.all(
    snapshot.files.map(async file => ({
      file,
      fingerprint: footerFingerprint(await readFooter(await openFile(file, { fetch }, snapshot.tableUrl), file.url)),
    })),
  )
  keyed.sort((a, b) =>
    a.fingerprint !== b.fingerprint
      ? a.fingerprint < b.fingerprint
        ? -1
        : 1
      : a.file.size - b.file.size || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0),
  )
  return keyed.map(k => k.file)
}

/** Live rows of a full scan with their identities 'path:fileRow', table order (scanFile drops DV rows). */
async function fullScan(snapshot: Snapshot, fetch: FileFetch, columns?: string[]): Promise<{ id: string; row: Row }[]> {
  const out: { id: string; row: Row }[] = []
  for (const file of await tableOrder(snapshot, fetch)) {
    const deleted = new Set(
      file.deletionVector ? await loadDeletionVector(file.deletionVector, snapshot.tableUrl, { fetch }) : [],
    )
    let fileRow = 0
    for await (const batch of scanFile(snapshot, file, { fetch, columns })) {
      for (const row of batch) {
        while (deleted.has(fileRow)) fileRow++
        out.push({ id: `${file.path}:${fileRow++}`, row })
      }
    }
  }
  return out
}

/** fileFetch with responses cached per (url, range), for tests that plan the same table many times. */
function cachingFetch(dir: string): FetchLike {
  const inner = fileFetch(dir)
  const cache = new Map<string, Promise<{ status: number; headers: Headers; body: ArrayBuffer }>>()
  return async (url, init) => {
    const key = `${url} ${new Headers(init?.headers).get('Range') ?? ''} ${init?.method ?? 'GET'}`
    if (!cache.has(key))
      cache.set(
        key,
        inner(url, init).then(async r => ({ status: r.status, headers: r.headers, body: await r.arrayBuffer() })),
      )
    const { status, headers, body } = await cache.get(key)!
    return new Response(status === 204 || init?.method === 'HEAD' ? null : body.slice(0), { status, headers })
  }
}

function planIds(plan: ScanPlan): string[] {
  return plan.units.flatMap(unit =>
    Array.from({ length: unit.liveRows }, (_, i) => `${plan.files[unit.fileIndex].path}:${liveRowAt(unit, i)}`),
  )
}

function expectedIds(rows: { id: string; row: Row }[], filter?: string): string[] {
  const expr = filter ? parseFilter(filter) : undefined
  return rows.filter(({ row }) => !expr || evalFilter(expr, row)).map(({ id }) => id)
}

/** Same identities in the same order; reports the first difference (toEqual on 200k strings is slow). */
function expectSameIds(actual: string[], expected: string[], filter = ''): void {
  const at = actual.findIndex((id, i) => id !== expected[i])
  const first = at >= 0 ? at : actual.length !== expected.length ? Math.min(actual.length, expected.length) : -1
  expect(
    first >= 0
      ? {
          filter,
          at: first,
          actual: actual[first],
          expected: expected[first],
          lengths: [actual.length, expected.length],
        }
      : null,
  ).toBeNull()
}

function checkUnits(plan: ScanPlan, maxUnitRows = 65_536): void {
  let total = 0
  plan.units.forEach((unit, i) => {
    expect(unit.id).toBe(i)
    expect(unit.liveRows).toBe(unit.live?.length ?? unit.rowEnd - unit.rowStart)
    expect(unit.rowEnd - unit.rowStart).toBeLessThanOrEqual(maxUnitRows)
    if (i > 0) {
      const prev = plan.units[i - 1]
      const order = prev.fileIndex - unit.fileIndex || prev.rowGroup - unit.rowGroup || prev.rowStart - unit.rowStart
      expect(order).toBeLessThan(0)
    }
    total += unit.liveRows
  })
  expect(plan.stats.rows).toBe(total)
  const prints = plan.files.map(f => footerFingerprint(f.metadata))
  expect(prints).toEqual([...prints].sort())
}

describe('planScan on clicks', async () => {
  const { snapshot, fetch } = await open(CLICKS)
  const columns = ['country', 'hour', 'user_id', 'label', 'device', 'dense_0', 'dense_3', 'item_id']
  const rows = await fullScan(snapshot, fetch, columns)

  test('no filter: footers only, one request per file, every live row in table order, fast', async () => {
    const counted = fileFetch(CLICKS)
    const plan = await planScan(snapshot, { fetch: counted })
    const t0 = performance.now() // timed warm (the first call also pays module JIT)
    await planScan(snapshot, { fetch })
    expect(performance.now() - t0).toBeLessThan(1000) // ~40–70 ms on an idle machine
    for (const file of snapshot.files) expect(counted.requests.filter(r => r.url === file.url)).toHaveLength(1)
    expect(counted.requests).toHaveLength(snapshot.files.length)
    expect(plan.stats).toMatchObject({
      filesTotal: 5,
      filesPruned: 0,
      rowGroupsPruned: 0,
      rows: rows.length,
      rowsBeforeFilter: rows.length,
    })
    expect(plan.stats.rowGroupsTotal).toBe(plan.files.reduce((n, f) => n + f.metadata.row_groups.length, 0))
    checkUnits(plan)
    expectSameIds(planIds(plan), expectedIds(rows))
    expect(plan.digest).toMatch(/^[0-9a-f]{16}$/)
    expect((await planScan(snapshot, { fetch: fileFetch(CLICKS) })).digest).toBe(plan.digest)
  })

  test("country = 'AA' prunes files and row groups and returns exactly the matching rows", async () => {
    const filter = "country = 'AA'"
    const plan = await planScan(snapshot, { fetch, filter })
    expect(plan.stats.filesPruned).toBeGreaterThan(0)
    expect(plan.stats.rowGroupsPruned).toBeGreaterThan(0)
    const expected = expectedIds(rows, filter)
    expect(expected.length).toBeGreaterThan(0)
    expectSameIds(planIds(plan), expected)
    expect(plan.stats.rows).toBe(expected.length)
    checkUnits(plan)
  })

  test('a range on the sorted column plus a residual numeric filter, small units', async () => {
    const filter = "country >= 'CQ' and country < 'FG' and hour < 3 and label = 1"
    const plan = await planScan(snapshot, { fetch, filter, maxUnitRows: 3000 })
    expect(plan.stats.filesPruned + plan.stats.rowGroupsPruned).toBeGreaterThan(0)
    expectSameIds(planIds(plan), expectedIds(rows, filter))
    checkUnits(plan, 3000)
  })

  test('with a residual filter the footer is still fetched once per file', async () => {
    const counted = fileFetch(CLICKS)
    const plan = await planScan(snapshot, { fetch: counted, filter: 'hour < 2' })
    expect(plan.stats.rows).toBe(expectedIds(rows, 'hour < 2').length)
    for (const file of snapshot.files) {
      const footers = counted.requests.filter(r => r.url === file.url && r.range?.endsWith(`-${file.size - 1}`))
      expect(footers).toHaveLength(1)
    }
  })

  test('maxUnitRows cuts row groups without changing the rows', async () => {
    const plan = await planScan(snapshot, { fetch, maxUnitRows: 7000 })
    expect(plan.units.length).toBeGreaterThan(plan.stats.rowGroupsTotal)
    checkUnits(plan, 7000)
    expectSameIds(planIds(plan), expectedIds(rows))
  })

  test('property: random filters give exactly full scan + evalFilter', async () => {
    const fetch = cachingFetch(CLICKS) // the fake re-reads a whole file per range request; cache ranges
    const rng = new Rng(11)
    let pruned = 0
    let matched = 0
    // 5 filters on the 213k-row table (each checked against a full evalFilter scan); the seed's
    // filters prune and select (the two checks below); the conformance tables below run 15 each.
    for (let trial = 0; trial < 5; trial++) {
      const filter = randomFilter(
        rng,
        snapshot,
        rows.map(r => r.row),
        columns,
      )
      const plan = await planScan(snapshot, { fetch, filter })
      expectSameIds(planIds(plan), expectedIds(rows, filter), filter)
      pruned += plan.stats.filesPruned + plan.stats.rowGroupsPruned
      matched += plan.stats.rows > 0 ? 1 : 0
    }
    expect(pruned).toBeGreaterThan(0) // not vacuous: some filters prune, some select rows
    expect(matched).toBeGreaterThan(2)
  })

  test('errors: unknown column, bad token, type mismatch, empty IN', async () => {
    await expect(planScan(snapshot, { fetch, columns: ['nope'] })).rejects.toThrow(/no column 'nope'/)
    await expect(planScan(snapshot, { fetch, columns: ['nope'] })).rejects.toBeInstanceOf(TableError)
    await expect(planScan(snapshot, { fetch, label: 'lbl' })).rejects.toThrow(/no column 'lbl'/)
    await expect(planScan(snapshot, { fetch, filter: "contry = 'AA'" })).rejects.toThrow(
      /unknown column 'contry' at position 1/,
    )
    await expect(planScan(snapshot, { fetch, filter: "country = 'AA')" })).rejects.toThrow(
      /unexpected '\)' at position 15/,
    )
    await expect(planScan(snapshot, { fetch, filter: "label = 'x'" })).rejects.toThrow(
      /column 'label' is integer, cannot compare it with string/,
    )
    await expect(planScan(snapshot, { fetch, filter: 'label in ()' })).rejects.toBeInstanceOf(FilterError)
    await expect(planScan(snapshot, { fetch, maxUnitRows: 0 })).rejects.toThrow(/maxUnitRows/)
  })

  test('a missing data file is an http error naming its URL; plans are structured-cloneable', async () => {
    const broken = { ...snapshot, files: snapshot.files.map((f, i) => (i === 1 ? { ...f, url: f.url + '.gone' } : f)) }
    await expect(planScan(broken, { fetch, attempts: 1 })).rejects.toThrow(/part-00001.*\.gone/)
    const plan = await planScan(snapshot, { fetch, filter: 'hour = 1' })
    const copy = structuredClone(plan)
    expect(copy.units).toEqual(plan.units)
    expect(copy.files[0].metadata.row_groups.length).toBe(plan.files[0].metadata.row_groups.length)
  })

  test('label is added to the columns', async () => {
    const plan = await planScan(snapshot, { fetch, columns: ['hour'], label: 'label' })
    expect(plan.columns).toEqual(['hour', 'label'])
    expect(plan.schema?.fields.map(f => [f.name, f.type])).toEqual([
      ['hour', 'integer'],
      ['label', 'integer'],
    ])
  })
})

const TABLES = [
  'dat/basic_partitioned/delta',
  'dat/multi_partitioned/delta',
  'dat/multi_partitioned_2/delta',
  'dat/all_primitive_types/delta',
  'dat/no_stats/delta',
  'golden/table-with-dv-small',
  'golden/table-with-dv-large',
  'golden/partitioned-table-with-dv-large',
  'golden/dv-with-columnmapping',
  'golden/data-skipping-basic-stats-all-types',
  'golden/table-with-columnmapping-mode-id',
  'golden/data-reader-partition-values',
  'golden/basic-dv-with-checkpoint',
]

/** How many random conformance filters pruned something / selected rows. */
const TALLY = { plans: 0, pruned: 0, nonEmpty: 0 }

describe('planScan on conformance tables', () => {
  test.each(TABLES)('%s: no filter = every live row; random filters = full scan + evalFilter', async table => {
    const { snapshot, fetch } = await open(CONFORMANCE + table)
    const rows = await fullScan(snapshot, fetch)
    const plan = await planScan(snapshot, { fetch, maxUnitRows: 97 })
    checkUnits(plan, 97)
    expect(plan.stats.rows).toBe((await readRows(snapshot, { fetch })).length)
    expectSameIds(planIds(plan), expectedIds(rows))
    const rng = new Rng(table.length)
    for (let trial = 0; trial < 15; trial++) {
      const filter = randomFilter(
        rng,
        snapshot,
        rows.map(r => r.row),
      )
      if (!filter) break
      const filtered = await planScan(snapshot, { fetch, filter })
      expectSameIds(planIds(filtered), expectedIds(rows, filter), filter)
      TALLY.plans++
      TALLY.pruned += filtered.stats.filesPruned + filtered.stats.rowGroupsPruned > 0 ? 1 : 0
      TALLY.nonEmpty += filtered.stats.rows > 0 ? 1 : 0
    }
  })

  test('the random filters above were not vacuous', () => {
    expect(TALLY.plans).toBeGreaterThan(100)
    expect(TALLY.pruned).toBeGreaterThan(TALLY.plans / 10)
    expect(TALLY.nonEmpty).toBeGreaterThan(TALLY.plans / 4)
  })

  test('partition pruning, including a null partition and IS NULL', async () => {
    const { snapshot, fetch } = await open(CONFORMANCE + 'dat/basic_partitioned/delta')
    const rows = await fullScan(snapshot, fetch)
    const nullFiles = snapshot.files.filter(f => f.partitionValues.letter === null).length
    expect(nullFiles).toBeGreaterThan(0)
    const isNull = await planScan(snapshot, { fetch, filter: 'letter IS NULL' })
    expect(isNull.stats.filesPruned).toBe(snapshot.files.length - nullFiles)
    expectSameIds(planIds(isNull), expectedIds(rows, 'letter IS NULL'))
    const eq = await planScan(snapshot, { fetch, filter: "letter = 'a'" })
    expect(eq.stats.filesPruned).toBe(snapshot.files.filter(f => f.partitionValues.letter !== 'a').length)
    expectSameIds(planIds(eq), expectedIds(rows, "letter = 'a'"))
    const not = await planScan(snapshot, { fetch, filter: "NOT letter = 'a'" }) // null letters are unknown → excluded
    expectSameIds(planIds(not), expectedIds(rows, "NOT letter = 'a'"))
    expect(not.stats.filesPruned).toBe(
      snapshot.files.filter(f => f.partitionValues.letter === 'a' || f.partitionValues.letter === null).length,
    )
  })

  test.each([
    ['golden/dv-with-columnmapping', 'col1 > 45'],
    ['golden/table-with-columnmapping-mode-id', 'IntegerType >= 4'],
  ])('%s: row-group stats are found under physical names (Delta stats removed)', async (table, filter) => {
    const { snapshot, fetch } = await open(CONFORMANCE + table)
    const noStats = { ...snapshot, files: snapshot.files.map(f => ({ ...f, stats: undefined })) }
    const plan = await planScan(noStats, { fetch, filter })
    expect(plan.stats.filesPruned).toBe(0)
    expect(plan.stats.rowGroupsPruned).toBeGreaterThan(0)
    const expected = expectedIds(await fullScan(snapshot, fetch), filter)
    expect(expected.length).toBeGreaterThan(0)
    expectSameIds(planIds(plan), expected)
  })

  test('deletion vectors: unit.live excludes deleted rows and stats.rows equals readRows', async () => {
    const { snapshot, fetch } = await open(CONFORMANCE + 'golden/table-with-dv-large')
    const plan = await planScan(snapshot, { fetch })
    expect(plan.stats.rows).toBe((await readRows(snapshot, { fetch })).length)
    for (const file of snapshot.files) {
      const deleted = file.deletionVector
        ? await loadDeletionVector(file.deletionVector, snapshot.tableUrl, { fetch })
        : []
      // Plan files are in table order (footer fingerprints), not the log's path order.
      const units = plan.units.filter(u => plan.files[u.fileIndex].path === file.path)
      expect(plan.files.some(f => f.path === file.path)).toBe(true)
      for (const unit of units)
        for (let k = 0; k < unit.liveRows; k++) expect(deleted).not.toContain(liveRowAt(unit, k))
      expect(units.some(u => u.live)).toBe(deleted.length > 0)
    }
  })
})

/** A random filter string over the table's primitive columns with literals taken from its rows. */
function randomFilter(rng: Rng, snapshot: Snapshot, rows: Row[], only?: string[]): string {
  const usable = snapshot.schema.fields.filter(
    f => typeof f.type === 'string' && f.type !== 'binary' && (!only || only.includes(f.name)),
  )
  if (!usable.length || !rows.length) return ''
  const pick = <T>(xs: T[]): T => xs[Math.floor(rng.next() * xs.length)]
  const literal = (name: string, type: string): string | undefined => {
    const value = pick(rows)[name]
    if (value === null || value === undefined) return undefined
    if (type === 'date') return `DATE '${value}'`
    if (type.startsWith('decimal')) return String(value)
    if (value instanceof Timestamp) return `TIMESTAMP '${value.toISOString()}'`
    if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`
    return String(value).toUpperCase()
  }
  const leaf = (): string => {
    const field = pick(usable)
    const column = `\`${field.name}\``
    const lit = literal(field.name, field.type as string)
    if (!lit || rng.next() < 0.15) return `${column} IS ${rng.next() < 0.5 ? 'NOT ' : ''}NULL`
    if (rng.next() < 0.2)
      return `${column} ${rng.next() < 0.3 ? 'NOT ' : ''}IN (${lit}, ${literal(field.name, field.type as string) ?? lit})`
    return `${column} ${pick(['=', '!=', '<', '<=', '>', '>='])} ${lit}`
  }
  const expr = (depth: number): string =>
    depth === 0 || rng.next() < 0.4
      ? leaf()
      : pick([
          `(${expr(depth - 1)}) AND (${expr(depth - 1)})`,
          `(${expr(depth - 1)}) OR (${expr(depth - 1)})`,
          `NOT (${expr(depth - 1)})`,
        ])
  return expr(2)
}
