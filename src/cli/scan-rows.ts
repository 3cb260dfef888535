/**
 * Row values for `snaptrain scan --format jsonl|csv` on the data path (sharded, shuffled or
 * filtered scans), where rows come out in delivery order rather than file order. Files are read
 * whole with the table reader (same values as the plain scan) and kept in a small cache bounded
 * in rows, so a shuffled scan re-reads a file only when the cache had to let it go.
 */
import { loadDeletionVector } from '../table/deletion-vector.ts'
import { scanFile } from '../table/index.ts'
import type { AddFile, HttpOptions, Row, Snapshot } from '../table/types.ts'
import { liveAfterDeletes } from '../data/units.ts'
import type { ScanPlan } from '../data/types.ts'

/** Rows held by the cache before the least recently used file is dropped. */
const CACHE_ROWS = 1_000_000

/** Looks up rows by (unit id, live-row index), as RankStreamView.rowsAt returns them. */
export interface RowSource {
  rowsFor(unit: Uint32Array, index: Uint32Array): Promise<Row[]>
}

/** A row source over `plan` (made from `snapshot`) delivering `columns` (logical names). */
export function createRowSource(snapshot: Snapshot, plan: ScanPlan, columns: string[], http: HttpOptions): RowSource {
  const byPath = new Map(snapshot.files.map(f => [f.path, f]))
  const cache = new Map<number, Promise<Row[]>>() // file index → rows by file-relative index (Map order = LRU)
  let held = 0
  const fileRowsOf = (fileIndex: number): Promise<Row[]> => {
    const hit = cache.get(fileIndex)
    if (hit) {
      cache.delete(fileIndex)
      cache.set(fileIndex, hit)
      return hit
    }
    const planFile = plan.files[fileIndex]!
    const add = byPath.get(planFile.path)
    if (!add) throw new Error(`${planFile.url}: file is in the plan but not in the snapshot`)
    const rows = readFileRows(
      snapshot,
      add,
      planFile.metadata.row_groups.map(g => Number(g.num_rows)),
      columns,
      http,
    )
    held += Number(planFile.metadata.num_rows)
    for (const [old] of cache) {
      if (held <= CACHE_ROWS || cache.size === 0) break
      cache.delete(old)
      held -= Number(plan.files[old]!.metadata.num_rows)
    }
    cache.set(fileIndex, rows)
    return rows
  }
  return {
    async rowsFor(unit, index) {
      const files = new Map<number, Row[]>()
      for (const id of new Set(unit)) {
        const fileIndex = plan.units[id]!.fileIndex
        if (!files.has(fileIndex)) files.set(fileIndex, await fileRowsOf(fileIndex))
      }
      const out: Row[] = new Array(unit.length)
      for (let i = 0; i < unit.length; i++) {
        const u = plan.units[unit[i]!]!
        out[i] = files.get(u.fileIndex)![u.live ? u.live[index[i]!]! : u.rowStart + index[i]!]!
      }
      return out
    },
  }
}

/**
 * The live rows of one file, placed at their file-relative indices (deleted rows are holes).
 * scanFile yields each row group's rows with deleted ones removed; the deletion vector (loaded
 * once here and handed to scanFile) tells which indices they had.
 */
async function readFileRows(
  snapshot: Snapshot,
  file: AddFile,
  groupRows: number[],
  columns: string[],
  http: HttpOptions,
): Promise<Row[]> {
  const deleted = file.deletionVector
    ? await loadDeletionVector(
        file.deletionVector,
        snapshot.tableUrl,
        http,
        file.url,
        groupRows.reduce((a, b) => a + b, 0),
      )
    : []
  const out: Row[] = []
  let group = 0
  let start = 0
  for await (const batch of scanFile(snapshot, file, { ...http, columns }, deleted)) {
    const end = start + groupRows[group]!
    const live = liveAfterDeletes(deleted, start, end)
    for (let i = 0; i < batch.length; i++) out[live ? live[i]! : start + i] = batch[i]!
    start = end
    group++
  }
  return out
}
