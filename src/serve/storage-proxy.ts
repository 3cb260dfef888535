/**
 * The local storage proxy of the CLI's page: a table on signed storage (S3 with SigV4, or Unity
 * Catalog's vended credentials) appears to the page as a plain HTTP table under
 * `/__snaptrain/storage/<id>/`, on the page's own origin. Node signs every request (and renews
 * the credentials), so no key, secret or catalog token enters the page, and the bucket needs no
 * CORS rule for it. Only GET and HEAD under the registered table's root are forwarded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { UrlResolver } from '../table/types.ts'
import { FILE_HEADERS, forward, relay, relayError, type ForwardOptions } from './relay.ts'

const PREFIX = '/__snaptrain/storage/'
/** The registered tables of one server process. */
export class StorageProxy {
  private tables = new Map<string, { root: string; resolver: UrlResolver; http: ForwardOptions }>()

  /**
   * Registers a table root (ending in '/') and its resolver; returns the id. `http`: the run's
   * allow-list and plain-HTTP opt-in, applied to every request forwarded for it.
   */
  register(root: string, resolver: UrlResolver, http: Omit<ForwardOptions, 'resolver'> = {}): string {
    const id = crypto.randomUUID()
    this.tables.set(id, { root, resolver, http: { ...http, resolver } })
    return id
  }

  /** The table's URL on the page origin `origin`. */
  tableUrl(origin: string, id: string): string {
    return `${origin}${PREFIX}${id}/`
  }

  /** Connect-style handler: true when it answered. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname === '/' && url.searchParams.get('list-type') === '2') return this.list(res, url)
    if (!url.pathname.startsWith(PREFIX)) return false
    const rest = url.pathname.slice(PREFIX.length)
    const slash = rest.indexOf('/')
    const table = slash > 0 ? this.tables.get(rest.slice(0, slash)) : undefined
    const method = req.method ?? 'GET'
    if (!table) return answer(res, 404, 'no such table on this proxy')
    if (method !== 'GET' && method !== 'HEAD') return answer(res, 405, 'the proxy reads only')
    const target = `${table.root}${rest.slice(slash + 1)}${url.search}`
    try {
      const range = req.headers.range
      // One attempt here: the page's reader retries, times out and checks ranges itself.
      const init: RequestInit = { method, headers: typeof range === 'string' ? { Range: range } : {} }
      await relay(res, await forward(target, init, table.http, table.root), FILE_HEADERS, method)
    } catch (error) {
      if (!res.headersSent) answer(res, 502, relayError(error))
      else res.destroy()
    }
    return true
  }

  /**
   * A ListObjectsV2 of the page's server root whose prefix is a registered table's (the reader
   * lists `_delta_log/` at the origin's root): the bucket's listing under the table's own prefix,
   * signed, with its keys moved back under the proxy path. Other listings are left to the next
   * handler (the sample tables' listing).
   */
  private async list(res: ServerResponse, url: URL): Promise<boolean> {
    const asked = url.searchParams.get('prefix') ?? ''
    if (!asked.startsWith(PREFIX.slice(1))) return false
    const rest = asked.slice(PREFIX.length - 1)
    const slash = rest.indexOf('/')
    const id = rest.slice(0, slash)
    const table = slash > 0 ? this.tables.get(id) : undefined
    if (!table) return answer(res, 404, 'no such table on this proxy')
    const root = new URL(table.root)
    const tablePrefix = decodeURIComponent(root.pathname.slice(1))
    const query = new URLSearchParams(url.searchParams)
    query.set('prefix', tablePrefix + rest.slice(slash + 1))
    try {
      const upstream = await forward(`${root.origin}/?${query}`, {}, table.http, table.root)
      const ours = xmlText(`${PREFIX.slice(1)}${id}/`)
      const theirs = xmlText(tablePrefix)
      const xml = (await upstream.text())
        .replaceAll(`<Key>${theirs}`, `<Key>${ours}`)
        .replaceAll(`<Prefix>${theirs}`, `<Prefix>${ours}`)
      res.writeHead(upstream.status, { 'content-type': 'application/xml' })
      res.end(xml)
    } catch (error) {
      answer(res, 502, relayError(error))
    }
    return true
  }
}

function xmlText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function answer(res: ServerResponse, status: number, message: string): true {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
  res.end(message)
  return true
}

/** The proxy of this process, shared by vite's bundled config and the CLI (see sharing-proxy.ts). */
export const storageProxy: StorageProxy = ((
  globalThis as { __snaptrainStorageProxy?: StorageProxy }
).__snaptrainStorageProxy ??= new StorageProxy())
