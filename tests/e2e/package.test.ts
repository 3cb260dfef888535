/**
 * The published package as a user gets it: `npm pack`, the tarball installed into an empty
 * folder with no network (playwright-core, the one runtime dependency, from a tarball of the
 * checkout's copy), then every command through the installed `snaptrain` on small tables that
 * `snaptrain data` writes there. The installed folder holds no sources, tsx or vite: the commands
 * run the build. A command that fails fails the test with its output.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliResult, lastJson, REPO, runProcess } from '../support/cli.ts'

let dir: string
let installed: string

/** Output of a finished process. */
type Run = CliResult

/** Runs `cmd args` in `cwd`; rejects (with both outputs) on a non-zero exit or after `killMs`. */
async function exec(cmd: string, args: string[], cwd: string, killMs = 120_000): Promise<Run> {
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, SNAPTRAIN_DEBUG: '' }
  const r = await runProcess(cmd, args, { cwd, env, killMs })
  if (r.code !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-2000)}`,
    )
  return r
}

/** The installed `snaptrain` (node_modules/.bin, as npx finds it). */
function snaptrain(...args: string[]): Promise<Run> {
  return exec(join(dir, 'node_modules', '.bin', 'snaptrain'), args, dir)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'snaptrain-package-'))
  const packed = JSON.parse((await exec('npm', ['pack', '--json', '--pack-destination', dir], REPO)).stdout) as Array<{
    filename: string
    size: number
  }>
  const tarball = join(dir, packed[0]!.filename)
  // The runtime dependency from the checkout's node_modules: the install needs no registry.
  const dep = (
    await exec('npm', ['pack', join(REPO, 'node_modules', 'playwright-core'), '--pack-destination', dir], REPO)
  ).stdout
    .trim()
    .split('\n')
    .at(-1)!
  writeFileSync(join(dir, 'package.json'), '{ "name": "snaptrain-package-test", "private": true }\n')
  const t0 = performance.now()
  await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball, join(dir, dep)], dir)
  console.log(
    `package: ${packed[0]!.filename} ${(packed[0]!.size / 1e6).toFixed(1)} MB, installed in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  installed = join(dir, 'node_modules', 'snaptrain')
}, 180_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('the installed package', () => {
  it('holds the build and bin, no sources, and needs neither tsx nor vite', () => {
    for (const path of ['bin/snaptrain.js', 'dist/cli/main.js', 'dist/app/index.html', 'dist/bench/bench.html'])
      expect(existsSync(join(installed, path)), path).toBe(true)
    for (const path of ['src', 'tests', 'tools', 'bench', 'public', 'dist/app/tables', 'dist/demo'])
      expect(existsSync(join(installed, path)), path).toBe(false)
    expect(
      readdirSync(join(dir, 'node_modules'))
        .filter(n => !n.startsWith('.'))
        .sort(),
    ).toEqual(['playwright-core', 'snaptrain'])
    // A production build: Lit's development build would warn in the console on every load.
    const assets = join(installed, 'dist', 'app', 'assets')
    const devMode = readdirSync(assets).filter(f =>
      readFileSync(join(assets, f), 'utf8').includes('Lit is in dev mode'),
    )
    expect(devMode).toEqual([])
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    expect(Object.keys(pkg.dependencies)).toEqual(['playwright-core'])
  })

  it('--help lists every command (npx snaptrain)', async () => {
    const r = await exec('npx', ['--offline', 'snaptrain', '--help'], dir)
    for (const c of ['scan', 'train', 'predict', 'sweep', 'bench', 'data', 'export', 'serve', 'quality'])
      expect(r.stdout, c).toMatch(new RegExp(`^  ${c} `, 'm'))
  })

  it('data writes small sample tables; scan reads one', async () => {
    const d = lastJson(
      await snaptrain('data', '--out', 'tables', '--rows', '3000', '--marketing-rows', '2000', '--json'),
    )
    expect((d.tables as Array<{ dir: string }>).map(t => t.dir).sort()).toEqual(
      [join(dir, 'tables', 'clicks'), join(dir, 'tables', 'marketing')].sort(),
    )
    const rows = (await snaptrain('scan', '--table', 'tables/marketing', '--limit', '3')).stdout.trim().split('\n')
    expect(rows).toHaveLength(3)
    expect(Object.keys(JSON.parse(rows[0]!))).toContain('y')
  })

  /** The training table and its flags, as train and sweep take them. */
  const MARKETING = ['--table', 'tables/marketing', '--label', 'y', '--valid-fraction', '0.2']

  it('train (gbdt), predict, and sweep', async () => {
    const params = '{"num_round":3,"max_depth":3}'
    const t = lastJson(
      await snaptrain('train', '--model', 'gbdt', ...MARKETING, '--params', params, '--out', 'runs/gbdt', '--json'),
    )
    expect(t.rounds, JSON.stringify(t)).toBe(3)
    for (const f of ['model.json', 'manifest.json', 'metrics.csv'])
      expect(existsSync(join(dir, 'runs/gbdt', f)), f).toBe(true)
    const p = lastJson(
      await snaptrain(
        'predict',
        '--model',
        'runs/gbdt/model.json',
        '--table',
        'tables/marketing',
        '--out',
        'preds.csv',
        '--json',
      ),
    )
    expect(p.rows).toBe(2000)
    expect(readFileSync(join(dir, 'preds.csv'), 'utf8').trim().split('\n')).toHaveLength(2001)
    const s = lastJson(
      await snaptrain(
        'sweep',
        '--model',
        'gbdt',
        ...MARKETING,
        '--strategy',
        'random',
        '--trials',
        '2',
        '--max-resource',
        '3',
        '--parallel',
        '1',
        '--out',
        'runs/sweep',
        '--json',
      ),
    )
    expect(s.trials).toBe(2)
    expect(existsSync(join(dir, 'runs/sweep/trials.csv'))).toBe(true)
  })

  it('train (recsys, one epoch) and export to ONNX', async () => {
    await snaptrain(
      'train',
      '--model',
      'recsys',
      '--table',
      'tables/clicks',
      '--label',
      'label',
      '--valid-fraction',
      '0.1',
      '--params',
      '{"epochs":1,"batch_size":512,"layers":[16]}',
      '--out',
      'runs/recsys',
      '--json',
    )
    expect(existsSync(join(dir, 'runs/recsys/model.bin'))).toBe(true)
    const e = lastJson(
      await snaptrain(
        'export',
        '--model',
        'runs/recsys/model.bin',
        '--format',
        'onnx',
        '--out',
        'model.onnx',
        '--json',
      ),
    )
    expect(e.bytes).toBe(statSync(join(dir, 'model.onnx')).size)
  })

  it('bench runs the bench page (device suite, quick)', async () => {
    const b = lastJson(await snaptrain('bench', '--suite', 'device', '--quick', '--out', 'bench.json', '--json'))
    expect((b.rows as unknown[]).length).toBeGreaterThan(0)
    expect(JSON.parse(readFileSync(join(dir, 'bench.json'), 'utf8')).suite).toBe('device')
  })

  it('serve --table opens the app on the table until SIGTERM', async () => {
    const child = spawn(join(dir, 'node_modules', '.bin', 'snaptrain'), ['serve', '--table', 'tables/marketing'], {
      cwd: dir,
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let out = ''
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', d => {
          out += d
          const m = /(http:\/\/\S+\/)/.exec(out)
          if (m) done(m[1]!)
        })
        child.on('close', code => fail(new Error(`serve exited ${code} before printing its URL: ${out}`)))
      })
      const page = await fetch(url)
      expect(page.status).toBe(200)
      expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp')
      const listing = await (await fetch(`${url}?list-type=2&prefix=tables/&delimiter=/`)).text()
      expect(listing).toContain('<Prefix>tables/marketing/</Prefix>')
      const closed = new Promise<number | null>(done => child.on('close', done))
      child.kill('SIGTERM')
      expect(await closed).toBe(0)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
