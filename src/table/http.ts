/**
 * HTTP for the Delta reader: one fetch wrapper with a per-request timeout, bounded retries of
 * transient failures, errors that name the URL, and the one place that decides where a request
 * and its credentials may go (the allow-list, redirects, no secret over plain HTTP). Runs
 * unchanged in Node, browsers and workers (only `fetch`, `AbortController`, `Headers`, `Response`).
 */
import { TableError, type FetchLike, type HttpOptions } from './types.ts'
import { checkRangedAnswer, FatalResponseError, FileMemory, requestedRange } from './range-check.ts'
import { redactUrls } from '../util/redact.ts'

const DEFAULT_TIMEOUT_MS = 10_000
/**
 * Largest whole-file answer taken when the file's size is not known from the log: commit files,
 * `_last_checkpoint`, JSON checkpoints, listing pages. 256 MiB holds commits of millions of
 * actions; `HttpOptions.maxLogBytes` or, in Node, `SNAPTRAIN_MAX_LOG_BYTES` changes it.
 */
export const DEFAULT_MAX_LOG_BYTES = 256 * 2 ** 20
/** Error bodies (4xx/5xx) are read at most this far: they only explain, and a server may send gigabytes. */
const MAX_ERROR_BODY_BYTES = 64 * 2 ** 10
const DEFAULT_ATTEMPTS = 4
const DEFAULT_BACKOFF_MS = 100

/** Statuses that mean "the body is empty by definition"; `new Response(body)` rejects a body for them. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

/**
 * Wrap `opts.fetch` (default globalThis.fetch) into a fetch that times out, retries and reports
 * failures as TableError('http'). It behaves like fetch for its callers (hyparquet's
 * `asyncBufferFromUrl` passes a `Range` header and reads `status`, `headers` and the body), except
 * that a non-2xx answer to a GET is thrown instead of returned (HEAD answers are returned as is).
 *
 * @param opts timeouts (ms), attempts (count, first included), backoff (ms), extra headers
 * @param tableUrl when given, `opts.headers` are sent only to this URL's origin (so credentials for
 *   the table never leak to absolute file URIs on other hosts); without it they go to every URL
 * @param memory what this reader has seen of its files: ranged answers are checked against it
 *   (range-check.ts: wrong bytes, truncated bodies, files changed mid-read); default a fresh one
 */
export function retryingFetch(opts: HttpOptions = {}, tableUrl?: string, memory = new FileMemory()): FetchLike {
  return async (input, init) => {
    const res = await send(input, init, opts, tableUrl, memory)
    // Why HEAD is passed through: it is a probe, and hyparquet's byteLengthFromUrl answers a 403
    // on HEAD (signed S3 URLs forbid it) by retrying with a ranged GET; it needs to see the 403.
    if (!res.ok && (init?.method ?? 'GET') !== 'HEAD')
      throw await explainedStatusError(init?.method ?? 'GET', input, res)
    return res
  }
}

/**
 * statusError plus the reason the server gave: the code and message of an S3 XML error, a Delta
 * Sharing `{errorCode, message}` or a Unity Catalog `{error_code, message}` body. Only those two
 * fields, cut short: an error body may echo the request (S3 sends the string it signed).
 */
export async function explainedStatusError(method: string, url: string, res: Response): Promise<TableError> {
  const error = statusError(method, url, res)
  const reason = errorReason(await res.text().catch(() => ''))
  if (reason) error.message += ` (${reason})`
  return error
}

function errorReason(body: string): string | undefined {
  const xmlCode = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1]
  if (xmlCode) {
    const message = /<Message>([^<]{1,300})<\/Message>/.exec(body)?.[1]
    return message ? `${xmlCode}: ${message}` : xmlCode
  }
  try {
    const json = JSON.parse(body) as Record<string, unknown>
    const code = json.errorCode ?? json.error_code ?? json.error
    const message = json.message ?? json.error_description
    const parts = [code, message].filter((x): x is string => typeof x === 'string' && x !== '')
    return parts.length ? parts.join(': ').slice(0, 300) : undefined
  } catch {
    return undefined
  }
}

/**
 * Send one request with timeout and retries; returns the final response even when it is a 4xx
 * (callers that probe for files need the 404). Throws TableError('http') for 5xx after the last
 * attempt, for timeouts and for network errors; TableError('access') for a request refused
 * before it leaves (a secret over plain HTTP, a redirect a signed request may not take; see
 * following), and for an origin outside `opts.allowOrigins` TableError('http') naming it.
 *
 * Why the body is read here: a timeout that stopped at the headers would let a stalled body hang
 * the reader forever, and a connection dropped mid-body is as transient as a 503, so it is retried
 * the same way. The buffered body is handed back in a fresh Response (callers read it as usual).
 */
export async function send(
  url: string,
  init: RequestInit | undefined,
  opts: HttpOptions,
  tableUrl?: string,
  memory = new FileMemory(),
): Promise<Response> {
  checkOrigin(url, url, opts, tableUrl)
  const attempts = Math.max(1, opts.attempts ?? DEFAULT_ATTEMPTS)
  const method = init?.method ?? 'GET'
  let lastError: TableError | undefined
  let renewals = 0
  let moves = 0
  let waitMs: number | undefined
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(waitMs ?? backoff(attempt - 1, opts.backoffMs ?? DEFAULT_BACKOFF_MS))
    waitMs = undefined
    try {
      // A governed table's credentials are the resolver's; extra headers would follow its URLs anywhere.
      const request = opts.resolver ? { ...init } : withHeaders(url, init, opts, tableUrl)
      const target = opts.resolver ? await resolved(url, request, opts.resolver) : { url, init: request }
      const signed = opts.resolver !== undefined || hasSignedQuery(target.url)
      const res = await following(url, target, signed, opts, tableUrl, memory)
      if (signed && REDIRECT_STATUSES.has(res.status)) {
        // An S3 bucket answering from its own region is the one redirect a signed request may take: the
        // resolver re-signs for that endpoint (same bucket, same provider) and the request goes again.
        if (moves < MAX_RENEWALS && (await movedBy(opts.resolver, url, res))) {
          moves++
          attempt--
          lastError = undefined
          waitMs = 0
          continue
        }
        throw await redirectRefused(method, url, res)
      }
      if (opts.resolver && isRefusal(res) && renewals < MAX_RENEWALS) {
        // A governed table's URL or credentials expired: renewed ones make the same request valid again.
        if (await opts.resolver.rejected(url, res.status, await res.clone().text())) {
          renewals++
          attempt--
          lastError = undefined
          waitMs = 0
          continue
        }
      }
      if (res.status === 429) {
        lastError = statusError(method, url, res)
        waitMs = retryAfter(res, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS)
        continue
      }
      // Only server errors are transient: a 4xx will not change by asking again, except a 416
      // for a range inside the file (the log's size): a confused server or proxy, worth a retry.
      if (res.status < 500 && !(res.status === 416 && isRanged(init))) return res
      lastError = statusError(method, url, res)
    } catch (error) {
      if (init?.signal?.aborted) throw error // the caller gave up: not ours to retry
      if (error instanceof FatalResponseError) throw error // wrong bytes, changed file: asking again cannot fix it
      if (error instanceof TableError && error.code !== 'http') throw error // a resolver's refusal
      lastError = error instanceof TableError ? error : networkError(method, url, error)
    }
  }
  throw lastError ?? new TableError(`${method} ${url}: no attempt made`, 'http', url)
}

/** Renewals of a governed table's URLs or credentials one request may ask for before its refusal stands. */
const MAX_RENEWALS = 3

/** Redirect hops one request follows; a table's files have no need of long chains. */
const MAX_REDIRECTS = 10
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
/** Request headers that carry credentials (or a signature over them): never sent to another origin. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie|x-amz-.*|x-goog-.*|x-ms-.*)$/i
/** Query parameters that make a URL a credential: S3, GCS and other pre-signed URLs (`…-Signature`), Azure SAS, CloudFront. */
const SIGNED_QUERY = /^(sig|(.+-)?signature|x-amz-credential|x-amz-security-token|x-goog-credential)$/i

/**
 * Sends `target` and follows its redirects here rather than in fetch, at most MAX_REDIRECTS hops,
 * so that every hop passes the same checks as the first request (guard: the allow-list, no secret
 * over plain HTTP) and a hop to another origin loses every credential header, as curl and
 * requests drop `Authorization`. A signed request's redirect is handed back unfollowed: send()
 * refuses it, since the bytes of another origin are not the table's (or lets the resolver re-sign).
 *
 * Why fetch follows by itself when nothing needs guarding: in a browser `redirect: 'manual'` yields
 * an opaque answer that hides where it leads, so only guarded requests pay that price (attemptOnce).
 */
async function following(
  url: string,
  target: { url: string; init: RequestInit },
  signed: boolean,
  opts: HttpOptions,
  tableUrl: string | undefined,
  memory: FileMemory,
): Promise<Response> {
  const home = originOf(target.url)
  const guarded = signed || opts.allowOrigins !== undefined || carriedSecret(target) !== undefined
  const redirect: RequestRedirect = target.init.redirect ?? (guarded ? 'manual' : 'follow')
  let hop: { url: string; init: RequestInit } = { url: target.url, init: { ...target.init, redirect } }
  for (let hops = 0; ; hops++) {
    guard(url, hop, opts, tableUrl)
    const res = await attemptOnce(url, hop, opts, memory)
    const location = REDIRECT_STATUSES.has(res.status) ? res.headers.get('Location') : null
    if (signed || location === null) return res
    if (hops === MAX_REDIRECTS) {
      throw new TableError(
        `${hop.init.method ?? 'GET'} ${redactUrls(url)}: more than ${MAX_REDIRECTS} redirects`,
        'access',
        url,
      )
    }
    hop = redirectHop(hop, location, res.status, home, opts)
  }
}

/** The request a redirect asks for: 303 (and 301/302 after a POST) become a GET; credentials stay home. */
function redirectHop(
  hop: { url: string; init: RequestInit },
  location: string,
  status: number,
  home: string,
  opts: HttpOptions,
): { url: string; init: RequestInit } {
  const next = new URL(location, hop.url).href
  const headers = new Headers(hop.init.headers)
  if (originOf(next) !== home) {
    const own = new Set(Object.keys(opts.headers ?? {}).map(name => name.toLowerCase()))
    const names: string[] = []
    headers.forEach((_value, name) => names.push(name))
    for (const name of names) if (CREDENTIAL_HEADER.test(name) || own.has(name)) headers.delete(name)
  }
  const method = hop.init.method ?? 'GET'
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    headers.delete('content-type')
    const { body: _body, ...rest } = hop.init
    return { url: next, init: { ...rest, method: method === 'HEAD' ? 'HEAD' : 'GET', headers } }
  }
  return { url: next, init: { ...hop.init, headers } }
}

/**
 * Checks the request about to leave (after the resolver, and at each redirect hop): an http(s) URL,
 * an allowed origin, and no credential in clear over the network.
 */
function guard(url: string, hop: { url: string; init: RequestInit }, opts: HttpOptions, tableUrl?: string): void {
  const target = new URL(hop.url)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new TableError(`${redactUrls(url)}: not sent: its request leads to a ${target.protocol} URL`, 'access', url)
  }
  checkOrigin(hop.url, url, opts, tableUrl)
  const secret = carriedSecret(hop)
  if (secret && target.protocol === 'http:' && !isLoopback(target.hostname) && !opts.allowInsecureHttp) {
    throw new TableError(
      `${redactUrls(url)}: not sent: ${secret} would cross the network in clear to ${target.origin} (plain http, not ` +
        'loopback); use https, or allow it with --allow-insecure-http / allowInsecureHttp on a network you trust',
      'access',
      url,
    )
  }
}

/** What credential a request carries, in words, or undefined. */
function carriedSecret(hop: { url: string; init: RequestInit }): string | undefined {
  let header: string | undefined
  new Headers(hop.init.headers).forEach((_value, name) => {
    if (!header && /^(authorization|proxy-authorization|cookie|x-amz-security-token)$/i.test(name)) header = name
  })
  if (header) return `its ${header} header`
  return hasSignedQuery(hop.url) ? 'its signed URL' : undefined
}

/** Whether `url`'s query carries a signature (a pre-signed URL is itself a credential). */
function hasSignedQuery(url: string): boolean {
  try {
    for (const name of new URL(url).searchParams.keys()) if (SIGNED_QUERY.test(name)) return true
  } catch {
    return false
  }
  return false
}

/** 127.0.0.0/8, [::1] and localhost: traffic that never leaves the machine. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)
}

/** Asks the resolver whether a redirect moved the table (an S3 region); a worker's proxy without the hook says no. */
async function movedBy(resolver: HttpOptions['resolver'], url: string, res: Response): Promise<boolean> {
  if (!resolver?.redirected) return false
  const headers: Record<string, string> = {}
  res.headers.forEach((value, name) => {
    headers[name] = value
  })
  const body = await res.clone().text()
  return resolver.redirected(url, res.status, headers, body).catch(() => false)
}

/** The refusal of a signed request's redirect: names the origin it led to, never the URL it carried. */
async function redirectRefused(method: string, url: string, res: Response): Promise<TableError> {
  const location = res.headers.get('Location')
  let where = 'no Location'
  try {
    if (location !== null) where = new URL(location, url).origin
  } catch {
    where = 'an invalid Location'
  }
  const reason = errorReason(await res.text().catch(() => ''))
  return new TableError(
    `${method} ${redactUrls(url)}: storage answered ${res.status} redirecting to ${where}${reason ? ` (${reason})` : ''}; ` +
      "a signed request is not followed elsewhere (its credentials and bytes belong to the table's storage)",
    'access',
    url,
  )
}

/** Answers a resolver is told of: unauthenticated, forbidden, and S3's 400 ExpiredToken. */
function isRefusal(res: Response): boolean {
  return res.status === 401 || res.status === 403 || res.status === 400
}

/** The request to send for `url`: the resolver's URL, with its headers added to the request's. */
async function resolved(
  url: string,
  init: RequestInit,
  resolver: NonNullable<HttpOptions['resolver']>,
): Promise<{ url: string; init: RequestInit }> {
  const headers = new Headers(init.headers)
  const plain: Record<string, string> = {}
  headers.forEach((value, name) => {
    plain[name] = value
  })
  const target = await resolver.resolve(url, init.method ?? 'GET', plain)
  for (const [name, value] of Object.entries(target.headers ?? {})) headers.set(name, value)
  return { url: target.url, init: { ...init, headers } }
}

/**
 * How long a 429 asks us to wait: `Retry-After` in seconds or as an HTTP date, else 1 s; at most
 * the request timeout, so a server asking for an hour fails the request instead of hanging it.
 */
function retryAfter(res: Response, capMs: number): number {
  const header = res.headers.get('Retry-After')
  let ms = 1000
  if (header !== null) {
    const seconds = Number(header)
    ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now()
  }
  return Math.min(Math.max(0, Number.isFinite(ms) ? ms : 1000), capMs)
}

/** One attempt: fetch + read the whole body, all under one timer. */
async function attemptOnce(
  url: string,
  target: { url: string; init: RequestInit },
  opts: HttpOptions,
  memory: FileMemory,
): Promise<Response> {
  const init = target.init
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  init.signal?.throwIfAborted()
  const controller = new AbortController()
  const onCallerAbort = () => controller.abort(init.signal?.reason)
  init.signal?.addEventListener('abort', onCallerAbort, { once: true })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  const base = opts.fetch ?? globalThis.fetch
  try {
    const res = await base(target.url, { ...init, signal: controller.signal })
    if (res.type === 'opaqueredirect') {
      // A browser hides where a manual redirect leads, so a guarded request cannot be checked there.
      throw new TableError(
        `${init.method ?? 'GET'} ${redactUrls(url)}: answered with a redirect, which the page does not follow for a request ` +
          'that carries credentials or is limited by an allow-list',
        'access',
        url,
      )
    }
    const range = rangeOf(init)
    const body =
      (init.method ?? 'GET') === 'HEAD' || NULL_BODY_STATUSES.has(res.status)
        ? null
        : await readBounded(url, res, bodyLimit(url, res, range, opts, memory), controller)
    if (range !== null && body !== null && res.ok) checkRangedAnswer(url, range, res, body.byteLength, memory)
    const answer = new Response(body === null ? null : streamOf(body), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    })
    // The answer's arrayBuffer() is the buffer read above: a Response made from an ArrayBuffer
    // copies it and arrayBuffer() copies it again (two copies of every data range); text() and
    // the like read the stream, which holds the same memory.
    if (body !== null) Object.defineProperty(answer, 'arrayBuffer', { value: () => Promise.resolve(body) })
    return answer
  } catch (error) {
    if (timedOut) {
      throw new TableError(`${init.method ?? 'GET'} ${url}: timed out after ${timeoutMs} ms`, 'http', url)
    }
    throw error
  } finally {
    clearTimeout(timer)
    init.signal?.removeEventListener('abort', onCallerAbort)
  }
}

/** A one-chunk stream over `body` (no copy). */
function streamOf(body: ArrayBuffer): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(body))
      controller.close()
    },
  })
}

/** How many body bytes an answer may have, and why (named when it is exceeded). */
interface BodyLimit {
  bytes: number
  why: string
  cut?: boolean
}

/**
 * A ranged answer (206) may hold exactly the bytes asked for; a whole-file answer (200, also to a
 * server that ignored Range) at most the file's size from the log, else the log-file cap; an
 * error answer is cut at 64 KiB.
 */
function bodyLimit(url: string, res: Response, range: string | null, opts: HttpOptions, memory: FileMemory): BodyLimit {
  if (!res.ok) return { bytes: MAX_ERROR_BODY_BYTES, why: 'error body', cut: true }
  const asked = requestedRange(range)
  if (res.status === 206 && asked) {
    if (asked.start !== undefined && asked.end !== undefined)
      return { bytes: asked.end - asked.start + 1, why: `asked for ${range}` }
    if (asked.start === undefined && asked.end !== undefined) return { bytes: asked.end, why: `asked for ${range}` }
  }
  const size = memory.known(url)?.size
  if (size !== undefined) return { bytes: size, why: 'the file size in the log' }
  const cap = opts.maxLogBytes ?? envPositiveInt('SNAPTRAIN_MAX_LOG_BYTES') ?? DEFAULT_MAX_LOG_BYTES
  return { bytes: cap, why: 'the log-file cap (maxLogBytes / SNAPTRAIN_MAX_LOG_BYTES)' }
}

/**
 * A positive whole number from the environment variable `name` where there is an environment
 * (Node), else undefined (also in the page, and for a value that is not one).
 */
export function envPositiveInt(name: string): number | undefined {
  const raw = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]
  const n = raw === undefined ? NaN : Number(raw)
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/**
 * Reads the body chunk by chunk and aborts the request the moment it grows past `limit` (an
 * error, never retried: the server sends more than it may), or, for an error body, keeps what
 * fits and stops reading.
 */
async function readBounded(
  url: string,
  res: Response,
  limit: BodyLimit,
  controller: AbortController,
): Promise<ArrayBuffer> {
  // A declared length decides at once: over the limit is refused unread; within it, the body is
  // that many bytes (HTTP/1.1 framing), read in one piece as fast as the runtime can.
  const declared = Number(res.headers.get('Content-Length') ?? NaN)
  const encoded = res.headers.has('Content-Encoding') // a compressed body's length says nothing of the bytes it inflates to
  if (Number.isSafeInteger(declared) && declared >= 0 && !encoded && !limit.cut) {
    if (declared > limit.bytes) {
      controller.abort()
      throw tooLong(url, limit)
    }
    return res.arrayBuffer()
  }
  const reader = res.body?.getReader()
  if (!reader) {
    const whole = await res.arrayBuffer()
    if (whole.byteLength > limit.bytes && !limit.cut) throw tooLong(url, limit)
    return limit.cut ? whole.slice(0, limit.bytes) : whole
  }
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (total + value.byteLength > limit.bytes) {
      controller.abort()
      if (!limit.cut) throw tooLong(url, limit)
      chunks.push(value.subarray(0, limit.bytes - total))
      total = limit.bytes
      break
    }
    chunks.push(value)
    total += value.byteLength
  }
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out.buffer
}

function tooLong(url: string, limit: BodyLimit): TableError {
  return new FatalResponseError(
    `GET ${url}: the answer is longer than ${limit.bytes} bytes (${limit.why}); ` + 'the request was aborted',
    'bad-response',
    url,
  )
}

/** The request's Range header, or null. */
function rangeOf(init: RequestInit | undefined): string | null {
  return init?.headers ? new Headers(init.headers).get('Range') : null
}

function isRanged(init: RequestInit | undefined): boolean {
  return rangeOf(init) !== null
}

/**
 * Add `opts.headers` to the request. Why only to the table's origin: these are typically
 * credentials; also, any non-safelisted header turns a cross-origin browser request into a
 * CORS-preflighted one, so we avoid adding them where they are not needed.
 */
function withHeaders(url: string, init: RequestInit | undefined, opts: HttpOptions, tableUrl?: string): RequestInit {
  const extra = opts.headers
  if (!extra || (tableUrl && !sameOrigin(url, tableUrl))) return { ...init }
  const headers = new Headers(init?.headers)
  for (const [name, value] of Object.entries(extra)) {
    if (!headers.has(name)) headers.set(name, value)
  }
  return { ...init, headers }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}

/**
 * Refuses `sent` (the URL a request for `url` actually goes to) unless its origin is the table's or
 * one of `opts.allowOrigins` (no list: any). Why here: every request passes send() — the reader's,
 * the proxies', the sharing and catalog APIs' — and is checked as sent (after the resolver, at each
 * redirect), so neither a log nor a share's pre-signed URLs can reach another host by any path.
 */
function checkOrigin(sent: string, url: string, opts: HttpOptions, tableUrl?: string): void {
  if (!opts.allowOrigins) return
  const allowed = [...(tableUrl ? [tableUrl] : []), ...opts.allowOrigins].map(originOf)
  const origin = originOf(sent)
  if (origin !== 'null' && allowed.includes(origin)) return
  // A request sent elsewhere than `url` (a pre-signed URL, a redirect) is named by its origin only: its URL may be a credential.
  const via = sent === url ? '' : ` (its request goes to ${origin})`
  throw new FatalResponseError(
    `${redactUrls(url)}${via}: origin ${origin} is not allowed (allowed: ${allowed.join(', ')}; ` +
      'add it with --allow-origin / allowOrigins)',
    'http',
    url,
  )
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'null'
  }
}

/** Exponential backoff with "full jitter" in [0.5, 1.5)·base·2^(retry-1), so retries spread out. */
function backoff(retry: number, baseMs: number): number {
  return baseMs * 2 ** (retry - 1) * (0.5 + Math.random())
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

/** "GET http://…/x.parquet: 404 Not Found" */
export function statusError(method: string, url: string, res: Response): TableError {
  const text = res.statusText ? ` ${res.statusText}` : ''
  return new TableError(`${method} ${url}: ${res.status}${text}`, 'http', url)
}

function networkError(method: string, url: string, error: unknown): TableError {
  const cause = error instanceof Error ? error.message : String(error)
  return new TableError(`${method} ${url}: network error: ${cause}`, 'http', url)
}

/**
 * GET a URL (or the byte range [start, end) of it) and return the body bytes; the body read is
 * covered by the timeout. Throws TableError('http') on any non-2xx status.
 *
 * Why the range check: a server that ignores `Range` answers 200 with the whole file; we then cut
 * the requested slice out ourselves instead of returning the wrong bytes.
 */
export async function fetchBytes(
  url: string,
  opts: HttpOptions = {},
  range?: [number, number],
  tableUrl?: string,
): Promise<Uint8Array> {
  const init: RequestInit = range ? { headers: { Range: `bytes=${range[0]}-${range[1] - 1}` } } : {}
  const res = await retryingFetch(opts, tableUrl)(url, init)
  const bytes = new Uint8Array(await res.arrayBuffer())
  if (range && res.status === 200) return bytes.slice(range[0], range[1])
  return bytes
}

/** GET a URL as UTF-8 text (see fetchBytes for errors). */
export async function fetchText(url: string, opts: HttpOptions = {}, tableUrl?: string): Promise<string> {
  return new TextDecoder().decode(await fetchBytes(url, opts, undefined, tableUrl))
}

/** GET a URL and parse it as JSON; a body that is not JSON is TableError('malformed-log'). */
export async function fetchJson<T = unknown>(url: string, opts: HttpOptions = {}, tableUrl?: string): Promise<T> {
  const text = await fetchText(url, opts, tableUrl)
  try {
    return JSON.parse(text) as T
  } catch (error) {
    throw new TableError(`${url}: not valid JSON (${(error as Error).message})`, 'malformed-log', url)
  }
}

/**
 * GET a URL that may legitimately be missing: resolves undefined on 404/410, the response
 * otherwise (2xx); other statuses throw TableError('http').
 */
export async function fetchOptional(
  url: string,
  opts: HttpOptions = {},
  method: 'GET' | 'HEAD' = 'GET',
  tableUrl?: string,
): Promise<Response | undefined> {
  const res = await send(url, { method }, opts, tableUrl)
  if (res.status === 404 || res.status === 410) return undefined
  // Why: some servers and signed-URL setups forbid HEAD but allow GET; ask again with GET.
  if (method === 'HEAD' && (res.status === 403 || res.status === 405)) {
    return fetchOptional(url, opts, 'GET', tableUrl)
  }
  if (!res.ok) throw await explainedStatusError(method, url, res)
  return res
}

/** Last-Modified of a response in ms since epoch, or undefined. */
export function lastModified(res: Response): number | undefined {
  const header = res.headers.get('Last-Modified')
  const ms = header ? Date.parse(header) : NaN
  return Number.isFinite(ms) ? ms : undefined
}
