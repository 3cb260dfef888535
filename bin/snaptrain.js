#!/usr/bin/env node
// Thin launcher: the CLI is TypeScript in src/cli; tsx compiles it on the fly so a checkout
// needs no build step before `npx snaptrain …` works.
import { register } from 'tsx/esm/api'
register()
const { main } = await import('../src/cli/main.ts')
process.exitCode = await main(process.argv.slice(2))
