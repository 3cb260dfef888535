import { defineConfig } from 'vite'
import { tablesListingPlugin } from './src/cli/vite-tables-plugin.ts'

// COOP/COEP make the page cross-origin isolated (SharedArrayBuffer for allreduce, precise timers).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
}

export default defineConfig({
  // GET /?list-type=2&prefix=tables/… answers S3 ListObjectsV2 for public/ (table discovery).
  plugins: [tablesListingPlugin()],
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation },
  worker: { format: 'es' },
  // Pre-bundled at start: discovered later (st-train-curve), vite would reload a running page.
  optimizeDeps: { include: ['uplot'] },
})
