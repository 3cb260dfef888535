/**
 * Module worker of the `parquet-wasm` peer (bench page only): reads one unit per message — its
 * row group of its file, the bench's columns — with parquet-wasm's HTTP reader
 * (`ParquetFile.fromUrl`: footer and column chunks by Range request; one open file per URL, kept
 * for later epochs as the plan's footers are), moves the Arrow table out of WASM memory by IPC
 * into apache-arrow, converts it to the loader's typed columns (bench/loader-arrow.ts) and
 * transfers them back. Messages: in {@link WasmRequest}, out {@link WasmReply}.
 */
import init, { ParquetFile } from 'parquet-wasm/esm'
import wasmUrl from 'parquet-wasm/esm/parquet_wasm_bg.wasm?url'
import { tableFromIPC } from 'apache-arrow'
import type { CsvColumnSpec } from './loader-csv.ts'
import { type PeerColumn, type WasmUnit, unitColumns } from './loader-arrow.ts'

/** A read request: one unit, the columns to deliver. */
export interface WasmRequest {
  unit: WasmUnit
  columns: readonly CsvColumnSpec[]
}

/** A read's answer: the unit's typed columns, or the error's message. */
export type WasmReply =
  | {
      id: number
      rows: number
      cols: Record<string, PeerColumn>
      /** ms moving the table out of WASM (IPC) and converting it to typed columns. */
      convertMs: number
    }
  | { id: number; error: string }

const ready = init({ module_or_path: wasmUrl })
const files = new Map<string, Promise<ParquetFile>>()

async function read({ unit, columns }: WasmRequest): Promise<WasmReply> {
  await ready
  let file = files.get(unit.url)
  if (!file) {
    file = ParquetFile.fromUrl(unit.url)
    files.set(unit.url, file)
    file.catch(() => files.delete(unit.url))
  }
  const wasmTable = await (await file).read({
    rowGroups: [unit.rowGroup],
    columns: columns.map(c => c.name),
    batchSize: 1 << 20, // one record batch per row group
  })
  const t1 = performance.now()
  const table = tableFromIPC(wasmTable.intoIPCStream())
  const { rows, cols } = unitColumns(table, columns, unit)
  return { id: unit.id, rows, cols, convertMs: performance.now() - t1 }
}

/**
 * The last read queued in this worker. Reads run one after another: with several in flight in one
 * WASM instance, opens and reads failed now and then with footer errors ("Corrupt footer",
 * "Required field version is missing"; parquet-wasm 0.8.0, 2026-12-01), so the peer overlaps
 * reads across workers only.
 */
let queue: Promise<unknown> = Promise.resolve()

self.onmessage = (e: MessageEvent<WasmRequest>) => {
  const id = e.data.unit.id
  const job = queue.then(() => read(e.data))
  queue = job.catch(() => undefined)
  job.then(
    reply => {
      const buffers = 'cols' in reply ? Object.values(reply.cols).map(c => c.buffer as ArrayBuffer) : []
      self.postMessage(reply, { transfer: buffers })
    },
    (err: unknown) => self.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  )
}
