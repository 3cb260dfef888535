#!/usr/bin/env node
// Launcher of the built CLI (dist/cli, made by `npm run build`): an installed package runs it as
// is. In a source checkout (src/ beside bin/) a build older than the sources is refused with the
// command that rebuilds it, rather than run stale; SNAPTRAIN_BUILD_CHECK=0 skips that check (the
// tests do: they build once when they start, and sources edited meanwhile must not fail them).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url)
if (process.env.SNAPTRAIN_BUILD_CHECK !== '0' && existsSync(new URL('src/', root))) {
  const { staleBuild } = await import('../tools/build/stale.mjs')
  const why = staleBuild(fileURLToPath(root))
  if (why) {
    process.stderr.write(`snaptrain: ${why}; run 'npm run build'\n`)
    process.exit(1)
  }
}
const { main } = await import('../dist/cli/main.js')
process.exitCode = await main(process.argv.slice(2))
