/**
 * Module worker of the `parquet-wasm` peer (bench page only): reads one unit per message — its
 * row group of its file, the bench's columns — with parquet-wasm's HTTP reader
 * (`ParquetFile.fromUrl`: footer and column chunks by Range request; one open file per URL,
 * opened ahead by a {@link WasmOpenRequest} and kept for later epochs as the plan's footers are),
 * moves the Arrow table out of WASM memory by IPC into apache-arrow, converts it to the loader's
 * typed columns (bench/loader-arrow.ts) and transfers them back. Messages: in
 * {@link WasmRequest}, out {@link WasmReply}.
 */
import init, { ParquetFile } from 'parquet-wasm/esm'
import wasmUrl from 'parquet-wasm/esm/parquet_wasm_bg.wasm?url'
import { tableFromIPC } from 'apache-arrow'
import type { CsvColumnSpec } from './loader-csv.ts'
import { type PeerColumn, type WasmUnit, unitColumns } from './loader-arrow.ts'
import { contentRange } from '../src/table/range-check.ts'

/** A read request: one unit, the columns to deliver. */
export interface WasmReadRequest {
  unit: WasmUnit
  columns: readonly CsvColumnSpec[]
}

/** Opens (footer reads) of these files, one after another, ahead of any read; sizes in bytes (the log's). */
export interface WasmOpenRequest {
  open: readonly { url: string; size: number }[]
}

/** A message to the worker. */
export type WasmRequest = WasmReadRequest | WasmOpenRequest

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
  /** Answer to a WasmOpenRequest: every URL opened, or the first failure's message. */
  | { opened: number }
  | { openError: string }

/** Attempts at a ranged answer whose body is shorter than its Content-Range. */
const SHORT_BODY_ATTEMPTS = 3

/** File sizes by URL (from the open requests). */
const sizes = new Map<string, number>()

/**
 * The worker's fetch, as parquet-wasm's HTTP reader calls it, with what the loader's ranged
 * requests get from its own fetch layer (hyparquet's explicit offsets, src/table/range-check.ts),
 * so both read the same server the same way:
 * - a suffix range (`bytes=-N`, how parquet-wasm reads the footer) is sent as explicit offsets
 *   from the log's file size: vite's static server (sirv, the browser tests' server) reads
 *   `bytes=-N` as `bytes=0-N` and answers with the file's head;
 * - a 206 body must be as long as its Content-Range, else it is asked for again: Chromium's HTTP
 *   cache (the in-memory one of a Playwright context) now and then hands over a body shorter than
 *   the Content-Range it states when requests for one file overlap (seen: 8 bytes short, the size
 *   of a concurrent `bytes=-8`). parquet-wasm decodes what it gets and failed with "Corrupt
 *   footer", "Required field version is missing", "metadata requires N bytes" or a panic.
 */
const plainFetch = self.fetch.bind(self)
self.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const request = explicitRange(new Request(input, init))
  for (let attempt = 1; ; attempt++) {
    const res = await plainFetch(request.clone())
    const range = res.status === 206 ? contentRange(res.headers.get('Content-Range')) : undefined
    if (!range) return res
    const body = await res.arrayBuffer()
    if (body.byteLength === range.end - range.start + 1 || attempt === SHORT_BODY_ATTEMPTS) {
      const checked = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
      // parquet-wasm reads the answer's URL (a constructed Response has none).
      Object.defineProperty(checked, 'url', { value: res.url })
      return checked
    }
  }
}

/** `request` with a suffix range resolved against the file's size, when it is known. */
function explicitRange(request: Request): Request {
  const suffix = /^bytes=-(\d+)$/.exec(request.headers.get('Range') ?? '')
  const size = sizes.get(request.url)
  if (!suffix || size === undefined) return request
  const headers = new Headers(request.headers)
  headers.set('Range', `bytes=${Math.max(0, size - Number(suffix[1]))}-${size - 1}`)
  return new Request(request, { headers })
}

const ready = init({ module_or_path: wasmUrl })
const files = new Map<string, Promise<ParquetFile>>()

function opened(url: string): Promise<ParquetFile> {
  let file = files.get(url)
  if (!file) {
    file = ParquetFile.fromUrl(url)
    files.set(url, file)
    file.catch(() => files.delete(url))
  }
  return file
}

async function read({ unit, columns }: WasmReadRequest): Promise<WasmReply> {
  await ready
  const wasmTable = await (await opened(unit.url)).read({
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
 * The last job queued in this worker. Reads (and opens) run one after another: with several in
 * flight in one WASM instance, reads ended now and then in a panic ("RuntimeError: unreachable";
 * parquet-wasm 0.8.0), so the peer overlaps reads across workers only.
 */
let queue: Promise<unknown> = Promise.resolve()

/** Runs `job` after the worker's queued jobs. */
function queued<T>(job: () => Promise<T>): Promise<T> {
  const run = queue.then(job)
  queue = run.catch(() => undefined)
  return run
}

async function openAll(files: WasmOpenRequest['open']): Promise<WasmReply> {
  await ready
  for (const { url, size } of files) {
    sizes.set(url, size)
    await opened(url)
  }
  return { opened: files.length }
}

self.onmessage = (e: MessageEvent<WasmRequest>) => {
  const request = e.data
  if ('open' in request) {
    queued(() => openAll(request.open)).then(
      reply => self.postMessage(reply),
      (err: unknown) => self.postMessage({ openError: err instanceof Error ? err.message : String(err) }),
    )
    return
  }
  const id = request.unit.id
  queued(() => read(request)).then(
    reply => {
      const buffers = 'cols' in reply ? Object.values(reply.cols).map(c => c.buffer as ArrayBuffer) : []
      self.postMessage(reply, { transfer: buffers })
    },
    (err: unknown) => self.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  )
}
