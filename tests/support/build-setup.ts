/**
 * vitest globalSetup: the page server and bin/snaptrain.js run the build in dist/, so a run whose
 * sources changed since the last `npm run build` builds once first (tools/build/build.mjs
 * --if-stale: a no-op, a few ms, when the build is current).
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'

export default function setup(): void {
  execFileSync(process.execPath, ['tools/build/build.mjs', '--if-stale'], {
    cwd: resolve(import.meta.dirname, '..', '..'),
    stdio: 'inherit',
  })
}
