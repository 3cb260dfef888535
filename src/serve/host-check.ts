/**
 * The Host check of every server snaptrain starts (the table server, the page server, the page's
 * vite dev and preview servers). A web page the user has open could point its own domain at 127.0.0.1 (DNS
 * rebinding) and read a loopback server as same-origin for as long as it runs; its requests then
 * carry that domain in Host. Answering only our own names — loopback (or the interface bound) with
 * our port, plus names the user lists in SNAPTRAIN_ALLOWED_HOSTS — closes that door. Why the port
 * counts: another loopback port is another origin (a page served there, or a rebinding page that
 * reaches it), and the port a request names must be the one it came in on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Plugin } from 'vite'

/** Names a loopback server is reached by; each must come with the server's own port. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Extra host names from SNAPTRAIN_ALLOWED_HOSTS (comma-separated, no port; any port is accepted
 * with them), for a server reached through a proxy or a name in /etc/hosts.
 */
export function configuredHosts(env: Record<string, string | undefined> = process.env): string[] {
  return (env.SNAPTRAIN_ALLOWED_HOSTS ?? '')
    .split(',')
    .map(h => h.trim().toLowerCase())
    .filter(h => h !== '')
}

/** Which names a server answers, besides the loopback names with its own port. */
export interface HostNames {
  /**
   * The interface the server binds (`snaptrain serve --host H`, ServeOptions.host): a name or
   * address of its own, so answered with the server's port only, as the loopback names are. A
   * wildcard ('0.0.0.0', '::') names nothing; reach such a server by a name in `allowedHosts`.
   */
  bind?: string
  /** Names answered with any port, besides SNAPTRAIN_ALLOWED_HOSTS (read when the check is made). */
  allowedHosts?: readonly string[]
}

/** `bind` as a Host header names it: lower case, an IPv6 address in brackets; undefined for a wildcard. */
function boundName(bind: string | undefined): string | undefined {
  const name = bind?.trim().toLowerCase()
  if (!name || name === '0.0.0.0' || name === '::' || name === '[::]') return undefined
  return name.includes(':') && !name.startsWith('[') ? `[${name}]` : name
}

/**
 * Whether a request's Host header names this server: a loopback name or `bind` with `port` (or
 * no port when that is 80), or one of `extra` (any port). A missing or malformed Host is refused.
 */
export function hostAllowed(
  host: string | undefined,
  port: number | undefined,
  extra: readonly string[] = configuredHosts(),
  bind?: string,
): boolean {
  if (!host) return false
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(host.trim())
  if (!m) return false
  const name = m[1]!.toLowerCase()
  if (extra.some(h => h.toLowerCase() === name)) return true
  const given = m[2] === undefined ? 80 : Number(m[2])
  return (LOOPBACK.has(name) || name === boundName(bind)) && given === port
}

/**
 * The Host check of one server: a function that answers 403 with a short body when the request's
 * Host is not this server's (hostAllowed, with the port the connection came in on) and returns
 * whether it did, so the caller stops there. Every server snaptrain starts makes its check here.
 */
export function hostGuard(names: HostNames = {}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const extra = [...configuredHosts(), ...(names.allowedHosts ?? []).map(h => h.trim().toLowerCase())]
  return (req, res) => {
    if (hostAllowed(req.headers.host, req.socket.localPort, extra, names.bind)) return false
    const body =
      'forbidden host: this server answers only its own names with its port (SNAPTRAIN_ALLOWED_HOSTS adds more)\n'
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
    res.end(body)
    return true
  }
}

/** A connect-style middleware: `(req, res, next)`, `next(error)` passing an error on. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void

/** hostGuard as a middleware, for vite and the page server. */
export function hostCheckMiddleware(names: HostNames = {}): Middleware {
  const refused = hostGuard(names)
  return (req, res, next) => {
    if (!refused(req, res)) next()
  }
}

/** Vite plugin: the host check in front of the dev and the preview server (loopback names with their port). */
export function hostCheckPlugin(): Plugin {
  const guard = hostCheckMiddleware()
  return {
    name: 'snaptrain-host-check',
    configureServer: server => {
      server.middlewares.use(guard)
    },
    configurePreviewServer: server => {
      server.middlewares.use(guard)
    },
  }
}
