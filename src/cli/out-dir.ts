/**
 * Output files a reader never sees half-written. A single file goes to a temp name beside its
 * destination and is renamed over it (rename is atomic within a folder). A run's set of files
 * (model, manifest.json, metrics.csv) is staged the same way as a group: into a sibling temp
 * folder renamed into place when the output folder is new, else as temp names inside it, renamed
 * only once every file is written. On failure the temps are removed, so `--out` holds either the
 * previous contents or the complete new run, never a partial one. A name may hold sub-folders
 * (`continue/continue.json`): each part a plain name, the folders created in the group.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Contents of one output file. */
export type OutputData = string | Uint8Array

/** Marker in every temp name (tests look for leftovers with it). */
export const TEMP_MARK = '.tmp-'

let counter = 0

/** A temp name beside `path`, unique within this process. */
export function tempPath(path: string): string {
  return `${path}${TEMP_MARK}${process.pid}-${counter++}`
}

/** Writes `data` to a temp file beside `path`, then renames it over `path`; removes the temp on failure. */
export function atomicWrite(path: string, data: OutputData): void {
  const tmp = tempPath(path)
  try {
    writeFileSync(tmp, data)
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}

/**
 * Writes `files` (name → contents) into folder `dir` as one group (see the module comment).
 * Parent folders are created. Returns the written paths in `files` order.
 */
export function writeOutputs(dir: string, files: Record<string, OutputData>): string[] {
  const names = Object.keys(files)
  for (const n of names)
    if (
      n.split('/').some(part => !part || part === '.' || part === '..' || part.includes('\\')) ||
      n.includes(TEMP_MARK)
    )
      throw new RangeError(`output file name '${n}': must be plain names joined by /`)
  if (!existsSync(dir)) {
    writeFreshDir(dir, files)
    return names.map(n => join(dir, n))
  }
  const temps = names.map(n => tempPath(join(dir, n)))
  const made: string[] = [] // sub-folders this group created: removed again on failure
  try {
    names.forEach((n, i) => {
      const first = mkdirSync(dirname(temps[i]), { recursive: true })
      if (first) made.push(first)
      writeFileSync(temps[i], files[n])
    })
  } catch (e) {
    for (const t of temps) rmSync(t, { force: true })
    for (const d of made.reverse()) rmSync(d, { recursive: true, force: true })
    throw e
  }
  names.forEach((n, i) => renameSync(temps[i], join(dir, n)))
  return names.map(n => join(dir, n))
}

/** A new folder: every file goes into a sibling temp folder, which is then renamed to `dir`. */
function writeFreshDir(dir: string, files: Record<string, OutputData>): void {
  mkdirSync(dirname(dir), { recursive: true })
  const stage = tempPath(dir)
  try {
    mkdirSync(stage)
    for (const [n, data] of Object.entries(files)) {
      mkdirSync(dirname(join(stage, n)), { recursive: true })
      writeFileSync(join(stage, n), data)
    }
    renameSync(stage, dir)
  } catch (e) {
    rmSync(stage, { recursive: true, force: true })
    throw e
  }
}

/** Names in `dir` (its sub-folders too) and of siblings of `dir` that are leftover temps of this module: for tests. */
export function leftoverTemps(dir: string): string[] {
  const inside = existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(n => n.includes(TEMP_MARK))
    : []
  const base = dir.split('/').pop()!
  const parent = dirname(dir)
  const beside = existsSync(parent) ? readdirSync(parent).filter(n => n.startsWith(base + TEMP_MARK)) : []
  return [...inside, ...beside]
}

/** ISO date made safe for file names: 2026-11-30T03-20-00Z (default run folders, bench result files). */
export function fileStamp(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')
}
