import { defineConfig } from 'vite'

// COOP/COEP make the page cross-origin isolated (SharedArrayBuffer for allreduce, precise timers).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
}

export default defineConfig({
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation },
  worker: { format: 'es' },
})
