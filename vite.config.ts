import { defineConfig } from 'vite'
import { tablesListingPlugin } from './src/serve/vite-tables-plugin.ts'
import { CONTENT_SECURITY_POLICY } from './src/serve/csp.ts'
import { configuredHosts, hostCheckPlugin } from './src/serve/host-check.ts'
import { governedProxyPlugin } from './src/serve/sharing-proxy.ts'

// COOP/COEP make the page cross-origin isolated (SharedArrayBuffer for allreduce, precise timers);
// the CSP (src/serve/csp.ts) keeps eval out and scripts to this origin. The same policy is in index.html
// for static hosting; header and meta agree, so either alone gives the same page.
const pageHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
}

export default defineConfig({
  // GET /?list-type=2&prefix=tables/… answers S3 ListObjectsV2 for public/ (table discovery).
  // The host check (src/serve/host-check.ts) answers 403 to any Host but loopback with our port and
  // SNAPTRAIN_ALLOWED_HOSTS: a page elsewhere cannot rebind its own domain to this server.
  plugins: [hostCheckPlugin(), governedProxyPlugin(), tablesListingPlugin()],
  // Loopback only; `npx vite --host <addr>` (or `npm start -- --host <addr>`) binds elsewhere, explicitly.
  // allowedHosts: vite's own check (also of the HMR websocket) must let the configured names through.
  server: { headers: pageHeaders, host: '127.0.0.1', allowedHosts: configuredHosts() },
  preview: { headers: pageHeaders, host: '127.0.0.1', allowedHosts: configuredHosts() },
  worker: { format: 'es' },
  // `vite build` has one input, index.html (vite's default): bench.html, the bench page (bench/page.ts),
  // is served by the dev server only, so no bench code or TF.js is in the built app (README, Architecture).
  // Pre-bundled at start: discovered later (st-train-curve), vite would reload a running page.
  optimizeDeps: { include: ['uplot'] },
})
