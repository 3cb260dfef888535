/**
 * A fresh clone with nothing beside it: the checkout's files as git sees them (tracked, and
 * untracked but not ignored, so uncommitted work counts too; no public/, dist/ or tables) copied
 * into an empty folder, node_modules linked package by package from the checkout's (no registry;
 * `npm ci --offline` from the cache works too but takes ~14 s and 640 MB), then the README's first
 * commands as a user runs them: `npm start`, then `npx snaptrain --help`, which builds on first use
 * (`npm run build`'s command, which prints only what it wrote); a command after `snaptrain bench`'s
 * data folder appeared, not refused as stale. Every wait is bounded; the folder and the processes go at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { InlineConfig } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliResult, REPO, runProcess } from '../support/cli.ts'

let dir: string
/** `npm start`, while it runs. */
let server: ChildProcess | undefined

/** Environment of the commands: this Node first on PATH, no colours, no build check switched off. */
function env(): NodeJS.ProcessEnv {
  const vars: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` }
  vars.NO_COLOR = '1'
  vars.SNAPTRAIN_DEBUG = ''
  // vitest sets NODE_ENV=test; a user's shell has none. The checkout's tests skip the build
  // check (tests/support/cli.ts); here the check is under test.
  delete vars.NODE_ENV
  delete vars.SNAPTRAIN_BUILD_CHECK
  return vars
}

/** Runs `cmd args` in the clone; fails with both outputs on a non-zero exit. */
async function exec(cmd: string, args: string[], killMs: number): Promise<CliResult> {
  const r = await runProcess(cmd, args, { cwd: dir, env: env(), killMs })
  if (r.code !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout.slice(-3000)}\nstderr: ${r.stderr.slice(-3000)}`,
    )
  return r
}

/** Files git would put in a clone of the checkout as it is now: tracked and untracked-not-ignored. */
async function checkoutFiles(): Promise<string[]> {
  const r = await runProcess('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    env: process.env,
    killMs: 30_000,
  })
  if (r.code !== 0) throw new Error(`git ls-files exited ${r.code}: ${r.stderr}`)
  // A tracked file deleted in the working tree is not in the clone either; node_modules as a link
  // (which `node_modules/` in .gitignore does not match) is made below.
  return [...new Set(r.stdout.split('\0').filter(Boolean))].filter(
    f => f !== 'node_modules' && existsSync(join(REPO, f)),
  )
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
      .listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port
        s.close(() => done(port))
      })
      .on('error', fail)
  })
}

/** Stops `npm start` and everything it started (its process group); waits at most 10 s. */
async function stopServer(): Promise<void> {
  const child = server
  server = undefined
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return
  const closed = new Promise<void>(done => child.on('close', () => done()))
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      /* already gone */
    }
  }
  kill('SIGTERM')
  const timer = setTimeout(() => kill('SIGKILL'), 10_000)
  await closed
  clearTimeout(timer)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'snaptrain-clone-'))
  for (const f of await checkoutFiles()) {
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    cpSync(join(REPO, f), join(dir, f))
  }
  // node_modules as `npm install` would leave it, without the registry: each package a link to the
  // checkout's. A folder of links, not one link, so vite's caches (node_modules/.vite*) stay here.
  mkdirSync(join(dir, 'node_modules'))
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name.startsWith('.vite') || name === '.cache') continue
    symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name))
  }
}, 60_000)

afterAll(async () => {
  await stopServer()
  if (dir) rmSync(dir, { recursive: true, force: true })
}, 30_000)

describe('a fresh clone', () => {
  it('has no public/ or dist/ (what the commands below start from)', () => {
    expect(existsSync(join(dir, 'package.json'))).toBe(true)
    expect(existsSync(join(dir, 'src', 'cli', 'main.ts'))).toBe(true)
    expect(existsSync(join(dir, 'public'))).toBe(false)
    expect(existsSync(join(dir, 'dist'))).toBe(false)
  })

  it('npm start serves the page; then npx snaptrain --help works, built on first use by npm run build, which prints one line per part it wrote, nothing else', async () => {
    const port = await freePort()
    const child = spawn('npm', ['start', '--', '--port', String(port), '--strictPort'], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: env(),
    })
    server = child
    const url = await new Promise<string>((done, fail) => {
      let out = ''
      const timer = setTimeout(() => fail(new Error(`npm start printed no URL in 180 s:\n${out}`)), 180_000)
      const onData = (d: Buffer) => {
        out += d
        const m = /Local:\s+(http:\/\/\S+)/.exec(out)
        if (m) {
          clearTimeout(timer)
          done(m[1]!)
        }
      }
      child.stdout!.on('data', onData)
      child.stderr!.on('data', onData)
      child.on('exit', code => {
        clearTimeout(timer)
        fail(new Error(`npm start exited with ${code}:\n${out}`))
      })
    })
    expect(url).toBe(`http://127.0.0.1:${port}/`)
    expect((await fetch(url, { signal: AbortSignal.timeout(30_000) })).status).toBe(200)
    expect(existsSync(join(dir, 'public', 'tables', 'clicks', '_delta_log'))).toBe(true)
    await stopServer()

    // The first command builds with `npm run build`'s own command (one full build in this file, not
    // two: the build's output is checked here, where the launcher passes it on to stderr).
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.build).toBe('node tools/build/build.mjs')
    expect(readFileSync(join(dir, 'bin', 'snaptrain.js'), 'utf8')).toContain("'../tools/build/build.mjs'")
    const r = await exec('npx', ['--offline', 'snaptrain', '--help'], 240_000)
    expect(r.stdout).toMatch(/^usage: snaptrain <command>/)
    // stdout is the command's alone; the build said what it did on stderr: one line per part.
    const lines = r.stderr.split('\n').filter(l => l.trim() !== '')
    expect(lines.join('\n')).not.toContain('PLUGIN_TIMINGS')
    expect(lines[0]).toMatch(/^snaptrain: no build in .*; building it \(npm run build\)$/)
    expect(lines.slice(1).map(l => l.replace(/ \(.*$/, ''))).toEqual([
      'build: dist/app',
      'build: dist/bench',
      'build: dist/cli',
      'build: dist/demo',
    ])
    for (const f of ['dist/app/index.html', 'dist/bench/bench.html', 'dist/cli/main.js', 'dist/demo/index.html'])
      expect(existsSync(join(dir, f)), f).toBe(true)
  }, 450_000)

  it('a command after bench/tables appeared runs the build as it is; after a source changed it builds first', async () => {
    // What `snaptrain bench` leaves (bench/tables), and `npm start`'s tables going away.
    mkdirSync(join(dir, 'bench', 'tables', 'clicks'), { recursive: true })
    writeFileSync(join(dir, 'bench', 'tables', 'clicks', 'part-0.parquet'), 'data')
    rmSync(join(dir, 'public', 'tables'), { recursive: true, force: true })
    const stamp = statSync(join(dir, 'dist', 'cli', 'build.json')).mtimeMs
    const r = await exec(process.execPath, ['bin/snaptrain.js', '--help'], 60_000)
    expect(r.stdout).toMatch(/^usage: snaptrain <command>/)
    expect(r.stderr).toBe('')
    expect(statSync(join(dir, 'dist', 'cli', 'build.json')).mtimeMs).toBe(stamp)
    // Removing a source file still makes the build stale.
    const { staleBuild } = (await import(pathToFileURL(join(dir, 'tools', 'build', 'stale.mjs')).href)) as {
      staleBuild(root: string): string | undefined
    }
    expect(staleBuild(dir)).toBeUndefined()
    rmSync(join(dir, 'bench', 'README.md'))
    expect(staleBuild(dir)).toBe('the build in dist/ is older than the removal of bench/README.md')
    // A stale build is rebuilt before the command runs; a build that fails stops it, saying so.
    appendFileSync(join(dir, 'vite.config.ts'), "\nthrow new Error('vite.config.ts broken on purpose')\n")
    const broken = await runProcess(process.execPath, ['bin/snaptrain.js', '--help'], {
      cwd: dir,
      env: env(),
      killMs: 60_000,
    })
    expect(broken.code).toBe(1)
    expect(broken.stdout).toBe('')
    expect(broken.stderr).toMatch(/^snaptrain: the build in dist\/ is older than vite\.config\.ts; building it/)
    expect(broken.stderr).toContain('vite.config.ts broken on purpose')
    expect(broken.stderr).toMatch(
      /snaptrain: the build failed \(exit 1\); fix the error above and run 'npm run build'\n$/,
    )
  }, 120_000)
})

describe('the build on a loaded machine', () => {
  /** A plugin as slow as a loaded machine makes the real ones: rolldown reports builds over 3 s. */
  const slow = () => ({
    name: 'slow',
    async buildStart() {
      await new Promise(done => setTimeout(done, 3200))
    },
  })

  /** Builds a page with a module worker under `options`; returns what vite logged and the files it wrote. */
  async function buildFixture(options: InlineConfig): Promise<{ logged: string; files: string[] }> {
    const root = mkdtempSync(join(tmpdir(), 'snaptrain-quiet-build-'))
    try {
      writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>\n')
      writeFileSync(join(root, 'main.js'), "new Worker(new URL('./w.js', import.meta.url), { type: 'module' })\n")
      writeFileSync(join(root, 'w.js'), 'self.postMessage(1)\n')
      const { build } = await import('vite')
      let logged = ''
      const log = (m: string) => {
        logged += `${m}\n`
      }
      await build({
        ...options,
        root,
        configFile: false,
        plugins: [slow()],
        worker: { ...options.worker, format: 'es', plugins: () => [slow()] },
        // Warnings and errors: what `npm run build` prints at its log level ('warn').
        customLogger: {
          info: () => {},
          warn: log,
          warnOnce: log,
          error: log,
          clearScreen: () => {},
          hasErrorLogged: () => false,
          hasWarned: false,
        },
      })
      return { logged, files: readdirSync(join(root, 'out'), { recursive: true, encoding: 'utf8' }) }
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }

  it("prints no [PLUGIN_TIMINGS] report under npm run build's options (and does without them)", async () => {
    const { pageBuildOptions } = (await import(pathToFileURL(join(REPO, 'tools', 'build', 'build.mjs')).href)) as {
      pageBuildOptions(outDir: string): InlineConfig
    }
    const options = pageBuildOptions('out')
    const count = (text: string) => text.split('[PLUGIN_TIMINGS]').length - 1
    // Without the options' checks: the report the build printed on a loaded machine, main and worker.
    // Both builds at once: their time is the slow plugin's waits, not CPU.
    const [loud, quiet] = await Promise.all([
      buildFixture({
        ...options,
        build: { ...options.build, rollupOptions: { ...options.build?.rollupOptions, checks: undefined } },
        worker: {},
      }),
      buildFixture(options),
    ])
    // At least one report (main build or worker): under heavy load rolldown may leave out one whose
    // slow plugin's share of that build's time fell below its threshold; none would mean no control.
    expect(count(loud.logged)).toBeGreaterThanOrEqual(1)
    expect(quiet.logged).toBe('')
    // It did build: the page and the worker's own chunk.
    expect(quiet.files).toContain('index.html')
    expect(quiet.files.filter(f => /^assets\/w-.*\.js$/.test(f))).toHaveLength(1)
  }, 60_000)
})
