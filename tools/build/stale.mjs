/**
 * Whether the build in dist/ is older than the sources it is built from: bin/snaptrain.js asks
 * before running dist/cli in a checkout, and the test setup before the tests use dist/. Cheap
 * (one stat per source file, a few ms): the files the build reads, walked, against the build's
 * stamp (dist/cli/build.json): when the last build started, and which source files it saw then.
 * A file changed or added since then is newer than the stamp; a file removed or renamed is missing
 * from (or new to) the stamp's list. Folders' own times are not compared: creating a data folder
 * (`snaptrain bench` writes bench/tables) changes its parent's time but no source.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
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

/** Path of the build's stamp, relative to the checkout: see {@link writeStamp}. */
export const STAMP = join('dist', 'cli', 'build.json')

/**
 * The build's sources in `root`, as `[path relative to root, mtime in ms]`, sorted by path:
 * the listed files that exist and every file under the listed folders but the skipped ones.
 * @param {string} root
 * @returns {Array<[string, number]>}
 */
export function sourceFiles(root) {
  const found = []
  for (const path of FILES) {
    const mtime = mtimeOf(root, path)
    if (mtime !== undefined) found.push([path, mtime])
  }
  for (const dir of FOLDERS) walk(root, dir, found)
  return found.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

/**
 * Writes the stamp of a build that started at `startedAt` (ms since epoch) with `sources` (from
 * {@link sourceFiles}, taken when it started) into `file`: `{ startedAt, sources, ...extra }`.
 * @param {string} file
 * @param {number} startedAt
 * @param {Array<[string, number]>} sources
 * @param {Record<string, unknown>} [extra]
 */
export function writeStamp(file, startedAt, sources, extra = {}) {
  const stamp = { startedAt, sources: sources.map(([path]) => path), ...extra }
  writeFileSync(file, `${JSON.stringify(stamp, null, 2)}\n`)
}

/**
 * Undefined when the build in `root`/dist is current; else why not: no build, or the first source
 * file (relative to `root`) changed, added, removed or renamed since the last build started.
 * @param {string} root
 * @returns {string | undefined}
 */
export function staleBuild(root) {
  let stamp
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'))
  } catch {
    return `no build in ${join(root, 'dist')}`
  }
  const { startedAt, sources } = stamp
  if (typeof startedAt !== 'number' || !Array.isArray(sources))
    return `the build in dist/ has no list of its sources (${STAMP}; made by an older build)`
  const now = sourceFiles(root)
  const newer = now.find(([, mtime]) => mtime > startedAt)
  if (newer) return `the build in dist/ is older than ${newer[0]}`
  const built = new Set(sources)
  const added = now.find(([path]) => !built.has(path))
  if (added) return `the build in dist/ is older than ${added[0]} (added since)`
  const present = new Set(now.map(([path]) => path))
  const removed = sources.find(path => !present.has(path))
  if (removed) return `the build in dist/ is older than the removal of ${removed}`
  return undefined
}

/** The mtime of `root`/`path` in ms; undefined when it does not exist. */
function mtimeOf(root, path) {
  try {
    return statSync(join(root, path)).mtimeMs
  } catch {
    return undefined
  }
}

/** Adds every file under `root`/`dir` but the skipped names to `found`. */
function walk(root, dir, found) {
  let entries
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true })
  } catch {
    return
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    if (SKIP.has(path) || SKIP.has(e.name)) continue
    if (e.isDirectory()) walk(root, path, found)
    else {
      // Removed between the listing and the stat: it is not a source any more.
      const mtime = mtimeOf(root, path)
      if (mtime !== undefined) found.push([path, mtime])
    }
  }
}
