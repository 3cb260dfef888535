/**
 * What the modules of the Delta Sharing test server share: its context, the error type and codes of
 * the reference server's error bodies, the answer shape, sealed tokens and small name and hash helpers.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { statSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import type { SharedTableSpec, SharingServerOptions } from './sharing-server.ts'

/** Path prefix of the API: the profile endpoint is `<origin>/delta-sharing/`. */
export const PREFIX = '/delta-sharing/'
/** Path prefix of pre-signed file URLs. */
export const FILES = '/files/'
/** Path of the OAuth token endpoint. */
export const TOKEN_PATH = '/oauth/token'
const JSON_TYPE = 'application/json; charset=utf-8'

/** The error codes of the reference server's error bodies. */
export const E = {
  auth: 'UNAUTHENTICATED',
  missing: 'RESOURCE_DOES_NOT_EXIST',
  invalid: 'INVALID_PARAMETER_VALUE',
  malformed: 'MALFORMED_REQUEST',
  unsupported: 'UNSUPPORTED_OPERATION',
  internal: 'INTERNAL_ERROR',
} as const

/** An API failure, answered as `{"errorCode", "message"}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

/** An HTTP answer before it is sent: `body` as text or bytes (none for HEAD and 204). */
export interface Answer {
  status: number
  headers: Record<string, string>
  body?: string | Uint8Array
}

/** State of one running server: its options, origin, signing secret and current lifetimes. */
export interface Context {
  opts: SharingServerOptions
  origin: string
  secret: Buffer
  urlLifetimeMs: number
  pageSize: number
  /** OAuth tokens issued, with their expiry (ms since epoch). */
  issued: Map<string, number>
}

/** One API call routed to its handler: `params` are the route's `{share}`, `{schema}`, `{table}`. */
export interface Call {
  ctx: Context
  req: IncomingMessage
  params: Record<string, string>
  query: URLSearchParams
  body: string
}

/** A JSON answer of `value`. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(value) }
}

/** Refuses a feature this server does not implement, as the reference server does (400). */
export function unsupported(what: string): never {
  throw new ApiError(400, E.unsupported, `${what} are not supported by this server`)
}

/** base64url(JSON) + '.' + HMAC: opaque to clients, and a tampered or foreign token does not open. */
export function sealToken(ctx: Context, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${hmac(ctx.secret, body)}`
}

/** The payload of a token `sealToken` made with this secret; undefined for any other text. */
export function openToken<T>(ctx: Context, text: string): T | undefined {
  const [body, sig, extra] = text.split('.')
  if (!body || !sig || extra !== undefined || !sameText(hmac(ctx.secret, body), sig)) return undefined
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString()) as T
  } catch {
    return undefined
  }
}

/** The `share.schema.table` name of a table, as the server spells it. */
export function tableKey(t: SharedTableSpec): string {
  return `${t.share}.${t.schema}.${t.table}`
}

/** Share, schema and table names are case-insensitive. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

/** Distinct names, case-insensitively, in first-seen order and spelling. */
export function unique(names: string[]): string[] {
  const out: string[] = []
  for (const name of names) if (!out.some(n => sameName(n, name))) out.push(name)
  return out
}

/** A stable UUID-shaped id of a name. */
export function uuidOf(text: string): string {
  const h = sha1(text)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** Hex SHA-1 of a text (stable ids). */
export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

/** Hex SHA-256 of a text (query checksums). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** Hex HMAC-SHA256 of a text under the server secret. */
export function hmac(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex')
}

/** Constant-time equality (the secrets here are test secrets, but the habit costs nothing). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** `decodeURIComponent`, or the text unchanged when it is not valid %-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Whether a local path is a regular file. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** Escapes the text of an XML element. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
