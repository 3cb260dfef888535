/**
 * The page server: serves the built app (dist/app) or the built bench page (dist/bench) on a
 * loopback port with plain node:http, for the CLI commands that run work in headless Chromium
 * (train, predict, sweep, bench), for `snaptrain serve` and for the e2e tests. In front of the
 * files run the same middlewares as on vite's dev server behind `npm start` (vite.config.ts): the
 * host check, the governed-table proxies and the table listing; every answer carries PAGE_HEADERS.
 */
import { existsSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CONTENT_SECURITY_POLICY } from './csp.ts'
import { hostCheckMiddleware, type Middleware } from './host-check.ts'
import { Refusal, resolveInside, send, sendFile } from './server.ts'
import { governedProxyMiddleware } from './sharing-proxy.ts'
import { listingMiddleware, type ListedFolder } from './vite-tables-plugin.ts'

/**
 * Repository root (where index.html and vite.config.ts live), or the installed package's folder:
 * this module sits two levels below it both as source (src/serve/) and bundled (dist/cli/).
 */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Whether this is a source checkout (src/ is there) rather than the installed package. */
export const IN_CHECKOUT = existsSync(join(PROJECT_ROOT, 'src'))

/** The sample tables of a checkout (`npm run data`); absent from the installed package. */
export const SAMPLE_TABLES = join(PROJECT_ROOT, 'public', 'tables')

/**
 * Headers of every page answer. COOP/COEP make the page cross-origin isolated (SharedArrayBuffer
 * for allreduce, precise timers); the CSP (csp.ts) keeps eval out and scripts to this origin. The
 * same policy is in index.html for static hosting; header and meta agree, so either alone gives
 * the same page.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
}

/** Options of startPageServer. */
export interface PageServerOptions {
  /** The built page: 'app' (dist/app, the default) or 'bench' (dist/bench, bench.html). */
  page?: 'app' | 'bench'
  /**
   * Folders the page's table discovery lists and the server serves under their keys (a key
   * 'tables/clicks/' serves the folder at /tables/clicks/). Default: the sample tables under
   * /tables/ when there are any (in a checkout), as on the dev server.
   */
  tables?: readonly ListedFolder[]
  /** Interface to bind; default '127.0.0.1'. Another name is answered by the host check too, with the port. */
  host?: string
  /** TCP port; default 0 (a free one). */
  port?: number
}

/** A running page server. */
export interface PageServer {
  /** The page's URL, ending in '/'. */
  url: string
  close(): Promise<void>
}

/** The built page's folder; throws naming the missing file and the build command. */
export function builtPage(page: 'app' | 'bench'): string {
  const dir = join(PROJECT_ROOT, 'dist', page)
  const entry = join(dir, page === 'app' ? 'index.html' : 'bench.html')
  if (!existsSync(entry))
    throw new Error(`${entry} not found: run 'npm run build' (the page server serves the built ${page})`)
  return dir
}

/** Starts the page server; resolves once it listens. */
export async function startPageServer(opts: PageServerOptions = {}): Promise<PageServer> {
  // Real paths: resolveInside compares each file's real path with its root.
  const dir = await realpath(builtPage(opts.page ?? 'app'))
  const given = opts.tables ?? (existsSync(SAMPLE_TABLES) ? [{ key: 'tables/', dir: SAMPLE_TABLES }] : [])
  const tables = await Promise.all(given.map(async t => ({ key: t.key, dir: await realpath(t.dir) })))
  const host = opts.host ?? '127.0.0.1'
  const chain: Middleware[] = [
    hostCheckMiddleware({ bind: host }),
    (_req, res, next) => {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value)
      next()
    },
    governedProxyMiddleware(),
    listingMiddleware(tables),
  ]
  const server = createServer((req, res) => {
    const step =
      (i: number) =>
      (error?: unknown): void => {
        if (error) return send(res, 500, String(error))
        if (i < chain.length) return chain[i]!(req, res, step(i + 1))
        serveFile(dir, tables, req, res).catch(e => send(res, e instanceof Refusal ? e.status : 500, String(e)))
      }
    step(0)()
  })
  await new Promise<void>((done, fail) => {
    server.once('error', fail)
    server.listen(opts.port ?? 0, host, () => done())
  })
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('page server did not bind a TCP port')
  const shown = host === '127.0.0.1' || host === '0.0.0.0' || host === '::' ? 'localhost' : host
  return {
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${addr.port}/`,
    close: () =>
      new Promise<void>(done => {
        server.close(() => done())
        // Keep-alive sockets (the browser's) would hold close() open until they time out.
        server.closeAllConnections()
      }),
  }
}

/** A file of the built page, or of a table folder under its key; 404 for anything else. */
async function serveFile(
  dir: string,
  tables: readonly ListedFolder[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET'
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD')
    throw new Refusal(405, `method ${method} not allowed`)
  }
  const raw = (req.url ?? '/').split('?')[0]!
  let path: string
  try {
    path = decodeURIComponent(raw)
  } catch {
    throw new Refusal(400, `malformed %-encoding in ${raw}`)
  }
  // The longest key whose folder the path is in; the rest of the raw path is looked up inside it.
  const table = tables
    .filter(t => t.key !== '' && path.startsWith(`/${t.key}`))
    .sort((a, b) => b.key.length - a.key.length)[0]
  const [root, rest] = table
    ? [table.dir, `/${raw.split('/').slice(table.key.split('/').length).join('/')}`]
    : [dir, raw === '/' ? '/index.html' : raw]
  const file = await resolveInside(root, rest)
  const st = await stat(file)
  if (!st.isFile()) throw new Refusal(404, `not found: ${raw}`)
  sendFile(file, st, req, res, method === 'HEAD')
}
