/**
 * The stale-build check (tools/build/stale.mjs) on a checkout of its own in a temp folder: a build
 * is stale when a source file changed, was added, removed or renamed since it started, and stays
 * current when data folders under the source folders come and go (`snaptrain bench` writes
 * bench/tables, `npm start` public/tables).
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

interface Stale {
  STAMP: string
  sourceFiles(root: string): Array<[string, number]>
  writeStamp(file: string, startedAt: number, sources: Array<[string, number]>, extra?: object): void
  staleBuild(root: string): string | undefined
}
const STALE_MJS = resolve(import.meta.dirname, '..', '..', '..', 'tools', 'build', 'stale.mjs')
const stale = (await import(pathToFileURL(STALE_MJS).href)) as Stale

/** Every source here is a minute old; the build "started" a second ago, after all of them. */
const OLD = (Date.now() - 60_000) / 1000
let root: string

function write(path: string, text = 'x'): void {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
  utimesSync(join(root, path), OLD, OLD)
}

/** Stamps a build that started a second ago over the sources there now. */
function build(): void {
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true })
  stale.writeStamp(join(root, stale.STAMP), Date.now() - 1000, stale.sourceFiles(root))
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'snaptrain-stale-'))
  for (const path of ['package.json', 'index.html', 'src/a.ts', 'src/cli/b.ts', 'bench/x.ts', 'tools/build/y.mjs'])
    write(path)
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('staleBuild', () => {
  it('says there is no build, then that a fresh one is current', () => {
    expect(stale.staleBuild(root)).toMatch(/^no build in /)
    build()
    expect(stale.staleBuild(root)).toBeUndefined()
  })

  it('lists the sources the build reads, skipping data folders', () => {
    write('bench/tables/t/part-0.parquet')
    write('public/tables/clicks/_delta_log/0.json')
    write('public/favicon.svg')
    expect(stale.sourceFiles(root).map(([path]) => path)).toEqual([
      'bench/x.ts',
      'index.html',
      'package.json',
      'public/favicon.svg',
      'src/a.ts',
      'src/cli/b.ts',
      'tools/build/y.mjs',
    ])
  })

  it('stays current when data folders are created and removed under source folders', () => {
    build()
    // New folders change their parents' times (bench/, public/): no source changed.
    mkdirSync(join(root, 'bench', 'tables', 'clicks'), { recursive: true })
    writeFileSync(join(root, 'bench', 'tables', 'clicks', 'part-0.parquet'), 'data')
    mkdirSync(join(root, 'bench', 'results'))
    mkdirSync(join(root, 'public', 'tables'), { recursive: true })
    mkdirSync(join(root, 'src', '__pycache__'))
    expect(stale.staleBuild(root)).toBeUndefined()
    rmSync(join(root, 'bench', 'tables'), { recursive: true })
    expect(stale.staleBuild(root)).toBeUndefined()
  })

  it('is stale when a source file changes', () => {
    build()
    writeFileSync(join(root, 'src', 'cli', 'b.ts'), 'y')
    expect(stale.staleBuild(root)).toBe('the build in dist/ is older than src/cli/b.ts')
  })

  it('is stale when a source file is removed', () => {
    build()
    rmSync(join(root, 'bench', 'x.ts'))
    expect(stale.staleBuild(root)).toBe('the build in dist/ is older than the removal of bench/x.ts')
  })

  it('is stale when a source file is renamed or added with an old time', () => {
    build()
    renameSync(join(root, 'src', 'a.ts'), join(root, 'src', 'c.ts'))
    expect(stale.staleBuild(root)).toBe('the build in dist/ is older than src/c.ts (added since)')
    build()
    write('tools/build/z.mjs')
    expect(stale.staleBuild(root)).toBe('the build in dist/ is older than tools/build/z.mjs (added since)')
  })

  it('is stale when the stamp has no list of sources (a build before the list)', () => {
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true })
    writeFileSync(join(root, stale.STAMP), JSON.stringify({ startedAt: Date.now() }))
    expect(stale.staleBuild(root)).toMatch(/has no list of its sources/)
  })
})
