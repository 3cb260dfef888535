/**
 * Layout rule (DESIGN.md "Layout", STYLE.md §2/§5/§6): every shaders/<path>/<kernel>.wgsl has
 * src/kernels/<path>/<kernel>.ts (spec, the only importer of the WGSL), <kernel>.ref.ts and
 * tests/kernels/<path>/<kernel>.test.ts, and an entry point named after the kernel. Snippets in
 * shaders/lib are loaded only by src/kernels/wgsl.ts and used only by the kernels that declare them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT } from '../../src/serve/page-server.ts'

/** Paths (relative to `root`) of files under `dir` ending in one of `exts`. */
function walk(root: string, dir: string, exts: string[]): string[] {
  const abs = join(root, dir)
  if (!existsSync(abs)) return []
  return readdirSync(abs).flatMap(name => {
    const rel = join(dir, name)
    if (statSync(join(root, rel)).isDirectory()) return walk(root, rel, exts)
    return exts.some(e => name.endsWith(e)) ? [rel] : []
  })
}

/** The files a kernel at shaders/<rel>.wgsl must have, relative to the repository root. */
function requiredCompanions(wgsl: string): string[] {
  const rel = relative('shaders', wgsl).replace(/\.wgsl$/, '')
  return [`src/kernels/${rel}.ts`, `src/kernels/${rel}.ref.ts`, `tests/kernels/${rel}.test.ts`]
}

// shaders/lib holds snippets joined to kernels by src/kernels/wgsl.ts, not kernels of their own.
const shaders = walk(PROJECT_ROOT, 'shaders', ['.wgsl']).filter(f => !f.startsWith('shaders/lib/'))

describe('kernel layout', () => {
  test('companions are derived from the shader path', () => {
    expect(requiredCompanions('shaders/gbdt/histogram_build.wgsl')).toEqual([
      'src/kernels/gbdt/histogram_build.ts',
      'src/kernels/gbdt/histogram_build.ref.ts',
      'tests/kernels/gbdt/histogram_build.test.ts',
    ])
  })

  test('there are shaders to check', () => {
    expect(shaders.length).toBeGreaterThan(0)
  })

  test.each(shaders)('%s has spec, reference and parity test', wgsl => {
    const missing = requiredCompanions(wgsl).filter(p => !existsSync(join(PROJECT_ROOT, p)))
    expect(missing, `${wgsl} lacks ${missing.join(', ')}`).toEqual([])
  })

  test.each(shaders)('%s is imported by its spec and has an entry point named after it', wgsl => {
    const name = wgsl.replace(/^.*\//, '').replace(/\.wgsl$/, '')
    const spec = readFileSync(join(PROJECT_ROOT, requiredCompanions(wgsl)[0]), 'utf8')
    expect(spec, `${requiredCompanions(wgsl)[0]} must import ${wgsl}?raw`).toContain(`${wgsl}?raw'`)
    expect(readFileSync(join(PROJECT_ROOT, wgsl), 'utf8')).toMatch(new RegExp(`@compute[^]*?fn ${name}\\s*\\(`))
  })

  test('only src/kernels/wgsl.ts loads the snippets', () => {
    const snippets = walk(PROJECT_ROOT, 'shaders/lib', ['.wgsl'])
    expect(snippets.length).toBeGreaterThan(0)
    const loaders = [...walk(PROJECT_ROOT, 'src', ['.ts']), ...walk(PROJECT_ROOT, 'bench', ['.ts'])].filter(f =>
      /['"][^'"]*shaders\/lib\/[\w.]+\.wgsl(\?raw)?['"]/.test(readFileSync(join(PROJECT_ROOT, f), 'utf8')),
    )
    expect(loaders).toEqual(['src/kernels/wgsl.ts'])
  })

  test('only src/kernels/** imports WGSL', () => {
    const offenders = walk(PROJECT_ROOT, 'src', ['.ts']).filter(
      f => !f.startsWith('src/kernels/') && /\.wgsl(\?raw)?['"]/.test(readFileSync(join(PROJECT_ROOT, f), 'utf8')),
    )
    expect(offenders).toEqual([])
  })
})
