/**
 * The CLI as a real process (`node bin/snaptrain.js …`, killed if it hangs): exit codes, what goes
 * to stdout and to stderr, and the files a run leaves. A few runs only; the commands' logic and
 * their errors are tested in-process (main with a captured io: tests/unit/cli in Node,
 * tests/e2e/cli where they train in Chromium).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { lastJson, REPO, runCli } from '../support/cli.ts'

const BASIC = 'tests/conformance/dat/basic_append/delta'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-cli-e2e-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('snaptrain as a process', () => {
  it('no command: usage on stdout, exit 2; an unknown command: usage on stderr, exit 2', async () => {
    const [none, unknown] = await Promise.all([runCli([]), runCli(['nosuch'])])
    expect(none.code).toBe(2)
    expect(none.stdout).toMatch(/^usage: snaptrain <command>/)
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe('')
    expect(unknown.stderr).toMatch(/^snaptrain: unknown command 'nosuch'/)
  })

  it('scan --json: exit 0, the summary as the only stdout line, nothing on stderr', async () => {
    const r = await runCli(['scan', '--table', BASIC, '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
    expect(lastJson(r)).toMatchObject({ table: resolve(REPO, BASIC), files: 2 })
  })

  it('scan with a bad flag value: exit 2, nothing on stdout, stderr names the flag', async () => {
    const r = await runCli(['scan', '--table', BASIC, '--version', 'x'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/--version/)
  })

  it('train with a label not in the table: exit 1 in < 10 s, one line naming it, no files', async () => {
    const out = join(tmp, 'bad')
    const r = await runCli(['train', '--table', 'public/tables/marketing', '--label', 'nope', '--out', out])
    expect(r.code).toBe(1)
    expect(r.ms).toBeLessThan(10_000)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^snaptrain train: .*label column nope: not in the table/),
    ])
    expect(existsSync(out)).toBe(false)
  })

  for (const ranks of [1, 2]) {
    // Ranks 1 is also the plain run's check (progress on stderr, the --json summary last on stdout,
    // its files): one Chromium start for both. A run to its last round as a process, exit 0 and its
    // files: tests/e2e/package.test.ts (train, the installed bin).
    it(`train${ranks > 1 ? ` --ranks ${ranks}` : ' in headless Chromium'} and Ctrl-C: progress on stderr, the run stops after the current round, its model, metrics and manifest (marked stopped) are written, the --json summary last on stdout, exit 0`, async () => {
      const out = join(tmp, `stopped-${ranks}`)
      const args = ['train', '--table', 'public/tables/marketing', '--label', 'y', '--features', 'age,balance,job']
      args.push('--params', '{"num_round":400,"max_depth":6}', '--out', out, '--json')
      if (ranks > 1) args.push('--ranks', String(ranks))
      let sent = false
      const r = await runCli(args, {}, 150_000, [], (text, child) => {
        // Interrupt once the third round is reported.
        if (!sent && /\[3\/400\]/.test(text)) {
          sent = true
          child.kill('SIGINT')
        }
      })
      const { code, stderr } = r
      expect(sent, stderr).toBe(true)
      expect(code, stderr).toBe(0)
      expect(stderr).toMatch(/Ctrl-C: stopping after the current round/)
      expect(stderr).toMatch(/\[3\/400\]/)
      const s = lastJson<{
        model: string
        rounds: number
        model_path: string
        manifest_path: string
        stopped: { at_round: number; reason: string }
      }>(r)
      expect(s).toMatchObject({
        model: 'gbdt',
        model_path: join(out, 'model.json'),
        manifest_path: join(out, 'manifest.json'),
      })
      expect(readdirSync(out).sort()).toEqual(['continue', 'manifest.json', 'metrics.csv', 'model.json'])
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
      expect(manifest).toMatchObject({ kind: 'snaptrain-run', model: 'gbdt', label: 'y' })
      expect(manifest.stopped).toEqual(s.stopped)
      expect(manifest.stopped.reason).toBe('user')
      expect(manifest.stopped.at_round).toBeGreaterThanOrEqual(3)
      expect(manifest.stopped.at_round).toBeLessThan(400)
      expect(stderr).toContain(`stopped by the user after round ${manifest.stopped.at_round}`)
      const model = JSON.parse(readFileSync(join(out, 'model.json'), 'utf8'))
      expect(model.learner.gradient_booster.model.trees).toHaveLength(manifest.stopped.at_round)
      // metrics.csv: a header and one line per round trained.
      expect(readFileSync(join(out, 'metrics.csv'), 'utf8').trim().split('\n')).toHaveLength(
        manifest.stopped.at_round + 1,
      )
      if (ranks > 1) expect(manifest.ranks).toBe(ranks)
    }, 160_000)
  }

  it('sweep with zero trials: exit 2 before any browser, naming the flag', async () => {
    const r = await runCli([
      'sweep',
      '--table',
      'public/tables/marketing',
      '--label',
      'y',
      '--model',
      'gbdt',
      '--trials',
      '0',
    ])
    expect(r.code).toBe(2)
    expect(r.ms).toBeLessThan(10_000)
    expect(r.stderr).toMatch(/trials: must be a positive integer, got 0/)
  })
})
