/**
 * Export of one snapshot version to ONE CSV file — the path UCDataset-style loaders are measured
 * against (export, then download and parse). Used by `snaptrain bench --suite loader` in Node
 * before the browser starts; the bench reports the time this takes as the export step.
 *
 * CSV dialect: util/csv.ts's (through format.ts `csvField`, which converts the row values first),
 * LF line ends: a header line of column names, RFC 4180 quoting, null is an empty field, '' is
 * `""`, arrays/structs/maps are their JSON text (quoted, since it has commas).
 */
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Row, Snapshot } from '../table/types.ts'
import { csvRecord, rowToCsvLine } from './format.ts'

/** What an export wrote. */
export interface CsvExport {
  /** Absolute path of the CSV written. */
  path: string
  /** Data rows (header excluded). */
  rows: number
  /** File size in bytes. */
  bytes: number
  /** Wall time of the whole export (read the version + write the file), ms. */
  ms: number
}

/** Rows per write: amortises the write call, keeps memory bounded. */
const CHUNK_ROWS = 2000

/**
 * Writes `rows` (with `columns` in order) as CSV to `path`: first to `path.tmp-<pid>`, renamed
 * when complete, so a reader never sees half a file. Honours write backpressure.
 */
export async function writeCsv(
  rows: AsyncIterable<Row> | Iterable<Row>,
  columns: readonly string[],
  path: string,
): Promise<Omit<CsvExport, 'ms' | 'path'>> {
  await mkdir(dirname(path), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}`
  const out = createWriteStream(tmp)
  const closed = once(out, 'close')
  closed.catch(() => undefined) // a write error is rethrown below; this promise must not go unhandled
  let count = 0
  let bytes = 0
  const write = async (text: string): Promise<void> => {
    bytes += Buffer.byteLength(text)
    // once() rejects on 'error' and removes its listeners either way (no pile-up over many drains).
    if (!out.write(text)) await once(out, 'drain')
  }
  try {
    await write(csvRecord(columns) + '\n')
    let chunk: string[] = []
    for await (const row of rows) {
      chunk.push(rowToCsvLine(row, columns))
      count++
      if (chunk.length >= CHUNK_ROWS) {
        await write(chunk.join('\n') + '\n')
        chunk = []
      }
    }
    if (chunk.length > 0) await write(chunk.join('\n') + '\n')
    out.end()
    await closed
    await rename(tmp, path)
  } catch (e) {
    out.destroy()
    await rm(tmp, { force: true })
    throw e
  }
  return { rows: count, bytes }
}

/**
 * Exports the live rows of `snapshot` (all top-level columns unless `columns` is given) to one
 * CSV file at `path`, timing the whole step. `read` yields the snapshot's rows in table order
 * (scan.ts `streamRows`); it is injected so this module does not depend on the CLI command.
 */
export async function exportSnapshotCsv(
  snapshot: Pick<Snapshot, 'schema'>,
  read: (columns: string[]) => AsyncIterable<Row>,
  path: string,
  columns?: string[],
): Promise<CsvExport> {
  const t0 = performance.now()
  const names = columns ?? snapshot.schema.fields.map(f => f.name)
  const written = await writeCsv(read(names), names, path)
  return { path, ...written, ms: performance.now() - t0 }
}
