/**
 * The bench page's build (bench.html → dist/bench, by `npm run build`): apart from the app so the
 * app ships no bench code, TF.js or parquet-wasm; `snaptrain bench` serves it with the page server.
 */
import { defineConfig } from 'vite'

export default defineConfig({
  worker: { format: 'es' },
  build: {
    outDir: 'dist/bench',
    emptyOutDir: true,
    copyPublicDir: false,
    rollupOptions: { input: 'bench.html' },
  },
})
