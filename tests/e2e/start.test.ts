/**
 * The README's quick start: `npm start` (generate tables if absent, then vite) serves the page,
 * and headless Chromium opens it at the URL vite prints, sees the adapter and the `clicks` schema.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { afterAll, expect, test } from 'vitest'
import { launchBrowser } from '../../src/cli/launch.ts'
import { REPO } from '../support/cli.ts'

const WAIT = { timeout: 60_000 }
let child: ChildProcess | undefined

afterAll(() => {
  // npm runs the script in a shell: kill the whole process group so vite goes too.
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      /* already gone */
    }
  }
})

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

/** Starts `npm start -- --port P` and resolves with the URL it prints. */
function npmStart(port: number): Promise<string> {
  child = spawn('npm', ['start', '--', '--port', String(port), '--strictPort'], {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  })
  return new Promise((done, fail) => {
    let out = ''
    const timer = setTimeout(() => fail(new Error(`npm start printed no URL in 90 s:\n${out}`)), 90_000)
    const onData = (d: Buffer) => {
      out += d
      const m = out.match(/Local:\s+(http:\/\/\S+)/)
      if (m) {
        clearTimeout(timer)
        done(m[1])
      }
    }
    child!.stdout!.on('data', onData)
    child!.stderr!.on('data', onData)
    child!.on('exit', code => fail(new Error(`npm start exited with ${code}:\n${out}`)))
  })
}

test('npm start serves the page with the adapter and the clicks schema', async () => {
  const url = await npmStart(await freePort())
  expect(url).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+\/$/)
  const browser = await launchBrowser()
  try {
    const page = await browser.newPage()
    await page.goto(url, WAIT)
    await page.locator('st-adapter-panel .vendor').waitFor({ ...WAIT, state: 'attached' }) // in the header's folded details
    expect((await page.locator('st-adapter-panel .vendor').textContent())?.trim().length).toBeGreaterThan(0)
    await page.locator('st-table-list button[data-table="clicks"]').click(WAIT)
    await page.locator('st-schema-view tbody tr[data-field="label"]').waitFor(WAIT)
    const fields = await page
      .locator('st-schema-view tbody tr')
      .evaluateAll(rs => rs.map(r => (r as HTMLElement).dataset.field))
    expect(fields).toContain('user_id')
    expect(fields).toContain('emb')
  } finally {
    await browser.close()
  }
}, 180_000)
