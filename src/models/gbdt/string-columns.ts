/**
 * String columns of a scan plan as JS strings (null kept), unit by unit in plan (table) order.
 * The loader's `hash32` encoding has no null and no way back to the value, but a categorical
 * dictionary sorted by value needs both, so GBDT reads its (few, short) string columns here with
 * hyparquet directly: same units, same live-row masks, same column mapping as the loader.
 * N = live rows of the plan.
 */
import { cachedAsyncBuffer, parquetRead, type AsyncBuffer } from 'hyparquet'
import { compressors } from '../../data/codecs.ts'
import { resolveColumns, type ColumnSource } from '../../data/unit-columns.ts'
import { openPlannedFile } from '../../data/unit-reader.ts'
import type { ScanPlan, Unit } from '../../data/types.ts'
import { retryingFetch } from '../../table/http.ts'
import { FileMemory } from '../../table/range-check.ts'
import { TableError, type HttpOptions } from '../../table/types.ts'

/** Values of one parquet column chunk: file rows [rowStart, rowStart + data.length). */
interface Chunk {
  rowStart: number
  data: ArrayLike<unknown>
}

/**
 * Reads `names` (string columns the plan delivers) for every unit in plan order: one array of
 * N values per name, null for nulls. Throws TableError naming the file for a non-string value.
 */
export async function readStringColumns(
  plan: ScanPlan,
  names: readonly string[],
  http: HttpOptions = {},
): Promise<Map<string, (string | null)[]>> {
  const out = new Map(names.map(n => [n, [] as (string | null)[]]))
  if (names.length === 0) return out
  // As the loader's reader: checked against the log's size and the validator the planner saw.
  const memory = new FileMemory()
  const fetch = retryingFetch(http, plan.tableUrl, memory) as typeof globalThis.fetch
  const buffers = new Map<number, AsyncBuffer>()
  for (const unit of plan.units) {
    const file = plan.files[unit.fileIndex]
    let buffer = buffers.get(unit.fileIndex)
    if (!buffer) {
      buffer = cachedAsyncBuffer(await openPlannedFile(file, fetch, memory))
      buffers.set(unit.fileIndex, buffer)
    }
    const sources = resolveColumns(plan, file, {}).filter(s => names.includes(s.name))
    const chunks = await readChunks(buffer, plan, unit, sources)
    for (const s of sources) appendLive(out.get(s.name)!, s, chunks.get(s.name) ?? [], unit, file.url)
  }
  return out
}

async function readChunks(
  buffer: AsyncBuffer,
  plan: ScanPlan,
  unit: Unit,
  sources: ColumnSource[],
): Promise<Map<string, Chunk[]>> {
  const byParquet = new Map<string, string>()
  for (const s of sources) if (s.kind === 'parquet') byParquet.set(s.parquetName, s.name)
  const chunks = new Map<string, Chunk[]>([...byParquet.values()].map(n => [n, []]))
  if (byParquet.size === 0) return chunks
  await parquetRead({
    file: buffer,
    metadata: plan.files[unit.fileIndex].metadata,
    columns: [...byParquet.keys()],
    rowStart: unit.rowStart,
    rowEnd: unit.rowEnd,
    compressors,
    onChunk: ({ columnName, columnData, rowStart }) =>
      chunks.get(byParquet.get(columnName) ?? '')?.push({ rowStart, data: columnData }),
  })
  return chunks
}

/** Appends the unit's live rows of one column (a partition column is one constant). */
function appendLive(out: (string | null)[], s: ColumnSource, chunks: Chunk[], unit: Unit, url: string): void {
  const rows = unit.live ?? Uint32Array.from({ length: unit.rowEnd - unit.rowStart }, (_, i) => unit.rowStart + i)
  for (const row of rows) {
    const v = s.kind === 'constant' ? s.value : valueAt(chunks, row)
    if (v === null || v === undefined) out.push(null)
    else if (typeof v === 'string') out.push(v)
    else
      throw new TableError(`${url}: column '${s.name}' row ${row}: expected a string, got ${typeof v}`, 'schema', url)
  }
}

function valueAt(chunks: Chunk[], row: number): unknown {
  for (const c of chunks) if (row >= c.rowStart && row < c.rowStart + c.data.length) return c.data[row - c.rowStart]
  return undefined
}
