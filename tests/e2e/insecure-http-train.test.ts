/**
 * `--allow-insecure-http` reaches every request of a `train` on a share, in Node (the label
 * precheck) and through the local sharing proxy the page reads with: without it, a profile whose
 * endpoint is plain http:// on a host that is not loopback fails before the token is sent; with
 * it, the same run trains.
 *
 * Why 0.0.0.0: it is not a loopback name, so the rule applies, yet on Linux a connection to it
 * reaches the test sharing server on 127.0.0.1: nothing leaves the machine.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../support/cli.ts'
import { writeProfile } from '../support/share-fixture.ts'
import { startSharingServer, type SharingServer } from '../support/sharing-server.ts'

const TOKEN = 'insecure-http-token-7d2e'
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-insecure-http-'))
const DATA = join(tmp, 'data')

let server: SharingServer
let profile: string
beforeAll(async () => {
  const gen = await runMain(['data', '--out', DATA, '--rows', '2000', '--marketing-rows', '2000'])
  expect(gen.code, gen.stderr).toBe(0)
  server = await startSharingServer({
    tables: [{ share: 'demo', schema: 'public', table: 'marketing', dir: join(DATA, 'marketing') }],
    tokens: [TOKEN],
  })
  const endpoint = server.endpoint.replace('127.0.0.1', '0.0.0.0')
  profile = writeProfile(tmp, 'plain.share', { shareCredentialsVersion: 1, endpoint, bearerToken: TOKEN })
}, 120_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

const ARGS = ['--model', 'gbdt', '--label', 'y', '--params', '{"num_round":2,"max_depth":3}', '--backend', 'cpu']

describe('train on a share whose endpoint is plain http:// (not loopback)', () => {
  it('fails naming the endpoint and the opt-in; the server is sent nothing', async () => {
    const r = await runMain(['train', '--table', `${profile}#demo.public.marketing`, ...ARGS, '--out', join(tmp, 'a')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('(plain http, not loopback)')
    expect(r.stderr).toContain('--allow-insecure-http')
    expect(r.stderr).not.toContain(TOKEN)
    expect(server.log).toEqual([])
  })

  it('trains with --allow-insecure-http, the page reading through the proxy', async () => {
    const out = join(tmp, 'b')
    const r = await runMain([
      'train',
      '--table',
      `${profile}#demo.public.marketing`,
      ...ARGS,
      '--allow-insecure-http',
      '--out',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    // Queried twice at least: by the precheck in Node and by the page through the proxy.
    expect(server.log.filter(e => e.kind === 'api' && e.path.endsWith('/query')).length).toBeGreaterThanOrEqual(2)
    expect(server.log.filter(e => e.kind === 'file').every(e => e.authorization === undefined)).toBe(true)
  })
})
