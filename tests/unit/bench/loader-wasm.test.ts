/**
 * The `parquet-wasm` peer of the loader bench decodes the same values as the loader: units of the
 * 200k-row clicks sample (whole row groups, split row groups, deletion-vector rows) read by
 * parquet-wasm (its Node build, the same Rust reader the bench's workers run), converted by
 * bench/loader-arrow.ts, equal the loader's own unit reader column by column, bit for bit.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readParquet } from 'parquet-wasm'
import { tableFromIPC } from 'apache-arrow'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { planScan } from '../../../src/data/plan.ts'
import { createUnitReader } from '../../../src/data/unit-reader.ts'
import type { DecodeSpec, ScanPlan } from '../../../src/data/types.ts'
import { CLICKS_COLUMNS } from '../../../bench/loader-rows.ts'
import { unitColumns } from '../../../bench/loader-arrow.ts'
import { wasmUnits } from '../../../bench/loader-wasm.ts'

const SPEC: DecodeSpec = Object.fromEntries(CLICKS_COLUMNS.map(c => [c.name, c.encoding]))
const TABLES = join(PROJECT_ROOT, 'public', 'tables')
let server: ServedDirectory
let plan: ScanPlan

beforeAll(async () => {
  server = await serveDirectory(TABLES)
  const snapshot = await openSnapshot(`${server.url}clicks/`)
  // Units of at most 5000 rows: most start or end inside a row group.
  plan = await planScan(snapshot, { columns: CLICKS_COLUMNS.map(c => c.name), maxUnitRows: 5000 })
})
afterAll(async () => {
  await server?.close()
})

/** The whole file behind a served URL, from disk. */
async function fileOf(url: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(join(TABLES, decodeURIComponent(url.slice(server.url.length)))))
}

/** First byte at which two typed arrays differ (NaN payloads and -0 compared exactly), or -1. */
function firstDifference(a: ArrayBufferView, b: ArrayBufferView): number {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
  if (x.length !== y.length) return Math.min(x.length, y.length)
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i
  return -1
}

it('parquet-wasm + apache-arrow units equal the loader unit reader column by column', async () => {
  // The sample has no deletion vector: give unit 1 one (every third row deleted), on both sides.
  const withDeletes: ScanPlan = { ...plan, units: plan.units.map(u => ({ ...u })) }
  const u1 = withDeletes.units[1]!
  u1.live = Uint32Array.from({ length: u1.rowEnd - u1.rowStart }, (_, i) => u1.rowStart + i).filter(r => r % 3 !== 0)
  u1.liveRows = u1.live.length
  const units = wasmUnits(withDeletes)
  const live = units.filter(u => u.live)
  const split = units.filter(u => !u.live && u.rowStart !== u.groupStart)
  // Cover each kind once: a group's first unit, a unit inside a group, a unit with deleted rows.
  const picked = [units[0]!, split[0], live[0], units.at(-1)!].filter(u => u !== undefined)
  expect(split.length).toBeGreaterThan(0)
  expect(live.length).toBeGreaterThan(0)
  const reader = createUnitReader(withDeletes, SPEC)
  const fileBytes = new Map<string, Uint8Array>()
  for (const unit of picked) {
    let bytes = fileBytes.get(unit.url)
    if (!bytes) {
      bytes = await fileOf(unit.url)
      fileBytes.set(unit.url, bytes)
    }
    const wasmTable = readParquet(bytes, { rowGroups: [unit.rowGroup], columns: CLICKS_COLUMNS.map(c => c.name) })
    const peer = unitColumns(tableFromIPC(wasmTable.intoIPCStream()), CLICKS_COLUMNS, unit)
    const ours = await reader.read(unit.id)
    expect(peer.rows, `unit ${unit.id} rows`).toBe(ours.rows)
    for (const c of CLICKS_COLUMNS) {
      const a = peer.cols[c.name]!
      const b = ours.columns[c.name]!.values
      expect(a.constructor, `unit ${unit.id} ${c.name} type`).toBe(b.constructor)
      expect(firstDifference(a, b), `unit ${unit.id} ${c.name}: first differing byte`).toBe(-1)
    }
  }
})

it('names the column when the Arrow table lacks it', async () => {
  const unit = wasmUnits(plan)[0]!
  const bytes = await fileOf(unit.url)
  const table = tableFromIPC(readParquet(bytes, { rowGroups: [unit.rowGroup] }).intoIPCStream())
  expect(() => unitColumns(table.select(['label']), CLICKS_COLUMNS, unit)).toThrow(/column user_id/)
  expect(() => unitColumns(table, [{ name: 'emb', encoding: 'hash32' }], unit)).toThrow(/column emb: cannot hash/)
})
