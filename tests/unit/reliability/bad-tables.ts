/**
 * Small Delta tables for the bad-input table, built fresh in a temp folder per test run: a good
 * 64-row table (label first, so the label's column chunk is the first one in each file) and
 * damaged copies of it — corrupt Parquet bytes, a broken or absent `_delta_log`, a file whose
 * column type disagrees with the log, NaN/±Inf values and out-of-range labels.
 */
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parquetMetadata } from 'hyparquet'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { DeltaTableWriter } from '../../../tools/datagen/delta-writer.ts'
import { parquetSchema } from '../../../tools/datagen/parquet.ts'
import type { ColumnSpec, Frame } from '../../../tools/datagen/types.ts'

/** Rows of every fixture table. */
export const ROWS = 64

/** label (0/1 integer), x and z (double), cat (string). */
export const SPECS: ColumnSpec[] = [
  { name: 'label', type: 'integer', nullable: false },
  { name: 'x', type: 'double', nullable: false },
  { name: 'z', type: 'double', nullable: false },
  { name: 'cat', type: 'string', nullable: true },
]

/** The good table's columns; `patch` replaces some. */
export function frame(patch: Frame['columns'] = {}, specs = SPECS): Frame {
  const base: Frame['columns'] = {
    label: Int32Array.from({ length: ROWS }, (_, i) => i % 2),
    x: Float64Array.from({ length: ROWS }, (_, i) => i / ROWS),
    z: Float64Array.from({ length: ROWS }, (_, i) => (i * 7) % 13),
    cat: Array.from({ length: ROWS }, (_, i) => ['a', 'b', 'c'][i % 3]),
  }
  return { numRows: ROWS, columns: Object.fromEntries(specs.map(s => [s.name, patch[s.name] ?? base[s.name]])) }
}

/** Writes a one-file table at `dir` (log schema `specs`); `bytes` replaces the Parquet file's contents. */
export async function writeTable(dir: string, f: Frame, specs = SPECS, bytes?: Uint8Array): Promise<void> {
  const w = new DeltaTableWriter(dir, specs, 1, 'bad-input', dir)
  const file = await w.writeDataFile(f, 32)
  if (bytes) {
    await writeFile(join(dir, file.add.path), bytes)
    file.add.size = bytes.byteLength
  }
  await w.commit({ operation: 'WRITE', operationParameters: {}, operationMetrics: {} }, [file.add], [])
}

/** The Parquet bytes of `f` with `codec` declared, compressed by `compress` (identity: mislabelled). */
export function parquetWithCodec(
  f: Frame,
  codec: string,
  compress: (b: Uint8Array) => Uint8Array,
  specs = SPECS,
): Uint8Array {
  const columnData = specs.map(s => ({ name: s.name, data: f.columns[s.name] as never }))
  const opts = { schema: parquetSchema(specs), columnData, codec, compressors: { [codec]: compress }, statistics: true }
  return new Uint8Array(parquetWriteBuffer(opts as never))
}

/** The table's only data file. */
export async function dataFile(dir: string): Promise<string> {
  const names = (await readdir(dir)).filter(n => n.endsWith('.parquet'))
  if (names.length !== 1) throw new Error(`fixture ${dir}: expected one data file, found ${names.length}`)
  return join(dir, names[0])
}

/** Copies `src` to `dst` and applies `damage` to its data file's bytes (same size). */
export async function damagedCopy(src: string, dst: string, damage: (bytes: Uint8Array) => void): Promise<string> {
  await cp(src, dst, { recursive: true })
  const path = await dataFile(dst)
  const bytes = new Uint8Array(await readFile(path))
  damage(bytes)
  await writeFile(path, bytes)
  return path
}

/** Damages: the trailing "PAR1", the footer length, the first page header of the first column chunk. */
export const DAMAGE = {
  magic(b: Uint8Array): void {
    b.set([0x58, 0x58, 0x58, 0x58], b.length - 4)
  },
  footerLength(b: Uint8Array): void {
    new DataView(b.buffer, b.byteOffset).setUint32(b.length - 8, 0x7fff_fff0, true)
  },
  pageHeader(b: Uint8Array): void {
    const meta = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer)
    const chunk = meta.row_groups[0].columns[0].meta_data!
    const at = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset)
    b.fill(0xff, at, at + 24)
  },
}

/** A copy of `src` whose `_delta_log` is changed by `edit` (given the log folder). */
export async function logCopy(src: string, dst: string, edit: (log: string) => Promise<void>): Promise<string> {
  await cp(src, dst, { recursive: true })
  await edit(join(dst, '_delta_log'))
  return dst
}

/** Rewrites commit 0's JSON lines through `edit`. */
export async function editCommit0(
  log: string,
  edit: (lines: Record<string, unknown>[]) => Record<string, unknown>[] | string,
): Promise<void> {
  const path = join(log, '00000000000000000000.json')
  const lines = (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as Record<string, unknown>)
  const out = edit(lines)
  await writeFile(path, typeof out === 'string' ? out : out.map(l => JSON.stringify(l)).join('\n') + '\n')
}

/** Removes a folder (test cleanup helper kept here so the test file stays a table). */
export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}

/** Makes an empty folder. */
export async function emptyDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  return dir
}
