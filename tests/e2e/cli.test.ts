/**
 * The CLI as a real process (`node bin/snaptrain.js …`, killed if it hangs): exit codes, what goes
 * to stdout and to stderr, and the files a run leaves. A few runs only; the commands' logic and
 * their errors are tested in-process (tests/unit/cli, main with a captured io).
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

  it('train in headless Chromium: progress on stderr, the --json summary last on stdout, three files, exit 0', async () => {
    const out = join(tmp, 'run')
    const r = await runCli(
      [
        'train',
        '--table',
        'public/tables/marketing',
        '--label',
        'y',
        '--features',
        'age,balance,job',
        '--params',
        '{"num_round":2,"max_depth":3}',
        '--out',
        out,
        '--json',
      ],
      {},
      150_000,
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/\[2\/2\]/)
    const s = lastJson<{ model: string; rounds: number; model_path: string; manifest_path: string }>(r)
    expect(s).toMatchObject({
      model: 'gbdt',
      rounds: 2,
      model_path: join(out, 'model.json'),
      manifest_path: join(out, 'manifest.json'),
    })
    expect(readdirSync(out).sort()).toEqual(['continue', 'manifest.json', 'metrics.csv', 'model.json'])
    expect(JSON.parse(readFileSync(s.manifest_path, 'utf8'))).toMatchObject({
      kind: 'snaptrain-run',
      model: 'gbdt',
      label: 'y',
    })
  }, 160_000)

  for (const ranks of [1, 2]) {
    it(`train${ranks > 1 ? ` --ranks ${ranks}` : ''} and Ctrl-C: the run stops after the current round, its model, metrics and manifest (marked stopped) are written, exit 0`, async () => {
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
      const s = lastJson<{ rounds: number; stopped: { at_round: number; reason: string } }>(r)
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
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
