/**
 * What product code may reach at run time. Product code is what the published package ships and
 * runs: src/**, bin/** and vite.config.ts (the page server's config). Every bare package it imports
 * (static imports, re-exports, side-effect imports and dynamic `import()`; `import type` is erased)
 * must be a runtime dependency in package.json, never a devDependency. And src/ never imports the
 * benchmarks (bench/) or the sample-table generator (tools/): the only edges are the CLI's lazy
 * loads of its checkout-only commands (src/cli/main.ts: `bench`, `quality`, `data`), which the
 * published package, whose `files` leave both folders out, answers with an error naming the folder.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkoutOnly, main } from '../../src/cli/main.ts'
import type { CliIo } from '../../src/cli/io.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  files?: string[]
}

/** The only imports from src/ into bench/ or tools/: lazy, from the CLI's command table. */
const CHECKOUT_COMMANDS = [
  { from: 'src/cli/main.ts', to: 'bench/cli.ts' },
  { from: 'src/cli/main.ts', to: 'bench/quality.ts' },
  { from: 'src/cli/main.ts', to: 'tools/datagen/cli.ts' },
]

/** One import of a file: its specifier, whether it is `import()`, and whether only types are imported. */
interface Import {
  spec: string
  dynamic: boolean
  typeOnly: boolean
}

/** Source files (.ts, .js) under `dir`, as paths relative to ROOT. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap(name => {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path)
    return /\.(ts|js|mjs)$/.test(name) ? [path] : []
  })
}

/** `text` without comments (block comments and `//` comments that start a line or follow a blank). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')
}

/** Every import of `text`. */
function importsOf(text: string): Import[] {
  const code = stripComments(text)
  const out: Import[] = []
  for (const m of code.matchAll(/^\s*(import|export)(\s+type\b)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm)) {
    out.push({ spec: m[3], dynamic: false, typeOnly: m[2] !== undefined })
  }
  for (const m of code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm))
    out.push({ spec: m[1], dynamic: false, typeOnly: false })
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    out.push({ spec: m[1], dynamic: true, typeOnly: false })
  return out
}

/** The package a bare specifier names (`lit/decorators.js` → lit, `@a/b/c` → @a/b); undefined for relative and node: ones. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return undefined
  const parts = spec.split('?')[0].split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** Runtime packages imported by `files` that are not runtime dependencies, as "file → package". */
function undeclaredPackages(files: Map<string, string>, deps: Record<string, string>): string[] {
  return [...files].flatMap(([file, text]) =>
    importsOf(text)
      .filter(i => !i.typeOnly)
      .map(i => packageOf(i.spec))
      .filter((p): p is string => p !== undefined && !(p in deps))
      .map(p => `${file} → ${p}`),
  )
}

/** Imports (type imports included) from src/ into bench/ or tools/, as "file → target (static|dynamic)". */
function toolEdges(files: Map<string, string>): Array<{ from: string; to: string; dynamic: boolean }> {
  return [...files]
    .filter(([file]) => file.startsWith('src/'))
    .flatMap(([file, text]) =>
      importsOf(text)
        .filter(i => i.spec.startsWith('.'))
        .map(i => ({
          from: file,
          to: relative(ROOT, resolve(ROOT, dirname(file), i.spec.split('?')[0])),
          dynamic: i.dynamic,
        }))
        .filter(e => /^(bench|tools)\//.test(e.to)),
    )
}

/** Product sources and their text. */
function productFiles(): Map<string, string> {
  const files = [...sources('src'), ...sources('bin'), 'vite.config.ts']
  return new Map(files.map(f => [f, readFileSync(join(ROOT, f), 'utf8')]))
}

describe('product code and its dependencies', () => {
  const files = productFiles()

  it('reads every product module and finds their imports', () => {
    expect(files.size).toBeGreaterThan(200)
    const seen = new Set([...files.values()].flatMap(t => importsOf(t).map(i => packageOf(i.spec))))
    for (const p of ['hyparquet', 'lit', 'comlink', 'vite', 'playwright-core', 'tsx', 'uplot', 'hyparquet-compressors'])
      expect(seen, p).toContain(p)
  })

  it('imports only runtime dependencies (devDependencies never)', () => {
    expect(undeclaredPackages(files, pkg.dependencies ?? {})).toEqual([])
    const dev = new Set(Object.keys(pkg.devDependencies ?? {}))
    const offending = [...files].flatMap(([f, t]) =>
      importsOf(t)
        .filter(i => !i.typeOnly)
        .map(i => packageOf(i.spec))
        .filter((p): p is string => p !== undefined && dev.has(p))
        .map(p => `${f} → ${p}`),
    )
    expect(offending).toEqual([])
  })

  it('keeps bench/ and tools/ out of src/, but for the lazy checkout-only commands', () => {
    const edges = toolEdges(files)
    expect(edges.filter(e => !e.dynamic)).toEqual([])
    expect(edges.map(({ from, to }) => ({ from, to })).sort((a, b) => a.to.localeCompare(b.to))).toEqual(
      CHECKOUT_COMMANDS,
    )
  })

  it('ships neither bench/ nor tools/ in the package, and everything product code imports', () => {
    const shipped = pkg.files ?? []
    expect(shipped.length).toBeGreaterThan(0)
    const inPackage = (path: string): boolean =>
      path === 'package.json' || shipped.some(f => (f.endsWith('/') ? path.startsWith(f) : path === f))
    for (const dir of ['bench/', 'tools/', 'tests/']) expect(inPackage(`${dir}x.ts`), dir).toBe(false)
    for (const f of ['bin/snaptrain.js', 'src/cli/main.ts', 'index.html', 'vite.config.ts'])
      expect(inPackage(f), f).toBe(true)
    const allowed = new Set(CHECKOUT_COMMANDS.map(c => `${c.from} → ${c.to}`))
    const missing = [...files].flatMap(([file, text]) =>
      importsOf(text)
        .filter(i => i.spec.startsWith('.'))
        .map(i => relative(ROOT, resolve(ROOT, dirname(file), i.spec.split('?')[0])))
        .filter(to => !inPackage(to) && !allowed.has(`${file} → ${to}`))
        .map(to => `${file} → ${to}`),
    )
    expect(missing).toEqual([])
  })

  it('the checks can fail', () => {
    const fake = new Map([
      [
        'src/x.ts',
        "import { y } from '../bench/index.ts'\nimport type { Z } from '../tools/datagen/types.ts'\nconst tf = await import('@tensorflow/tfjs-core')\nimport 'hyparquet-writer'\n// import('left-pad') in a comment\nimport type { Q } from 'vitest'",
      ],
    ])
    expect(undeclaredPackages(fake, pkg.dependencies ?? {}).sort()).toEqual([
      'src/x.ts → @tensorflow/tfjs-core',
      'src/x.ts → hyparquet-writer',
    ])
    expect(toolEdges(fake)).toEqual([
      { from: 'src/x.ts', to: 'bench/index.ts', dynamic: false },
      { from: 'src/x.ts', to: 'tools/datagen/types.ts', dynamic: false },
    ])
  })
})

describe('checkout-only commands', () => {
  const capture = (): CliIo & { outs: string[]; errs: string[] } => {
    const outs: string[] = [],
      errs: string[] = []
    return {
      outs,
      errs,
      out: l => {
        outs.push(l)
      },
      err: l => {
        errs.push(l)
      },
    }
  }

  it('load from bench/ and tools/ in a checkout', async () => {
    for (const [cmd, usage] of [
      ['bench', /--suite NAME/],
      ['data', /--if-missing/],
      ['quality', /--tables/],
    ] as const) {
      const io = capture()
      expect(await main([cmd, '--help'], io), cmd).toBe(0)
      expect(io.outs.join('\n'), cmd).toMatch(usage)
    }
  })

  it('fail naming the command and the missing folder where it is absent (an installed package)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'snaptrain-installed-'))
    try {
      let loaded = false
      const load = checkoutOnly(
        'bench',
        'bench',
        async () => {
          loaded = true
          return { run: async () => 0 }
        },
        pathToFileURL(root + '/'),
      )
      await expect(load()).rejects.toThrow(
        /'snaptrain bench' needs a snaptrain source checkout: bench\/ is not part of the installed package/,
      )
      expect(loaded).toBe(false)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
