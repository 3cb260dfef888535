/**
 * What the published package runs and what it may import. The package ships the build (dist/: the
 * app, the bench page and the CLI bundled by esbuild) and bin/; the bundle keeps as imports only
 * the runtime `dependencies` of package.json (everything else, devDependencies included, is
 * bundled at build time), and every dependency is one the bundle imports. src/ reaches bench/ and
 * tools/ only through the CLI's lazy command loads (src/cli/main.ts: `bench`, `quality`, `data`),
 * which the build bundles; `quality` needs bench/data/ at run time, so only a checkout runs it.
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
const LAZY_COMMANDS = [
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
  // A CommonJS package loaded through `createRequire(import.meta.url)('pkg')` or `require('pkg')`,
  // as the launcher loads playwright-core (cheaper than import() of a CommonJS bundle).
  for (const m of code.matchAll(
    /\b(?:require|createRequire\([^()]*(?:\([^()]*\))?[^()]*\))\(\s*['"]([^'"]+)['"]\s*\)/g,
  ))
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

/** Product sources and their text (what the build bundles). */
function productFiles(): Map<string, string> {
  const files = [...sources('src'), ...sources('bin'), 'vite.config.ts']
  return new Map(files.map(f => [f, readFileSync(join(ROOT, f), 'utf8')]))
}

/** Bare packages the built CLI (dist/cli/*.js) imports, node: built-ins left out. */
function bundleImports(): Set<string> {
  const dir = join(ROOT, 'dist', 'cli')
  const out = new Set<string>()
  for (const name of readdirSync(dir).filter(n => n.endsWith('.js'))) {
    for (const i of importsOf(readFileSync(join(dir, name), 'utf8'))) {
      const p = packageOf(i.spec)
      if (p !== undefined) out.add(p)
    }
  }
  return out
}

describe('the build and its dependencies', () => {
  const files = productFiles()

  it('reads every product module and finds their imports', () => {
    expect(files.size).toBeGreaterThan(200)
    const seen = new Set([...files.values()].flatMap(t => importsOf(t).map(i => packageOf(i.spec))))
    for (const p of ['hyparquet', 'lit', 'comlink', 'vite', 'playwright-core', 'uplot', 'hyparquet-compressors'])
      expect(seen, p).toContain(p)
  })

  it('the built CLI imports exactly the runtime dependencies (the rest is bundled)', () => {
    const deps = Object.keys(pkg.dependencies ?? {}).sort()
    expect([...bundleImports()].sort()).toEqual(deps)
    // Product code imports nothing that is in neither list (bundled from node_modules at build time).
    const declared = { ...pkg.dependencies, ...pkg.devDependencies }
    expect(undeclaredPackages(files, declared)).toEqual([])
  })

  it('keeps bench/ and tools/ out of src/, but for the lazily loaded commands', () => {
    const edges = toolEdges(files)
    expect(edges.filter(e => !e.dynamic)).toEqual([])
    expect(edges.map(({ from, to }) => ({ from, to })).sort((a, b) => a.to.localeCompare(b.to))).toEqual(LAZY_COMMANDS)
  })

  it('ships bin/ and the build, never the sources, tests or tables', () => {
    const shipped = pkg.files ?? []
    expect(shipped.length).toBeGreaterThan(0)
    const inPackage = (path: string): boolean =>
      path === 'package.json' || shipped.some(f => (f.endsWith('/') ? path.startsWith(f) : path === f))
    for (const dir of ['src/', 'bench/', 'tools/', 'tests/', 'public/', 'shaders/', 'dist/demo/'])
      expect(inPackage(`${dir}x.ts`), dir).toBe(false)
    for (const f of ['bin/snaptrain.js', 'dist/cli/main.js', 'dist/app/index.html', 'dist/bench/bench.html'])
      expect(inPackage(f), f).toBe(true)
    // The launcher reaches tools/ only in a checkout (its build check); otherwise only the build.
    const launcher = importsOf(readFileSync(join(ROOT, 'bin', 'snaptrain.js'), 'utf8')).filter(i =>
      i.spec.startsWith('.'),
    )
    expect(launcher.map(i => i.spec).sort()).toEqual(['../dist/cli/main.js', '../tools/build/stale.mjs'])
    expect(launcher.every(i => i.dynamic)).toBe(true)
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

describe('commands from bench/ and tools/', () => {
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

  it('load from bench/ and tools/', async () => {
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

  it('quality fails naming the command and the missing folder where it is absent (an installed package)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'snaptrain-installed-'))
    try {
      let loaded = false
      const load = checkoutOnly(
        'quality',
        'bench/data',
        async () => {
          loaded = true
          return { run: async () => 0 }
        },
        pathToFileURL(root + '/'),
      )
      await expect(load()).rejects.toThrow(
        /'snaptrain quality' needs a snaptrain source checkout: bench\/data\/ is not part of the installed package/,
      )
      expect(loaded).toBe(false)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
