/**
 * The epoch cache's spill store in Node (src/data/unit-cache.ts): one file per entry in a folder,
 * `$SNAPTRAIN_CACHE_DIR` or else `~/.cache/snaptrain/units`. Entries are written to a temporary
 * name and renamed, so a reader (another process too) never sees half a file; a read marks the
 * entry used (its mtime), which keeps the LRU order for the next process.
 */
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { setSpillStore, type SpillEntry, type SpillStore } from '../data/unit-cache.ts'

/** The cache folder: `env.SNAPTRAIN_CACHE_DIR`, else `~/.cache/snaptrain/units`. */
export function unitCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SNAPTRAIN_CACHE_DIR || join(homedir(), '.cache', 'snaptrain', 'units')
}

/** A spill store over `dir` (created on first write). */
export function folderStore(dir: string = unitCacheDir()): SpillStore {
  let made: Promise<unknown> | undefined
  const path = (name: string) => join(dir, name)
  return {
    label: `folder ${dir}`,
    async list() {
      let names: string[]
      try {
        names = await readdir(dir)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
        throw e
      }
      const out: SpillEntry[] = []
      for (const name of names) {
        if (name.endsWith('.tmp')) continue
        const s = await stat(path(name)).catch(() => undefined)
        if (s?.isFile()) out.push({ name, bytes: s.size, usedAt: s.mtimeMs })
      }
      return out
    },
    async read(name) {
      try {
        const bytes = await readFile(path(name))
        // A Buffer may start anywhere in Node's pool; the codec's views need an aligned start.
        return bytes.byteOffset % 8 === 0
          ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
          : new Uint8Array(bytes)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw e
      }
    },
    async write(name, bytes) {
      made ??= mkdir(dir, { recursive: true })
      await made
      const tmp = path(`${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`)
      await writeFile(tmp, bytes)
      await rename(tmp, path(name))
    },
    async touch(name) {
      const now = new Date()
      await utimes(path(name), now, now)
    },
    async remove(name) {
      await rm(path(name), { force: true })
    },
    async clear() {
      await rm(dir, { recursive: true, force: true })
      made = undefined
    },
  }
}

/** Installs the folder store as this Node process's spill store (where a Node process starts reading tables). */
export function installUnitCacheFolder(dir?: string): SpillStore {
  const store = folderStore(dir)
  setSpillStore(store)
  return store
}
