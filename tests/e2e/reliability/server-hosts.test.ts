/**
 * Every server a command starts answers only its own Host, while the command runs: `scan`,
 * `train`, `predict` and `sweep` run in-process with node's net.Server listen wrapped, so each
 * server they start — whatever starts it — is probed the moment it listens (and its close waits
 * for the probe), with foreign names and with loopback names carrying another port; `serve` runs
 * as a real process and is probed at the URL it prints. Each probe also asks with the server's
 * own name, which must be answered (200 somewhere), so a probe that reached nothing cannot pass.
 * A source check keeps every createServer in src/ behind the one check (host-check.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO, runMain } from '../../support/cli.ts'
import { frame, writeTable } from '../../unit/reliability/bad-tables.ts'

/** A hang bound per command: a page run starts its own Chromium on 2 shared cores. */
const RUN_MS = 150_000

let tmp: string
let table: string

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'snaptrain-server-hosts-'))
  table = join(tmp, 'good')
  await writeTable(table, frame())
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

/** GET `path` at 127.0.0.1:`port` with `host` as the Host header: the status (0 when no answer came). */
function statusWithHost(port: number, path: string, host: string): Promise<number> {
  return new Promise(resolve => {
    const req = request({ hostname: '127.0.0.1', port, path, headers: { Host: host }, agent: false }, res => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.setTimeout(5000, () => req.destroy(new Error('timeout')))
    req.on('error', () => resolve(0))
    req.end()
  })
}

/** Hosts a server on `port` must refuse: foreign names, and its own loopback names with another port. */
const foreignHosts = (port: number) => [
  'evil.example',
  `evil.example:${port}`,
  `localhost.evil.example:${port}`,
  'localhost:1',
  '127.0.0.1:1',
  '[::1]:1',
  `127.0.0.1:${port === 65535 ? 1 : port + 1}`,
  '127.0.0.1',
  `127.0.0.2:${port}`,
]

/** What one server answered: each foreign Host's statuses, and whether its own name read anything. */
interface Probe {
  port: number
  foreign: Record<string, number[]>
  ownOk: boolean
}

/**
 * Asks the server on `port` for the paths a page on another origin would want (the app, the
 * table's log under the mounts the CLI uses) with each foreign Host, and with its own name.
 */
async function probe(port: number, name: string): Promise<Probe> {
  const log = '_delta_log/00000000000000000000.json'
  const paths = ['/', `/${name}/${log}`, `/tables/${name}/${log}`, `/${log}`]
  const foreign: Record<string, number[]> = {}
  for (const host of foreignHosts(port))
    foreign[host] = await Promise.all(paths.map(p => statusWithHost(port, p, host)))
  const own = await Promise.all(paths.map(p => statusWithHost(port, p, `localhost:${port}`)))
  return { port, foreign, ownOk: own.includes(200) }
}

/**
 * Runs `argv` in-process and probes every TCP server started meanwhile in this process as soon as it
 * listens; its close() waits until the probe is done, so a short-lived server (scan's) is probed too.
 */
async function probedRun(argv: string[]): Promise<{ code: number; stderr: string; probes: Probe[] }> {
  const pending: Array<Promise<Probe>> = []
  const listen = Server.prototype.listen
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const done = new Promise<Probe>((resolve, reject) => {
      this.once('error', reject)
      this.once('listening', () => {
        const addr = this.address()
        if (addr && typeof addr === 'object') probe(addr.port, 'good').then(resolve, reject)
        else reject(new Error(`a server listened on ${String(addr)}`))
      })
    })
    pending.push(done)
    const settled = done.catch(() => undefined)
    const http = this as Server & { closeAllConnections?: () => void }
    const close = this.close.bind(this)
    this.close = (callback?: (error?: Error) => void) => {
      void settled.then(() => close(callback))
      return this
    }
    if (http.closeAllConnections) {
      const closeAll = http.closeAllConnections.bind(this)
      http.closeAllConnections = () => void settled.then(closeAll)
    }
    return listen.apply(this, args as Parameters<Server['listen']>)
  } as Server['listen']
  try {
    const r = await runMain(argv, { SNAPTRAIN_ALLOWED_HOSTS: '' })
    return { code: r.code ?? -1, stderr: r.stderr, probes: await Promise.all(pending) }
  } finally {
    Server.prototype.listen = listen
  }
}

/** Asserts every probed server refused every foreign Host on every path and answered its own name. */
function expectOwnHostsOnly(what: string, probes: Probe[], servers: number): void {
  expect(probes.length, `${what}: servers started`).toBe(servers)
  for (const p of probes) {
    expect(p.ownOk, `${what}, port ${p.port}: its own name read nothing`).toBe(true)
    for (const [host, statuses] of Object.entries(p.foreign)) {
      expect(statuses, `${what}, port ${p.port}, Host: ${host}`).toEqual(statuses.map(() => 403))
    }
  }
}

describe('every server a command starts refuses a foreign Host while it runs', () => {
  it(
    'scan: its table server',
    async () => {
      const r = await probedRun(['scan', '--table', table, '--json'])
      expect(r.code, r.stderr).toBe(0)
      expectOwnHostsOnly('scan', r.probes, 1)
    },
    RUN_MS,
  )

  const model = () => join(tmp, 'run', 'model.json')

  it(
    'train: its table server and its page server',
    async () => {
      const args = ['--table', table, '--label', 'label', '--backend', 'cpu', '--params', '{"num_round":2}']
      const r = await probedRun(['train', ...args, '--out', join(tmp, 'run')])
      expect(r.code, r.stderr).toBe(0)
      expectOwnHostsOnly('train', r.probes, 2)
    },
    RUN_MS,
  )

  it(
    "predict (with train's model): its table server and its page server",
    async () => {
      const r = await probedRun(['predict', '--model', model(), '--table', table, '--cpu', '--out', join(tmp, 'p.csv')])
      expect(r.code, r.stderr).toBe(0)
      expectOwnHostsOnly('predict', r.probes, 2)
    },
    RUN_MS,
  )

  it(
    'sweep: its table server and its page server',
    async () => {
      const r = await probedRun([
        'sweep',
        ...['--table', table, '--label', 'label', '--model', 'gbdt', '--strategy', 'random'],
        ...['--trials', '1', '--max-resource', '2', '--parallel', '1', '--out', join(tmp, 'sweep')],
      ])
      expect(r.code, r.stderr).toBe(0)
      expectOwnHostsOnly('sweep', r.probes, 2)
    },
    RUN_MS,
  )

  it(
    'serve: the page server of the real process, at the URL it prints',
    async () => {
      const child = spawn(process.execPath, ['bin/snaptrain.js', 'serve', '--table', table], {
        cwd: REPO,
        env: { ...process.env, SNAPTRAIN_BUILD_CHECK: '0', SNAPTRAIN_ALLOWED_HOSTS: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      const exited = new Promise<number | null>(done => child.on('close', code => done(code)))
      try {
        const url = await new Promise<URL>((resolve, reject) => {
          let text = ''
          child.stdout.on('data', d => {
            text += d
            const m = /snaptrain serve: (http:\/\/\S+)/.exec(text)
            if (m) resolve(new URL(m[1]!))
          })
          child.on('close', code => reject(new Error(`serve exited (${code}) before printing its URL`)))
        })
        const p = await probe(Number(url.port), 'good')
        expectOwnHostsOnly('serve', [p], 1)
      } finally {
        child.kill('SIGTERM')
        expect(await exited).toBe(0)
        clearTimeout(killer)
      }
    },
    RUN_MS,
  )
})

describe('one Host check', () => {
  it('every createServer in src/ is in a module that applies host-check.ts', async () => {
    const files = (await readdir(join(REPO, 'src'), { recursive: true })).filter(f => /\.ts$/.test(f))
    const servers: string[] = []
    for (const f of files) {
      const text = await readFile(join(REPO, 'src', f), 'utf8')
      if (!/\bcreateServer\s*\(/.test(text)) continue
      servers.push(f)
      expect(text, `${f} starts a server without the host check`).toMatch(/\bhost(Guard|CheckMiddleware)\(/)
    }
    expect(servers.length).toBeGreaterThanOrEqual(2)
  })
})
