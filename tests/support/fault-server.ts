/**
 * A loopback HTTP server for tests that serves one table folder (mounted at `/<name>/`, as the
 * CLI's server does) with single Range reads, ETag/Last-Modified and the S3 ListObjectsV2 listing,
 * and injects faults by configuration: 5xx answers, connections reset mid-body, slow first bytes
 * and slow bodies, truncated bodies (Content-Length kept or shortened), Range ignored (200 with the
 * whole file), Range answered wrong (416, or bytes of another part of the file) and a file
 * replaced between two reads (new bytes, ETag and Last-Modified from then on).
 * Requests are numbered and given their file version when they arrive, before any await, so
 * concurrent GETs of one file cannot swap numbers or versions; a replacement waits for a GET that
 * arrives after one of the old version was answered in full (the reader then holds both).
 *
 * Deterministic: a rule faults the n-th request to each matching path (`nth`, 1-based) or each
 * request with probability `rate`, drawn from Rng(seed, path, n); the same seed and request
 * sequence per path inject the same faults. CORS and CORP are open so the app page (another
 * loopback origin, cross-origin isolated) can read through it too. With `perRun`, each run gets
 * its own mount, so one run's late requests cannot shift the next run's counts.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { readFile, realpath, stat } from 'node:fs/promises'
import { basename, join, sep } from 'node:path'
import { renderListObjectsV2 } from '../../src/serve/s3-listing.ts'
import { parseRange } from '../../src/serve/range.ts'
import { Rng } from '../../src/util/rng.ts'

/** The faults the server can inject. */
export type FaultKind =
  | 'status-5xx' // answer `status` (default 503) instead of the file
  | 'reset' // send the headers and half the body, then reset the connection
  | 'slow-first-byte' // wait `delayMs` before the status line
  | 'slow-body' // send the body in 8 pieces, `delayMs` apart in total
  | 'truncate-length-kept' // correct Content-Length, body cut in half, connection closed
  | 'truncate-length-wrong' // Content-Length (and Content-Range) shortened to the half body sent
  | 'range-ignored' // 200 with the whole file for a ranged GET
  | 'range-416' // 416 for a satisfiable range
  | 'range-wrong-bytes' // 206 with the bytes (and Content-Range) of another part of the file
  | 'replace-file' // from this request on the file has other bytes, ETag and Last-Modified

/** Faults a reader should survive by asking again (the others must fail the run, naming the fault). */
export const RETRYABLE_FAULTS: readonly FaultKind[] = [
  'status-5xx',
  'reset',
  'slow-first-byte',
  'slow-body',
  'truncate-length-kept',
  'truncate-length-wrong',
  'range-ignored',
  'range-416',
]

/** When and where one fault is injected. */
export interface FaultRule {
  kind: FaultKind
  /** Paths (URL path after the mount, decoded) the rule applies to; default parquet files. */
  path?: RegExp
  /**
   * 1-based request numbers, counted per path over GETs in arrival order, that fault; default [1]
   * unless `rate`. 'replace-file' happens once, at the first GET from the smallest number on that
   * arrives after a GET of the old version was answered in full.
   */
  nth?: number[]
  /** Fault each matching request with this probability (seeded), instead of `nth`. */
  rate?: number
  /** Only requests carrying a Range header (default true for the range-* faults). */
  rangedOnly?: boolean
  /** Delay of the slow faults in ms (default 300). */
  delayMs?: number
  /** Status of 'status-5xx' (default 503). */
  status?: number
  /**
   * Only requests from a browser page or its workers (they carry an Origin header; Node's fetch
   * does not), and `nth` counts those only: lets a test aim past the CLI's checks in Node.
   */
  pageOnly?: boolean
}

/** Options of `startFaultServer`. */
export interface FaultServerOptions {
  rules?: FaultRule[]
  /** Seed of `rate` draws (default 0). */
  seed?: number
  /** Requests must carry this Authorization header value, else 401 (tests of credentials). */
  requireAuthorization?: string
  /**
   * Each `configure()` mounts the table afresh at `/<name>~N/` (see `tableUrl`): requests a
   * finished run still has under way (a sibling read that outlived the failure) reach the old
   * mount, where they are served unfaulted and uncounted, so they cannot take the next run's
   * `nth` fault.
   */
  perRun?: boolean
}

/** One request the server saw. */
export interface SeenRequest {
  method: string
  path: string
  range?: string
  authorization?: string
  origin?: string
}

/** One fault the server injected. */
export interface InjectedFault {
  kind: FaultKind
  path: string
  n: number
  page: boolean
}

/** A running fault server. `tableUrl` is the table's root URL (ends with '/'; per run with `perRun`). */
export interface FaultServer {
  url: string
  readonly tableUrl: string
  requests: SeenRequest[]
  injected: InjectedFault[]
  /** Replaces the rules and forgets request counts and replaced files. */
  configure(rules: FaultRule[], seed?: number): void
  close(): Promise<void>
}

interface FileVersion {
  bytes: Buffer
  etag: string
  mtime: Date
}

interface State {
  root: string
  /** The folder's name; the current mount is `mountOf(state)`. */
  name: string
  /** configure() calls so far (with `perRun`, the mount's suffix). */
  runs: number
  rules: FaultRule[]
  seed: number
  counts: Map<string, number>
  /** The replacement of each replaced file (set on the faulted request's arrival). */
  replaced: Map<string, Promise<FileVersion | undefined>>
  /** Files with a GET of their original version answered in full (a replacement waits for one). */
  answered: Set<string>
  opts: FaultServerOptions
  requests: SeenRequest[]
  injected: InjectedFault[]
}

/** Serves `tableDir` at `http://127.0.0.1:PORT/<basename>/` until `close()`. */
export async function startFaultServer(tableDir: string, opts: FaultServerOptions = {}): Promise<FaultServer> {
  const root = await realpath(tableDir)
  const state: State = {
    root,
    name: basename(root),
    runs: 0,
    rules: opts.rules ?? [],
    seed: opts.seed ?? 0,
    counts: new Map(),
    replaced: new Map(),
    answered: new Set(),
    opts,
    requests: [],
    injected: [],
  }
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    handle(state, req, res).catch(e => {
      if (!res.headersSent) res.writeHead(500).end(String(e))
      else res.destroy()
    })
  })
  server.on('connection', s => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('fault server did not bind a TCP port')
  const url = `http://127.0.0.1:${addr.port}/`
  return {
    url,
    get tableUrl() {
      return `${url}${encodeURIComponent(mountOf(state))}/`
    },
    requests: state.requests,
    injected: state.injected,
    configure(rules, seed) {
      state.runs++
      state.rules = rules
      state.seed = seed ?? state.seed
      state.counts.clear()
      state.replaced.clear()
      state.answered.clear()
      state.injected.length = 0
    },
    close: () =>
      new Promise<void>(resolve => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

function openHeaders(res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*')
  res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag, Last-Modified, Accept-Ranges')
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin')
  res.setHeader('Cache-Control', 'no-store')
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  openHeaders(res)
  const method = req.method ?? 'GET'
  const target = new URL(req.url ?? '/', 'http://x')
  const seen: SeenRequest = {
    method,
    path: target.pathname,
    range: req.headers.range,
    authorization: req.headers.authorization,
    origin: req.headers.origin,
  }
  state.requests.push(seen)
  if (method === 'OPTIONS') return preflight(res)
  if (state.opts.requireAuthorization !== undefined && req.headers.authorization !== state.opts.requireAuthorization) {
    return void res.writeHead(401, { 'Content-Length': 0 }).end()
  }
  if (target.searchParams.get('list-type') === '2') return listing(state, target, res)
  const earlier = earlierRun(state, target.pathname)
  if (earlier !== undefined) {
    const file = await onDisk(state, earlier)
    if (!file) return void res.writeHead(404, { 'Content-Length': 0 }).end()
    return answer(req, res, file, method === 'HEAD')
  }
  const rel = relativePath(mountOf(state), target.pathname)
  if (rel === undefined) return void res.writeHead(404, { 'Content-Length': 0 }).end()
  // Numbered and versioned on arrival (no await before): the order the requests came in.
  const page = req.headers.origin !== undefined
  const n = method === 'GET' ? bump(state, rel) : 0
  const pn = method === 'GET' && page ? bump(state, `page:${rel}`) : 0
  const fault = method === 'GET' ? pickFault(state, rel, n, pn, req.headers.range !== undefined) : undefined
  if (fault?.kind === 'replace-file')
    state.replaced.set(
      rel,
      onDisk(state, rel).then(f => f && replacement(f)),
    )
  const original = !state.replaced.has(rel)
  const version = await currentVersion(state, rel)
  if (!version) return void res.writeHead(404, { 'Content-Length': 0 }).end()
  if (fault) state.injected.push({ kind: fault.kind, path: rel, n: fault.pageOnly ? pn : n, page })
  if (method === 'GET' && original) res.once('finish', () => state.answered.add(rel))
  return answer(req, res, version, method === 'HEAD', fault)
}

function preflight(res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS')
  res.setHeader('Access-Control-Allow-Headers', 'Range, If-Match, If-None-Match, If-Range, Authorization')
  res.writeHead(204).end()
}

/** Where the table is mounted now: its folder's name, then `~N` per run with `perRun`. */
function mountOf(state: State): string {
  return state.opts.perRun ? `${state.name}~${state.runs}` : state.name
}

/** The path below an earlier run's mount (`perRun`; served as on disk); undefined for anything else. */
function earlierRun(state: State, pathname: string): string | undefined {
  if (!state.opts.perRun) return undefined
  for (let run = 0; run < state.runs; run++) {
    const rel = relativePath(`${state.name}~${run}`, pathname)
    if (rel !== undefined) return rel
  }
  return undefined
}

/** The path below `mount`, decoded; undefined when outside it or escaping it. */
function relativePath(mount: string, pathname: string): string | undefined {
  const prefix = `/${encodeURIComponent(mount)}/`
  if (!pathname.startsWith(prefix)) return undefined
  const rel = decodeURIComponent(pathname.slice(prefix.length))
  return rel.split('/').some(s => s === '..' || s === '') ? undefined : rel
}

async function currentVersion(state: State, rel: string): Promise<FileVersion | undefined> {
  return state.replaced.get(rel) ?? onDisk(state, rel)
}

async function onDisk(state: State, rel: string): Promise<FileVersion | undefined> {
  const path = join(state.root, ...rel.split('/'))
  if (!path.startsWith(state.root + sep)) return undefined
  const st = await stat(path).catch(() => null)
  if (!st?.isFile()) return undefined
  return {
    bytes: await readFile(path),
    etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
    mtime: st.mtime,
  }
}

/** Same size, a few bytes in the middle changed, new validators: what a rewrite in place looks like. */
function replacement(file: FileVersion): FileVersion {
  const bytes = Buffer.from(file.bytes)
  const mid = bytes.length >> 1
  for (let i = mid; i < Math.min(bytes.length, mid + 16); i++) bytes[i] ^= 0x5a
  return { bytes, etag: `${file.etag.slice(0, -1)}-replaced"`, mtime: new Date(file.mtime.getTime() + 3_600_000) }
}

function bump(state: State, rel: string): number {
  const n = (state.counts.get(rel) ?? 0) + 1
  state.counts.set(rel, n)
  return n
}

/** The first rule that faults this request: `n` counts GETs of the path, `pn` those from a page (0: not one). */
function pickFault(state: State, rel: string, n: number, pn: number, ranged: boolean): FaultRule | undefined {
  return state.rules.find(rule => {
    if (!(rule.path ?? /\.parquet$/).test(rel)) return false
    if ((rule.rangedOnly ?? rule.kind.startsWith('range-')) && !ranged) return false
    if (rule.pageOnly && pn === 0) return false
    const k = rule.pageOnly ? pn : n
    // The n-th GET or, when none of the old version was answered in full by then, the next one after.
    if (rule.kind === 'replace-file')
      return !state.replaced.has(rel) && state.answered.has(rel) && k >= Math.min(...(rule.nth ?? [1]))
    if (rule.rate !== undefined) return draw(state.seed, rel, k) < rule.rate
    return (rule.nth ?? [1]).includes(k)
  })
}

/** A uniform [0, 1) number fixed by (seed, path, n). */
function draw(seed: number, rel: string, n: number): number {
  let h = 2166136261 ^ seed
  for (const c of `${rel}#${n}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
  return new Rng(h >>> 0).next()
}

async function listing(state: State, target: URL, res: ServerResponse): Promise<void> {
  const q = target.searchParams
  const mountPrefix = `${mountOf(state)}/`
  const prefix = q.get('prefix') ?? ''
  if (!prefix.startsWith(mountPrefix)) return void res.writeHead(404, { 'Content-Length': 0 }).end()
  const xml = await renderListObjectsV2(state.root, {
    prefix: prefix.slice(mountPrefix.length),
    delimiter: q.get('delimiter') || undefined,
  })
  // Keys are relative to the table folder; the bucket's keys carry the mount name in front.
  const body = Buffer.from(xml.replace(/<(Key|Prefix)>/g, `<$1>${mountPrefix}`), 'utf8')
  res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': body.length }).end(body)
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  file: FileVersion,
  headOnly: boolean,
  fault?: FaultRule,
): Promise<void> {
  const size = file.bytes.length
  const delay = fault?.delayMs ?? 300
  if (fault?.kind === 'slow-first-byte') await sleep(delay)
  if (fault?.kind === 'status-5xx') return void res.writeHead(fault.status ?? 503, { 'Content-Length': 0 }).end()
  res.setHeader('ETag', file.etag)
  res.setHeader('Last-Modified', file.mtime.toUTCString())
  res.setHeader('Accept-Ranges', 'bytes')
  const parsed = fault?.kind === 'range-ignored' ? null : parseRange(req.headers.range, size)
  if (parsed === 'unsatisfiable' || fault?.kind === 'range-416') {
    return void res.writeHead(416, { 'Content-Range': `bytes */${size}`, 'Content-Length': 0 }).end()
  }
  let [start, end] = parsed ?? [0, size - 1]
  if (fault?.kind === 'range-wrong-bytes') [start, end] = shifted(start, end, size)
  let body = file.bytes.subarray(start, end + 1)
  const headers: Record<string, string | number> = { 'Content-Length': body.length }
  if (fault?.kind === 'truncate-length-wrong') {
    body = body.subarray(0, body.length >> 1)
    headers['Content-Length'] = body.length
    end = start + body.length - 1
  }
  if (parsed) headers['Content-Range'] = `bytes ${start}-${end}/${size}`
  res.writeHead(parsed ? 206 : 200, headers)
  if (headOnly) return void res.end()
  return sendBody(res, body, fault, delay)
}

/** The same number of bytes from elsewhere in the file (earlier if possible). */
function shifted(start: number, end: number, size: number): [number, number] {
  const length = end - start + 1
  const offset = start >= length ? start - length : Math.min(size - length, start + length)
  return offset === start
    ? [Math.max(0, start - 1), Math.max(0, start - 1) + length - 1]
    : [offset, offset + length - 1]
}

async function sendBody(res: ServerResponse, body: Buffer, fault: FaultRule | undefined, delay: number): Promise<void> {
  if (fault?.kind === 'reset' || fault?.kind === 'truncate-length-kept') {
    res.write(body.subarray(0, body.length >> 1))
    await sleep(20)
    // reset: RST via destroy of the socket with an error; truncate: a plain early close.
    if (fault.kind === 'reset') res.socket?.resetAndDestroy()
    else res.socket?.end()
    return
  }
  if (fault?.kind === 'slow-body') {
    const piece = Math.ceil(body.length / 8) || 1
    for (let i = 0; i < body.length; i += piece) {
      res.write(body.subarray(i, i + piece))
      await sleep(delay / 8)
    }
    return void res.end()
  }
  res.end(body)
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}
