/**
 * `npm run build` (`node tools/build/build.mjs [--if-stale]`): everything the package runs.
 * - dist/app: the app (index.html, vite.config.ts's build; production mode, no sample tables);
 * - dist/bench: the bench page (bench.html, vite.bench.config.ts; TF.js and parquet-wasm in it);
 * - dist/cli: the CLI bundled by esbuild for Node 20 (ES modules, one chunk per lazily loaded
 *   command, the sample-table generator and the bench's Node side among them); only the runtime
 *   `dependencies` of package.json stay imports, everything else is bundled;
 * - dist/demo: the static demo (tools/build/demo.mjs `buildDemo`), from dist/app.
 * Each part is built into a staging folder and moved into place when done, so a test or CLI run
 * reading dist/ meanwhile sees the old build or the new one, never half of one. `--if-stale`
 * builds only when the sources changed since the last build (stale.mjs; dist/cli/build.json is
 * its stamp). A build prints one line per part it wrote and nothing else; it needs no public/
 * (a fresh clone has none: it holds only the generated sample tables).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { STAMP, sourceFiles, staleBuild, writeStamp } from './stale.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Shaders (`x.wgsl?raw`) reach the CLI through shared modules: bundled as text, as vite does. */
const rawText = {
  name: 'raw-text',
  setup(build) {
    build.onResolve({ filter: /\?raw$/ }, a => ({ path: resolve(a.resolveDir, a.path.slice(0, -4)), namespace: 'raw' }))
    build.onLoad({ filter: /.*/, namespace: 'raw' }, async a => ({
      contents: await readFile(a.path, 'utf8'),
      loader: 'text',
      watchFiles: [a.path],
    }))
  },
}

/** Builds the CLI into `outDir`; returns the packages left as imports (the runtime dependencies). */
async function buildCli(outDir) {
  const esbuild = await import('esbuild')
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'src/cli/main.ts' },
    outdir: outDir,
    bundle: true,
    splitting: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    external: Object.keys(pkg.dependencies ?? {}),
    plugins: [rawText],
    metafile: true,
    logLevel: 'warning',
    // Bundled CommonJS modules call require() for Node's built-ins; an ES module has none of its own.
    banner: {
      js: "import { createRequire as __snaptrainRequire } from 'node:module'\nconst require = __snaptrainRequire(import.meta.url)",
    },
  })
  const imported = new Set()
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    for (const i of out.imports) if (i.external && !i.path.startsWith('node:')) imported.add(i.path)
    // A CommonJS package loaded with createRequire (src/cli/launch.ts: playwright-core), which
    // esbuild leaves as a call, not an import.
    if (!file.endsWith('.js')) continue
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(
      /createRequire\(import\.meta\.url\)\(\s*"([^"]+)"\s*\)/g,
    ))
      if (!m[1].startsWith('node:')) imported.add(m[1])
  }
  return [...imported].sort()
}

/**
 * What `npm run build` sets over a page's vite config (exported for the test of its output): a
 * production build into `outDir` that prints only what it wrote.
 * @param {string} outDir
 */
export function pageBuildOptions(outDir) {
  // Rolldown's timing report (`[PLUGIN_TIMINGS]`, which plugins took most of a build over 3 s) is
  // printed as a warning whenever the machine is loaded; it says nothing about the output.
  const checks = { bundlerTimings: false }
  return {
    mode: 'production',
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      // The pages are loaded from loopback or a static host once; one large chunk is fine.
      chunkSizeWarningLimit: 10_000,
      rollupOptions: {
        checks,
        // A module imported both ways stays in its chunk: expected here (shared by app and workers).
        onLog(level, log, handler) {
          if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log)
        },
      },
    },
    // Each worker is bundled by a rolldown run of its own, which reads only these options.
    worker: { rolldownOptions: { checks } },
  }
}

/** vite build with `configFile` into `outDir`. */
async function buildPage(configFile, outDir) {
  // Package conditions follow NODE_ENV, not the mode: unset (or 'test', from vitest) it would
  // resolve Lit's development build, which warns in the console that it is in dev mode.
  process.env.NODE_ENV = 'production'
  const { build } = await import('vite')
  await build({ root: ROOT, configFile: join(ROOT, configFile), ...pageBuildOptions(outDir) })
}

/** Replaces `dist/<name>` by the staged folder. */
function swapIn(staged, name) {
  const target = join(ROOT, 'dist', name)
  const old = `${staged}.old`
  // Another build (a second test run) may swap its folder in between our two renames: retry.
  for (let attempt = 0; ; attempt++) {
    try {
      if (existsSync(target)) renameSync(target, old)
      renameSync(staged, target)
      break
    } catch (e) {
      if (attempt >= 5 || !['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes(e.code)) throw e
      rmSync(old, { recursive: true, force: true })
    }
  }
  rmSync(old, { recursive: true, force: true })
}

/** Builds dist/{app,bench,cli} and then dist/demo; `log` gets one line per part. */
export async function build(log = line => console.error(line)) {
  const startedAt = Date.now()
  // The sources as the build starts to read them: a file changed, added or removed later makes it stale.
  const sources = sourceFiles(ROOT)
  const staging = join(ROOT, 'dist', `.staging-${process.pid}`)
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  try {
    let t = performance.now()
    const lap = what => {
      log(`build: ${what} (${((performance.now() - t) / 1000).toFixed(1)} s)`)
      t = performance.now()
    }
    await buildPage('vite.config.ts', join(staging, 'app'))
    lap('dist/app')
    await buildPage('vite.bench.config.ts', join(staging, 'bench'))
    lap('dist/bench')
    const imports = await buildCli(join(staging, 'cli'))
    writeStamp(join(staging, 'cli', 'build.json'), startedAt, sources, { imports })
    lap(`dist/cli (imports ${imports.join(', ') || 'nothing'} at run time)`)
    for (const name of ['app', 'bench', 'cli']) swapIn(join(staging, name), name)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  const demo = join(ROOT, 'tools', 'build', 'demo.mjs')
  if (existsSync(demo)) {
    const t = performance.now()
    const { buildDemo } = await import(pathToFileURL(demo).href)
    await buildDemo({ appDir: join(ROOT, 'dist', 'app'), outDir: join(ROOT, 'dist', 'demo') })
    log(`build: dist/demo (${((performance.now() - t) / 1000).toFixed(1)} s)`)
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale')
  const why = staleBuild(ROOT)
  if (ifStale && why === undefined) console.error(`build: dist/ is up to date (${STAMP})`)
  else await build()
}
