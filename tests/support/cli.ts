/**
 * The CLI for tests: spawned for real (`node bin/snaptrain.js …` from the repo root: runCli,
 * runCliMeasured) for the few end-to-end runs, or in-process (runMain, shareAppPage) for the rest.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import type { Browser } from 'playwright-core'
import { main } from '../../src/cli/main.ts'
import { launchBrowser } from '../../src/cli/launch.ts'
import { useAppPageHost } from '../../src/cli/page-run.ts'
import { startPageServer, type PageServer } from '../../src/serve/page-server.ts'

/** Repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** What a CLI run printed and how it ended; `ms` is wall time. */
export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/** Prints the process's peak resident set size (kB) as the last stderr line when it exits. */
const PEAK_RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\n${'peak_rss_kb'}='+process.resourceUsage().maxRSS+'\\n'))`

/** A CLI run with its peak resident set size in MiB (Node's own accounting of the process). */
export interface MeasuredResult extends CliResult {
  peakRssMiB: number
}

/** Like runCli, and measures the process's peak RSS (the stderr it returns has the measurement line removed). */
export async function runCliMeasured(
  args: string[],
  env: Record<string, string> = {},
  killMs = 20_000,
): Promise<MeasuredResult> {
  const r = await runCli(args, env, killMs, ['--import', PEAK_RSS_HOOK])
  const m = /\npeak_rss_kb=(\d+)\n$/.exec(r.stderr)
  return { ...r, stderr: m ? r.stderr.slice(0, m.index) : r.stderr, peakRssMiB: m ? Number(m[1]) / 1024 : NaN }
}

/** Runs `snaptrain <args>`; killed after `killMs` so a hang fails the test instead of stalling it. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  killMs = 20_000,
  nodeArgs: string[] = [],
  onStderr?: (text: string, child: ChildProcess) => void,
): Promise<CliResult> {
  // The run's build is the one the test setup made (tests/support/build-setup.ts).
  const vars = { ...process.env, SNAPTRAIN_DEBUG: '', SNAPTRAIN_BUILD_CHECK: '0', ...env }
  return runProcess(process.execPath, [...nodeArgs, 'bin/snaptrain.js', ...args], {
    cwd: REPO,
    env: vars,
    killMs,
    onStderr,
  })
}

/**
 * Runs `cmd args` in `cwd` with `env`, collecting its output; SIGKILLed after `killMs`.
 * `onStderr` hears the stderr so far with the child after each chunk (to signal it, say).
 */
export function runProcess(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; killMs: number; onStderr?: (text: string, child: ChildProcess) => void },
): Promise<CliResult> {
  const t0 = performance.now()
  return new Promise((done, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => {
      stdout += d
    })
    child.stderr.on('data', d => {
      stderr += d
      opts.onStderr?.(stderr, child)
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.killMs)
    child.on('error', reject)
    child.on('close', code => {
      clearTimeout(timer)
      done({ code, stdout, stderr, ms: performance.now() - t0 })
    })
  })
}

/** Environment of the in-process runs under way, and what it replaced. */
let active: { runs: number; env: Record<string, string>; saved: Record<string, string | undefined> } | undefined

/**
 * Runs `snaptrain <args>` in this process: main(argv, io) with an io that writes what the process's
 * own io would (a line and '\n' per message), `env` set for the run's duration (SNAPTRAIN_DEBUG
 * empty unless given) and restored after; runs at the same time must agree on `env`. No tsx child
 * process: for usage errors, Node-side checks and everything that does not need a real process's
 * exit (runCli keeps those).
 */
export async function runMain(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const t0 = performance.now()
  let stdout = ''
  let stderr = ''
  const vars: Record<string, string> = { SNAPTRAIN_DEBUG: '', ...env }
  if (active && JSON.stringify(active.env) !== JSON.stringify(vars)) {
    throw new Error(
      `runMain: concurrent runs with different env (${JSON.stringify(active.env)} vs ${JSON.stringify(vars)})`,
    )
  }
  active ??= { runs: 0, env: vars, saved: Object.fromEntries(Object.keys(vars).map(k => [k, process.env[k]])) }
  active.runs++
  Object.assign(process.env, vars)
  try {
    const code = await main(args, {
      out: line => {
        stdout += line + '\n'
      },
      err: line => {
        stderr += line + '\n'
      },
    })
    return { code, stdout, stderr, ms: performance.now() - t0 }
  } finally {
    if (--active.runs === 0) {
      for (const [k, v] of Object.entries(active.saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
      active = undefined
    }
  }
}

/**
 * For a test file whose in-process runs (runMain) train, sweep or predict in the page: one page
 * server and one headless Chromium for all of the file's runs, each run on a fresh page (its own
 * browser context), instead of a server and a browser per run. Registers beforeAll/afterAll.
 */
export function shareAppPage(): void {
  let server: PageServer | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startPageServer(), launchBrowser()])
    useAppPageHost({ url: server.url, newPage: () => browser!.newPage() })
  }, 120_000)
  afterAll(async () => {
    useAppPageHost(undefined)
    await browser?.close()
    await server?.close()
  })
}

/** The last stdout line parsed as JSON (the `--json` contract). */
export function lastJson<T = Record<string, unknown>>(r: CliResult): T {
  const lines = r.stdout.trim().split('\n')
  return JSON.parse(lines[lines.length - 1]) as T
}
