import { cpSync, existsSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { defineConfig, type Plugin } from 'vite'
import { tablesListingPlugin } from './src/serve/vite-tables-plugin.ts'
import { configuredHosts, hostCheckPlugin } from './src/serve/host-check.ts'
import { governedProxyPlugin } from './src/serve/sharing-proxy.ts'
import { PAGE_HEADERS } from './src/serve/page-server.ts'

/**
 * The build copies public/ but its tables (30 MB of sample tables: the page server and
 * `snaptrain serve` serve tables from their own folders, the static demo brings small ones).
 */
function publicWithoutTables(): Plugin {
  let publicDir = ''
  let outDir = ''
  return {
    name: 'snaptrain-public-without-tables',
    apply: 'build',
    configResolved(config) {
      publicDir = config.publicDir
      outDir = resolve(config.root, config.build.outDir)
    },
    writeBundle() {
      // A fresh clone has no public/ (it holds only the generated, git-ignored sample tables).
      if (!existsSync(publicDir)) return
      for (const name of readdirSync(publicDir)) {
        if (name !== 'tables') cpSync(join(publicDir, name), join(outDir, name), { recursive: true })
      }
    },
  }
}

export default defineConfig({
  // GET /?list-type=2&prefix=tables/… answers S3 ListObjectsV2 for public/ (table discovery).
  // The host check (src/serve/host-check.ts) answers 403 to any Host but loopback with our port and
  // SNAPTRAIN_ALLOWED_HOSTS: a page elsewhere cannot rebind its own domain to this server.
  plugins: [hostCheckPlugin(), governedProxyPlugin(), tablesListingPlugin(), publicWithoutTables()],
  // Loopback only; `npx vite --host <addr>` (or `npm start -- --host <addr>`) binds elsewhere, explicitly.
  // allowedHosts: vite's own check (also of the HMR websocket) must let the configured names through.
  server: { headers: { ...PAGE_HEADERS }, host: '127.0.0.1', allowedHosts: configuredHosts() },
  preview: { headers: { ...PAGE_HEADERS }, host: '127.0.0.1', allowedHosts: configuredHosts() },
  // Relative asset paths: the built app (and the static demo) work from any folder of a host, a
  // project site's subfolder too; the dev server treats './' as '/'.
  base: './',
  worker: { format: 'es' },
  // `npm run build` (tools/build/build.mjs) builds index.html into dist/app, which the CLI's page
  // server (src/serve/page-server.ts) serves; bench.html, the bench page (bench/page.ts), is built
  // apart (vite.bench.config.ts), so no bench code or TF.js is in the built app (README, Architecture).
  build: { outDir: 'dist/app', emptyOutDir: true, copyPublicDir: false },
  // Pre-bundled at start: discovered later (st-train-curve), vite would reload a running page.
  optimizeDeps: { include: ['uplot'] },
})
