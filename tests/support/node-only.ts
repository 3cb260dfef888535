/**
 * setupFile of the `unit` and `integration` projects: the Node tiers start no process. Every
 * child_process entry point (and so Playwright's Chromium launch, which spawns through it) throws
 * naming the test file, so a misplaced test fails at its first spawn instead of slowing
 * `npm run test:fast`. The static twin is tests/unit/test-tiers.test.ts.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { expect } from 'vitest'

/** The child_process functions that start a process. */
export const SPAWNING = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const

/** The error a unit test gets when it starts a process. */
export function nodeOnlyError(testPath: string | undefined, call: string, command: unknown): Error {
  const tier = testPath?.includes('/tests/integration/') ? 'integration' : 'unit'
  return new Error(
    `${testPath ?? 'a unit test'}: child_process.${call}(${JSON.stringify(String(command))}) in the ${tier} tier, ` +
      'which is Node only: move the file to tests/e2e (CLI, Chromium, other processes) or tests/peer (Python)',
  )
}

// The builtin's exports object (what CommonJS callers like Playwright hold); synced into ESM below.
const table = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>
for (const name of SPAWNING) {
  table[name] = (command: unknown) => {
    throw nodeOnlyError(expect.getState().testPath, name, command)
  }
}
syncBuiltinESMExports()
