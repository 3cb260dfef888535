/**
 * Whether the build in dist/ is older than the sources it is built from: bin/snaptrain.js asks
 * before running dist/cli in a checkout, and the test setup before the tests use dist/. Cheap
 * (one stat per source file, a few ms): the folders the build reads, walked, against the time the
 * last build started (dist/cli/build.json).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** What the build reads: these files, and every file under these folders but the skipped names. */
const FILES = [
  'index.html',
  'bench.html',
  'vite.config.ts',
  'vite.bench.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
]
const FOLDERS = ['src', 'shaders', 'bench', 'tools', 'public']
/** Data, results and caches under those folders (not inputs of the build). */
const SKIP = new Set(['bench/tables', 'bench/results', 'bench/data', 'public/tables', '__pycache__', 'node_modules'])

/** Path of the build's stamp: `{ startedAt }`, ms since epoch, written when a build completes. */
export const STAMP = join('dist', 'cli', 'build.json')

/**
 * Undefined when the build in `root`/dist is current; else why not (no build, or the first
 * source file changed since the last build started, named relative to `root`).
 */
export function staleBuild(root) {
  let startedAt
  try {
    startedAt = JSON.parse(readFileSync(join(root, STAMP), 'utf8')).startedAt
  } catch {
    return `no build in ${join(root, 'dist')}`
  }
  const newer = path => {
    try {
      return statSync(join(root, path)).mtimeMs > startedAt
    } catch {
      return false
    }
  }
  const found = FILES.find(newer) ?? FOLDERS.map(f => newerIn(root, f, startedAt)).find(Boolean)
  return found === undefined ? undefined : `the build in dist/ is older than ${found}`
}

/** The first file under `dir` changed after `time` (a folder's own mtime counts: a file removed). */
function newerIn(root, dir, time) {
  let entries
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true })
    if (statSync(join(root, dir)).mtimeMs > time) return dir
  } catch {
    return undefined
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    if (SKIP.has(path) || SKIP.has(e.name)) continue
    if (e.isDirectory()) {
      const found = newerIn(root, path, time)
      if (found) return found
    } else if (statSync(join(root, path)).mtimeMs > time) return path
  }
  return undefined
}
