#!/usr/bin/env node
// Launcher of the built CLI (dist/cli, made by `npm run build`): an installed package runs it as
// is. In a source checkout (src/ beside bin/) a missing build, or one older than the sources, is
// built first (tools/build/build.mjs, its lines on stderr so stdout stays the command's): every
// command works from a fresh clone's `npm install` on, and none runs stale code.
// SNAPTRAIN_BUILD_CHECK=0 skips that (the tests do: they build once when they start, and sources
// edited meanwhile must not rebuild dist/ under the other tests).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** A build takes seconds; one that has not ended in this long is stuck, not slow. */
const BUILD_TIMEOUT_MS = 10 * 60_000

const root = fileURLToPath(new URL('../', import.meta.url))
if (process.env.SNAPTRAIN_BUILD_CHECK !== '0' && existsSync(new URL('../src/', import.meta.url))) {
  const { staleBuild } = await import('../tools/build/stale.mjs')
  const why = staleBuild(root)
  if (why) {
    process.stderr.write(`snaptrain: ${why}; building it (npm run build)\n`)
    const build = fileURLToPath(new URL('../tools/build/build.mjs', import.meta.url))
    const r = spawnSync(process.execPath, [build], { cwd: root, stdio: ['ignore', 2, 2], timeout: BUILD_TIMEOUT_MS })
    if (r.status !== 0) {
      const how = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`
      process.stderr.write(`snaptrain: the build failed (${how}); fix the error above and run 'npm run build'\n`)
      process.exit(1)
    }
  }
}
const { main } = await import('../dist/cli/main.js')
process.exitCode = await main(process.argv.slice(2))
