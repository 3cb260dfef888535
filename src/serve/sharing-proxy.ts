/**
 * The local sharing proxy of `npm start` and the CLI: the page reaches a Delta Sharing server
 * through its own origin, so neither the server (the reference server sends no CORS headers) nor
 * the provider's bucket has to allow the page, and the profile's token never enters the page.
 *
 * - `POST /__snaptrain/sharing/profiles` with a profile file's text registers it (from the page's
 *   own origin only) and answers `{ id, endpoint }`: the endpoint the page's client talks to.
 * - `…/<id>/api/<rest>` is forwarded to the profile's endpoint with its Authorization header;
 *   query and metadata answers have each pre-signed URL replaced by a proxy file URL.
 * - `…/<id>/file<path>?n=<k>` is a GET (Range passed on) of the k-th URL this proxy handed out —
 *   nothing else: the proxy reaches only the profile's endpoint and the URLs it returned.
 *
 * A proxy file URL keeps the pre-signed URL's path, so the client derives the same table-relative
 * paths (and the same file order) as it would from the URLs themselves.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Plugin } from 'vite'
import type { Middleware } from './host-check.ts'
import { SharingAuth } from '../sharing/auth.ts'
import { PROXY_NAME, PROXY_PREFIX } from '../sharing/proxy-route.ts'
import { storageProxy } from './storage-proxy.ts'
import { FILE_HEADERS, forward, passedHeaders, relay, relayError, type ForwardOptions } from './relay.ts'
import { parseProfile, type BearerProfile, type OAuthProfile } from '../sharing/profile.ts'

const PREFIX = PROXY_PREFIX
/** Headers a forwarded REST answer keeps. */
const API_HEADERS = ['content-type', 'delta-table-version', 'delta-sharing-capabilities', 'retry-after']
/** Largest profile file taken (they are a few hundred bytes). */
const MAX_PROFILE_BYTES = 64 * 1024

interface Registered {
  profile: BearerProfile | OAuthProfile
  auth: SharingAuth
  /** The run's allow-list and plain-HTTP opt-in, for the API calls and the pre-signed URLs fetched. */
  http: ForwardOptions
  /** Pre-signed URLs handed out, by number. */
  urls: string[]
}

/** The registered profiles of one server process. */
export class SharingProxy {
  private profiles = new Map<string, Registered>()

  /** Registers a parsed profile; returns its id (the CLI's way in: the profile never reaches the page). */
  register(profile: BearerProfile | OAuthProfile, source: string, http: Omit<ForwardOptions, 'resolver'> = {}): string {
    const id = crypto.randomUUID()
    this.profiles.set(id, { profile, auth: new SharingAuth(profile, source, http), urls: [], http })
    return id
  }

  /** The proxy endpoint of a registered profile, on the page origin `origin` (no trailing '/'). */
  endpoint(origin: string, id: string): string {
    return `${origin}${PREFIX}${id}/api/`
  }

  /** Connect-style handler: true when it answered (the path is the proxy's). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (!url.pathname.startsWith(PREFIX)) return false
    try {
      await this.route(req, res, url)
    } catch (error) {
      if (res.headersSent) res.destroy()
      else if (error instanceof BodyTooLarge)
        reply(res, 413, { errorCode: 'REQUEST_TOO_LARGE', message: error.message })
      else reply(res, 502, { errorCode: 'PROXY_ERROR', message: relayError(error) })
    }
    return true
  }

  private async route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const rest = url.pathname.slice(PREFIX.length)
    if (rest === 'profiles') return this.registerFromPage(req, res)
    const slash = rest.indexOf('/')
    const entry = slash > 0 ? this.profiles.get(rest.slice(0, slash)) : undefined
    if (!entry)
      return reply(res, 404, { errorCode: 'RESOURCE_DOES_NOT_EXIST', message: 'no such profile on this proxy' })
    const id = rest.slice(0, slash)
    const tail = rest.slice(slash + 1)
    if (tail.startsWith('api/')) return this.forwardApi(req, res, entry, id, tail.slice(4) + url.search)
    if (tail.startsWith('file/')) return this.forwardFile(req, res, entry, url)
    reply(res, 404, { errorCode: 'RESOURCE_DOES_NOT_EXIST', message: `no proxy route ${url.pathname}` })
  }

  /** Why same-origin only: another site open in the browser must not register profiles here. */
  private async registerFromPage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // GET is the page's probe: it answers 200 (not an error the browser would log) saying what is here.
    if (req.method === 'GET') return reply(res, 200, { proxy: PROXY_NAME, message: 'POST a profile' })
    if (req.method !== 'POST') return reply(res, 405, { errorCode: 'METHOD_NOT_ALLOWED', message: 'POST a profile' })
    const site = req.headers['sec-fetch-site']
    if (site !== undefined && site !== 'same-origin') {
      return reply(res, 403, { errorCode: 'FORBIDDEN', message: 'profiles are registered by the page itself' })
    }
    const text = await readBody(req, MAX_PROFILE_BYTES)
    let profile: BearerProfile | OAuthProfile
    try {
      profile = parseProfile(text, 'the chosen profile')
    } catch (error) {
      return reply(res, 400, { errorCode: 'INVALID_PROFILE', message: (error as Error).message })
    }
    const id = this.register(profile, 'the chosen profile')
    reply(res, 200, { id, endpoint: this.endpoint(originOf(req), id), upstream: profile.endpoint })
  }

  private async forwardApi(
    req: IncomingMessage,
    res: ServerResponse,
    entry: Registered,
    id: string,
    path: string,
  ): Promise<void> {
    // Only the protocol's routes (all under `shares`) get the profile's token, whatever path the page asks for.
    if (!/^shares(?:[/?]|$)/.test(path))
      return reply(res, 404, { errorCode: 'RESOURCE_DOES_NOT_EXIST', message: 'not a Delta Sharing route' })
    const headers: Record<string, string> = {}
    for (const name of ['content-type', 'delta-sharing-capabilities', 'accept']) {
      const value = req.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    const authorization = await entry.auth.header()
    if (authorization) headers.authorization = authorization
    const method = req.method ?? 'GET'
    const body = method === 'POST' ? await readBody(req, 1024 * 1024) : undefined
    const init = { method, headers, ...(body !== undefined ? { body } : {}) }
    const upstream = await forward(`${entry.profile.endpoint}${path}`, init, entry.http, entry.profile.endpoint)
    if (upstream.status === 401) entry.auth.invalidate()
    const out = passedHeaders(upstream, API_HEADERS)
    let text = await upstream.text()
    if (upstream.ok && /ndjson/i.test(out['content-type'] ?? '')) {
      text = rewriteUrls(text, u => this.fileUrl(originOf(req), id, entry, u))
    }
    res.writeHead(upstream.status, out)
    res.end(text)
  }

  private fileUrl(origin: string, id: string, entry: Registered, signed: string): string {
    const n = entry.urls.push(signed) - 1
    return `${origin}${PREFIX}${id}/file${new URL(signed).pathname}?n=${n}`
  }

  private async forwardFile(req: IncomingMessage, res: ServerResponse, entry: Registered, url: URL): Promise<void> {
    if (req.method !== 'GET')
      return reply(res, 405, { errorCode: 'METHOD_NOT_ALLOWED', message: 'file URLs answer GET' })
    const n = Number(url.searchParams.get('n'))
    const signed = Number.isSafeInteger(n) ? entry.urls[n] : undefined
    if (!signed)
      return reply(res, 404, { errorCode: 'RESOURCE_DOES_NOT_EXIST', message: 'not a URL this proxy handed out' })
    const range = req.headers.range
    const init: RequestInit = { headers: typeof range === 'string' ? { range } : {} }
    const upstream = await forward(signed, init, entry.http, entry.profile.endpoint)
    await relay(res, upstream, FILE_HEADERS)
  }
}

/** Replaces each pre-signed URL of a query answer's lines (both formats, DV files included). */
export function rewriteUrls(ndjson: string, replace: (url: string) => string): string {
  return ndjson
    .split('\n')
    .map(line => {
      if (!line.trim()) return line
      const obj = JSON.parse(line) as { file?: Record<string, unknown> }
      const file = obj.file
      if (!file) return line
      if (typeof file.url === 'string') file.url = replace(file.url)
      const add = (file.deltaSingleAction as Record<string, Record<string, unknown>> | undefined)?.add
      if (add && typeof add.path === 'string') add.path = replace(add.path)
      const dv = add?.deletionVector as Record<string, unknown> | undefined
      if (dv?.storageType === 'p' && typeof dv.pathOrInlineDv === 'string')
        dv.pathOrInlineDv = replace(dv.pathOrInlineDv)
      return JSON.stringify(obj)
    })
    .join('\n')
}

/** The page origin a request came to (the Host it named; the host check has vetted it). */
function originOf(req: IncomingMessage): string {
  return `http://${req.headers.host ?? 'localhost'}`
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** A request body from the page past its bound (answered 413; nothing is forwarded). */
class BodyTooLarge extends Error {}

/**
 * The page's request body as text, refused (BodyTooLarge) the moment it grows past `limit` bytes.
 * Why not `for await`: leaving that loop destroys the request and its socket before the 413 is
 * written; the rest of an oversized body is read and dropped instead, so the answer arrives.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return
      size += chunk.length
      if (size > limit) reject(new BodyTooLarge(`request body over ${limit} bytes`))
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/**
 * The proxy of this process: vite's middleware and the CLI register into the same one. Why on
 * globalThis: vite bundles vite.config.ts with its local imports, so the plugin's copy of this
 * module is not the CLI's; one global object is shared by both copies.
 */
export const sharingProxy: SharingProxy = ((
  globalThis as { __snaptrainSharingProxy?: SharingProxy }
).__snaptrainSharingProxy ??= new SharingProxy())

/** The sharing and storage proxies as one middleware, for vite's dev server and the page server. */
export function governedProxyMiddleware(): Middleware {
  return (req, res, next) => {
    sharingProxy
      .handle(req, res)
      .then(done => done || storageProxy.handle(req, res))
      .then(done => done || next(), next)
  }
}

/** Vite plugin: governedProxyMiddleware on the dev server (`npm start`). */
export function governedProxyPlugin(): Plugin {
  return {
    name: 'snaptrain-governed-proxy',
    configureServer(server) {
      server.middlewares.use(governedProxyMiddleware())
    },
  }
}
