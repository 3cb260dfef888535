/**
 * Finds a Chromium/Chrome executable and the flags that make WebGPU work headless.
 * Order (DESIGN.md, headless contract): SNAPTRAIN_CHROME, Playwright's cache, then PATH.
 */
import { existsSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, delimiter } from 'node:path'

/** Chromium switches for WebGPU on Linux, including the software adapter (SwiftShader). */
export const WEBGPU_ARGS: readonly string[] = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-unsafe-swiftshader',
  '--use-angle=swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
]

const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome']

/** Path of a browser executable, or undefined when none is found. */
export function findChrome(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.SNAPTRAIN_CHROME) return env.SNAPTRAIN_CHROME
  return fromPlaywrightCache(env) ?? fromPath(env)
}

function fromPlaywrightCache(env: NodeJS.ProcessEnv): string | undefined {
  const root = env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), '.cache', 'ms-playwright')
  if (!existsSync(root)) return undefined
  const dirs = readdirSync(root)
    .filter(d => d.startsWith('chromium-'))
    .sort()
    .reverse()
  for (const d of dirs) {
    for (const rel of ['chrome-linux64/chrome', 'chrome-linux/chrome']) {
      const p = join(root, d, rel)
      if (existsSync(p)) return p
    }
  }
  return undefined
}

function fromPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of PATH_NAMES) {
      const p = join(dir, name)
      if (dir && existsSync(p)) return p
    }
  }
  return undefined
}

/** Like findChrome but throws a message that says how to get a browser. */
export function requireChrome(env: NodeJS.ProcessEnv = process.env): string {
  const p = findChrome(env)
  if (!p) {
    throw new Error(
      'no Chromium/Chrome found: set SNAPTRAIN_CHROME to its executable, or install one ' +
        '(Debian: apt-get install chromium)',
    )
  }
  return p
}
