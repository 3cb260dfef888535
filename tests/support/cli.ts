/** Spawns the real CLI (`node bin/snaptrain.js …`) from the repo root, for end-to-end tests. */
import { spawn } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** What a CLI run printed and how it ended; `ms` is wall time. */
export interface CliResult { code: number | null; stdout: string; stderr: string; ms: number }

/** Prints the process's peak resident set size (kB) as the last stderr line when it exits. */
const PEAK_RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\n${'peak_rss_kb'}='+process.resourceUsage().maxRSS+'\\n'))`

/** A CLI run with its peak resident set size in MiB (Node's own accounting of the process). */
export interface MeasuredResult extends CliResult { peakRssMiB: number }

/** Like runCli, and measures the process's peak RSS (the stderr it returns has the measurement line removed). */
export async function runCliMeasured(args: string[], env: Record<string, string> = {}, killMs = 20_000): Promise<MeasuredResult> {
  const r = await runCli(args, env, killMs, ['--import', PEAK_RSS_HOOK])
  const m = /\npeak_rss_kb=(\d+)\n$/.exec(r.stderr)
  return { ...r, stderr: m ? r.stderr.slice(0, m.index) : r.stderr, peakRssMiB: m ? Number(m[1]) / 1024 : NaN }
}

/** Runs `snaptrain <args>`; killed after `killMs` so a hang fails the test instead of stalling it. */
export function runCli(args: string[], env: Record<string, string> = {}, killMs = 20_000, nodeArgs: string[] = []): Promise<CliResult> {
  const t0 = performance.now()
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, 'bin/snaptrain.js', ...args], {
      cwd: REPO, env: { ...process.env, SNAPTRAIN_DEBUG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => { stdout += d })
    child.stderr.on('data', d => { stderr += d })
    const timer = setTimeout(() => child.kill('SIGKILL'), killMs)
    child.on('error', reject)
    child.on('close', code => {
      clearTimeout(timer)
      done({ code, stdout, stderr, ms: performance.now() - t0 })
    })
  })
}

/** The last stdout line parsed as JSON (the `--json` contract). */
export function lastJson<T = Record<string, unknown>>(r: CliResult): T {
  const lines = r.stdout.trim().split('\n')
  return JSON.parse(lines[lines.length - 1]) as T
}
