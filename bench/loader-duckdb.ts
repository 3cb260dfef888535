/**
 * The loader bench's DuckDB-Wasm peer (bench page only): `@duckdb/duckdb-wasm` 1.28.0 in its own
 * worker, as its docs set it up — `selectBundle` over the mvp and eh bundles, whose WASM and
 * worker scripts the bench page's build serves from its own origin (the page's CSP allows
 * compiling WASM, `'wasm-unsafe-eval'`, and workers from 'self'). It reads the plan's live files
 * over HTTP (`registerFileURL`, HTTP protocol: a HEAD, then Range GETs by synchronous XHR in its
 * worker), the same columns, one `read_parquet` query per file, and converts each result into the
 * loader's typed columns with the parquet-wasm peer's conversion (bench/loader-arrow.ts: ids and
 * strings hashed, null → NaN, `emb` flattened). Rows a file's units leave out (deletion vectors,
 * pruning) are dropped by their `file_row_number`, so the output is the plan's rows.
 *
 * The query's Arrow IPC bytes (AsyncDuckDB.runQuery) are read by the project's apache-arrow, not
 * by the 13.x that DuckDB-Wasm brings for its own Table API: one conversion path for both peers.
 */
import {
  AsyncDuckDB,
  type DuckDBBundles,
  DuckDBDataProtocol,
  PACKAGE_VERSION,
  selectBundle,
  VoidLogger,
} from '@duckdb/duckdb-wasm'
import ehWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url'
import mvpWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url'
import ehWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url'
import mvpWasm from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url'
import { tableFromIPC } from 'apache-arrow'
import type { ScanPlan } from '../src/data/types.ts'
import { type PeerColumn, unitColumns } from './loader-arrow.ts'
import type { CsvColumnSpec } from './loader-csv.ts'
import { addChecksum, type RowChecksum, rowChecksum } from './loader-rows.ts'

/** The bundles `selectBundle` chooses from (eh where WebAssembly exceptions exist: Chromium). */
const BUNDLES: DuckDBBundles = {
  mvp: { mainModule: mvpWasm, mainWorker: mvpWorker },
  eh: { mainModule: ehWasm, mainWorker: ehWorker },
}

/** One live file of the plan as the peer reads it. */
export interface DuckFile {
  url: string
  /** Rows in the file (its footer's). */
  rows: number
  /** File-relative rows the plan delivers, ascending; absent when it delivers every row. */
  live?: Uint32Array
}

/** The plan's files with the rows its units keep (deletion vectors, pruned row groups). */
export function duckFiles(plan: ScanPlan): DuckFile[] {
  return plan.files.map(file => {
    const rows = Number(file.metadata.num_rows)
    const units = plan.units.filter(u => u.fileIndex === file.index).sort((a, b) => a.rowStart - b.rowStart)
    const kept = units.reduce((n, u) => n + u.liveRows, 0)
    if (kept === rows) return { url: file.url, rows }
    const live = new Uint32Array(kept)
    let at = 0
    for (const u of units)
      if (u.live) {
        live.set(u.live, at)
        at += u.live.length
      } else for (let r = u.rowStart; r < u.rowEnd; r++) live[at++] = r
    return { url: file.url, rows, live }
  })
}

/** What one read of every file delivered. */
export interface DuckEpoch {
  rows: number
  /** Bytes of typed arrays delivered. */
  bytes: number
  /** ms from registering (or re-querying) to the last file's typed columns. */
  wallMs: number
  /** Order-free checksum of the delivered rows, when asked for. */
  checksum?: RowChecksum
  /** DuckDB's file statistics over the epoch, summed over files: reads that went to the server, reads from its buffers. */
  reads: { cold: number; ahead: number; cached: number }
}

/** A DuckDB-Wasm instance reading one plan's files. */
export interface DuckPeer {
  /** In words: the package's version, DuckDB's own and the bundle selectBundle chose ("eh", "mvp"). */
  label: string
  /**
   * Reads every file once. `fresh`: the files are registered anew under new names first, so
   * DuckDB keeps nothing of an earlier read and fetches every byte again; otherwise the last
   * registration's queries are repeated (DuckDB's own buffers of those files, when it has them).
   * `onFile` receives each file's typed columns.
   */
  epoch(opts: {
    fresh: boolean
    checksum?: boolean
    onFile?: (index: number, rows: number, cols: Record<string, PeerColumn>) => void
  }): Promise<DuckEpoch>
  close(): Promise<void>
}

/** Starts DuckDB-Wasm (worker, WASM instantiation, an in-memory database, a connection). */
export async function openDuckPeer(plan: ScanPlan, columns: readonly CsvColumnSpec[]): Promise<DuckPeer> {
  const bundle = await selectBundle(BUNDLES)
  if (!bundle.mainWorker) throw new Error('duckdb peer: the selected bundle has no worker script')
  const worker = new Worker(bundle.mainWorker)
  const db = new AsyncDuckDB(new VoidLogger(), worker)
  try {
    await db.instantiate(bundle.mainModule, bundle.pthreadWorker)
    await db.open({})
  } catch (e) {
    await db.terminate()
    throw e
  }
  const conn = await db.connectInternal()
  const core = await db.getVersion()
  const files = duckFiles(plan)
  const select = columns.map(c => `"${c.name.replaceAll('"', '""')}"`).join(', ')
  let names: string[] = []
  let registrations = 0
  let busy = false

  const register = async (): Promise<void> => {
    if (names.length > 0) await db.dropFiles()
    const round = registrations++
    names = files.map((_, i) => `r${round}-f${i}.parquet`)
    for (const [i, f] of files.entries()) {
      await db.registerFileURL(names[i]!, f.url, DuckDBDataProtocol.HTTP, false)
      await db.collectFileStatistics(names[i]!, true)
    }
  }

  const reads = async (): Promise<DuckEpoch['reads']> => {
    const out = { cold: 0, ahead: 0, cached: 0 }
    for (const name of names) {
      const s = await db.exportFileStatistics(name)
      out.cold += s.totalFileReadsCold
      out.ahead += s.totalFileReadsAhead
      out.cached += s.totalFileReadsCached
    }
    return out
  }

  const query = (i: number): Promise<Uint8Array> => {
    const f = files[i]!
    const name = names[i]!.replaceAll("'", "''")
    const sql = f.live
      ? `SELECT ${select}, file_row_number FROM read_parquet('${name}', file_row_number = true)`
      : `SELECT ${select} FROM read_parquet('${name}')`
    return db.runQuery(conn, sql)
  }

  const epoch: DuckPeer['epoch'] = async ({ fresh, checksum, onFile }) => {
    if (busy) throw new Error('duckdb peer: one epoch at a time')
    busy = true
    try {
      const t0 = performance.now()
      if (fresh || names.length === 0) await register()
      const before = await reads()
      const out: DuckEpoch = { rows: 0, bytes: 0, wallMs: 0, reads: before }
      const sum = checksum ? rowChecksum() : undefined
      let sumMs = 0
      // The next file's query runs in DuckDB's worker while this thread converts the last result.
      let next = files.length > 0 ? query(0) : undefined
      for (let i = 0; i < files.length; i++) {
        const ipc = await next!
        next = i + 1 < files.length ? query(i + 1) : undefined
        const table = tableFromIPC(ipc)
        const f = files[i]!
        const live = f.live ? keptRows(table.getChild('file_row_number')?.toArray(), f, i) : undefined
        const unit = {
          id: i,
          url: f.url,
          rowGroup: 0,
          groupStart: 0,
          rowStart: 0,
          rowEnd: table.numRows,
          ...(live ? { live } : {}),
        }
        const { rows, cols } = unitColumns(table, columns, unit)
        out.rows += rows
        for (const c of Object.values(cols)) out.bytes += c.byteLength
        if (sum) {
          const s0 = performance.now()
          addChecksum(sum, columns, rows, cols)
          sumMs += performance.now() - s0
        }
        onFile?.(i, rows, cols)
      }
      out.wallMs = performance.now() - t0 - sumMs
      const after = await reads()
      out.reads = {
        cold: after.cold - before.cold,
        ahead: after.ahead - before.ahead,
        cached: after.cached - before.cached,
      }
      if (sum) out.checksum = sum
      return out
    } finally {
      busy = false
    }
  }

  return {
    label: `duckdb-wasm ${PACKAGE_VERSION} (DuckDB ${core}, ${bundle.mainModule === ehWasm ? 'eh' : 'mvp'})`,
    epoch,
    close: async () => {
      await db.terminate()
    },
  }
}

/**
 * Result rows (indices) whose `file_row_number` is among the file's live rows, ascending; throws
 * naming the file when the column is missing.
 */
function keptRows(rowNumbers: ArrayLike<bigint | number> | undefined, f: DuckFile, index: number): Uint32Array {
  if (!rowNumbers) throw new Error(`duckdb peer, file ${index} (${f.url}): no file_row_number in the result`)
  const live = new Uint8Array(f.rows)
  for (const r of f.live!) live[r] = 1
  const kept: number[] = []
  for (let i = 0; i < rowNumbers.length; i++) if (live[Number(rowNumbers[i]!)]) kept.push(i)
  return Uint32Array.from(kept)
}
