/**
 * Serves the app page (index.html + src/ through vite) on a loopback port, for the CLI commands
 * that run work in headless Chromium (bench, later train/sweep) and for the e2e tests.
 */
import { fileURLToPath } from 'node:url'
import { dirname, resolve } from 'node:path'

/** Repository root (where index.html and vite.config.ts live). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** A running page server. */
export interface PageServer {
  url: string
  close(): Promise<void>
}

/** Starts vite's dev server on 127.0.0.1 with a free port; `url` ends with '/'. */
export async function startPageServer(
  opts: { port?: number; logLevel?: 'info' | 'silent' | 'error'; hmr?: boolean } = {},
): Promise<PageServer> {
  const { createServer } = await import('vite')
  const server = await createServer({
    root: PROJECT_ROOT,
    configFile: resolve(PROJECT_ROOT, 'vite.config.ts'),
    logLevel: opts.logLevel ?? 'error',
    // hmr: false keeps a long run (bench) from being reloaded when a source file changes meanwhile.
    server: {
      host: '127.0.0.1',
      port: opts.port ?? 0,
      strictPort: false,
      open: false,
      ...(opts.hmr === false ? { hmr: false } : {}),
    },
  })
  await server.listen()
  const addr = server.httpServer?.address()
  if (!addr || typeof addr === 'string') throw new Error('page server did not bind a TCP port')
  return { url: `http://localhost:${addr.port}/`, close: () => server.close() }
}
