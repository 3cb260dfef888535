/**
 * The Host check of every server snaptrain starts (the table server, the page server, the page's
 * vite dev and preview servers). A web page the user has open could point its own domain at 127.0.0.1 (DNS
 * rebinding) and read a loopback server as same-origin for as long as it runs; its requests then
 * carry that domain in Host. Answering only our own names — loopback with our port, plus names
 * the user lists in SNAPTRAIN_ALLOWED_HOSTS — closes that door.
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

/**
 * Whether a request's Host header names this server: a loopback name with `port` (or no port
 * when that is 80), or one of `extra` (any port). A missing or malformed Host is refused.
 */
export function hostAllowed(
  host: string | undefined,
  port: number | undefined,
  extra: readonly string[] = configuredHosts(),
): boolean {
  if (!host) return false
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(host.trim())
  if (!m) return false
  const name = m[1]!.toLowerCase()
  if (extra.includes(name)) return true
  const given = m[2] === undefined ? 80 : Number(m[2])
  return LOOPBACK.has(name) && given === port
}

/**
 * Answers 403 with a short body when the request's Host is not this server's (hostAllowed, with
 * the port the connection came in on); returns whether it did, so the caller stops there.
 */
export function refuseForeignHost(req: IncomingMessage, res: ServerResponse, extra?: readonly string[]): boolean {
  if (hostAllowed(req.headers.host, req.socket.localPort, extra)) return false
  const body = 'forbidden host: this server answers only its own loopback names (SNAPTRAIN_ALLOWED_HOSTS adds more)\n'
  res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
  return true
}

/** A connect-style middleware: `(req, res, next)`, `next(error)` passing an error on. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void

/** refuseForeignHost as a middleware (SNAPTRAIN_ALLOWED_HOSTS plus `extra`), for vite and the page server. */
export function hostCheckMiddleware(extra: readonly string[] = configuredHosts()): Middleware {
  return (req, res, next) => {
    if (!refuseForeignHost(req, res, extra)) next()
  }
}

/** Vite plugin: refuseForeignHost in front of the dev and the preview server. */
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
