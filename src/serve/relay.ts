/**
 * The one forwarding step of the local proxies (storage-proxy.ts, sharing-proxy.ts): an upstream
 * request made with the reader's own `send()` — one attempt, one timeout over headers and body,
 * the body bounded as the reader bounds it (a ranged answer exactly the bytes asked for, else the
 * log-file cap) — and its answer passed back to the page with a chosen set of headers.
 * Upstream 4xx answers are passed on as they are; a 5xx, a timeout or a dropped connection
 * becomes a 502 naming the URL with its query values redacted (a pre-signed URL's signature
 * never reaches the page through an error text).
 */
import type { ServerResponse } from 'node:http'
import { send } from '../table/http.ts'
import type { HttpOptions } from '../table/types.ts'
import { redactUrls } from '../util/redact.ts'

/** Every forwarded request ends within this (the page's reader has its own timeouts and retries). */
export const FORWARD_TIMEOUT_MS = 60_000

/** Headers a proxied data-file answer keeps (what the reader and hyparquet look at). */
export const FILE_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'etag',
  'last-modified',
  'accept-ranges',
]

/** What a proxy forwards with: a table's resolver, and the run's allow-list and plain-HTTP opt-in. */
export type ForwardOptions = Pick<HttpOptions, 'resolver' | 'allowOrigins' | 'allowInsecureHttp'>

/**
 * One upstream request for a proxy: `send()` with a single attempt and FORWARD_TIMEOUT_MS, so the
 * proxied URL (a pre-signed URL, a redirect) passes the same checks as a request of the reader;
 * `home` is the upstream origin the user named (the bucket, the sharing endpoint), always allowed.
 * Throws a TableError (redact it with relayError before it reaches the page).
 */
export function forward(url: string, init: RequestInit, opts: ForwardOptions = {}, home?: string): Promise<Response> {
  return send(url, init, { ...opts, attempts: 1, timeoutMs: FORWARD_TIMEOUT_MS }, home)
}

/** The headers of `upstream` named in `names` (lower case), those present. */
export function passedHeaders(upstream: Response, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of names) {
    const value = upstream.headers.get(name)
    if (value !== null) out[name] = value
  }
  return out
}

/** Writes `upstream`'s status, the headers in `names` and (unless HEAD) its already-read body. */
export async function relay(
  res: ServerResponse,
  upstream: Response,
  names: readonly string[],
  method = 'GET',
): Promise<void> {
  const body = method === 'HEAD' ? undefined : Buffer.from(await upstream.arrayBuffer())
  res.writeHead(upstream.status, passedHeaders(upstream, names))
  res.end(body)
}

/** The message of a failed forward, safe to show the page. */
export function relayError(error: unknown): string {
  return redactUrls((error as Error).message ?? String(error))
}
