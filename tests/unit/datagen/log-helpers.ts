/**
 * Test helpers: a deliberately naive replay of the generated `_delta_log` (add/remove by
 * path), independent of src/table, so the generator is checked against the Delta format itself.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'

/** One commit's actions, parsed from its JSON lines. */
export type Action = Record<string, Record<string, unknown>>

/** Actions of each commit file, by version. */
export function readCommits(tableDir: string): Action[][] {
  const names = readdirSync(join(tableDir, '_delta_log'))
    .filter(n => /^\d{20}\.json$/.test(n))
    .sort()
  names.forEach((n, i) => {
    if (Number(n.slice(0, 20)) !== i) throw new Error(`gap in log at ${n}`)
  })
  return names.map(n =>
    readFileSync(join(tableDir, '_delta_log', n), 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as Action),
  )
}

/** Live add actions (by path) after replaying commits 0..version. */
export function liveFiles(commits: Action[][], version: number): Map<string, Record<string, unknown>> {
  const live = new Map<string, Record<string, unknown>>()
  for (const actions of commits.slice(0, version + 1)) {
    for (const a of actions) {
      if (a.remove) live.delete(a.remove.path as string)
      if (a.add) live.set(a.add.path as string, a.add)
    }
  }
  return live
}

/** Rows of a data file per its Parquet footer. */
export function parquetRows(tableDir: string, path: string): number {
  return Number(parquetMetadata(fileBuffer(tableDir, path)).num_rows)
}

/** The file as an ArrayBuffer (what hyparquet reads). */
export function fileBuffer(tableDir: string, path: string): ArrayBuffer {
  const b = readFileSync(join(tableDir, path))
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
}

/** All rows of a data file as objects. */
export async function fileRows(tableDir: string, path: string): Promise<Record<string, unknown>[]> {
  return (await parquetReadObjects({ file: fileBuffer(tableDir, path) })) as Record<string, unknown>[]
}

/** Every file under `dir` (relative path → bytes), for byte-for-byte comparisons. */
export function allFiles(dir: string, prefix = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name
    if (e.isDirectory()) for (const [k, v] of allFiles(dir, rel)) out.set(k, v)
    else out.set(rel, readFileSync(join(dir, rel)))
  }
  return out
}
