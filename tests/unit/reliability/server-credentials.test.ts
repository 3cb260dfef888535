/**
 * Credentials stay with the table: a bearer token (`--token` / SNAPTRAIN_TOKEN) goes to the
 * table's origin and nowhere else, even when the log names a data file on another server (two
 * fault servers on two ports), and never appears in stdout or stderr, whether the scan succeeds
 * or fails. Manifests redact signed URLs' query values and URL passwords.
 */
import { describe, expect, it } from 'vitest'
import { run } from '../../../src/cli/scan.ts'
import { manifestTable } from '../../../src/run/manifest.ts'
import { redactUrl, redactUrls } from '../../../src/util/redact.ts'
import type { ScanPlan } from '../../../src/data/types.ts'
import { runMain } from '../../support/cli.ts'
import { useTwoOrigins } from '../../support/two-origins.ts'

const TOKEN = 's3cr3t-t0ken-8f2a'
const AUTH = `Bearer ${TOKEN}`

const origins = useTwoOrigins(AUTH, 'snaptrain-creds-')

async function scanInProcess(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = []
  const code = await run(['--table', origins.a.tableUrl, '--columns', 'age,y', ...args], {
    out: l => lines.push(l),
    err: l => lines.push(l),
  })
  return { code, text: lines.join('\n') }
}

describe('a bearer token', () => {
  it('is sent to the table origin only, never to another server the log points at', async () => {
    origins.a.requests.length = 0
    origins.b.requests.length = 0
    const r = await scanInProcess(['--token', TOKEN, '--json'])
    expect(r.code, r.text).toBe(0)
    expect(r.text).not.toContain(TOKEN)
    const gets = origins.a.requests.filter(q => q.method === 'GET')
    expect(gets.length).toBeGreaterThan(2)
    for (const q of gets) expect(q.authorization, q.path).toBe(AUTH)
    expect(origins.b.requests.length).toBeGreaterThan(0) // the file on B was read …
    for (const q of origins.b.requests) expect(q.authorization, q.path).toBeUndefined() // … without the token
  })

  it('SNAPTRAIN_TOKEN works the same and is never printed (rows, summary, or errors)', async () => {
    const ok = await runMain(['scan', '--table', origins.a.tableUrl, '--columns', 'age,y', '--json'], {
      SNAPTRAIN_TOKEN: TOKEN,
    })
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout + ok.stderr).not.toContain(TOKEN)
    const debug = await runMain(['scan', '--table', `${origins.a.tableUrl}nope/`, '--json'], {
      SNAPTRAIN_TOKEN: TOKEN,
      SNAPTRAIN_DEBUG: '1',
    })
    expect(debug.code).toBe(1)
    expect(debug.stdout + debug.stderr).not.toContain(TOKEN)
  })

  it('without it the table origin answers 401 and the message names the URL', async () => {
    const r = await scanInProcess([])
    expect(r.code).toBe(1)
    expect(r.text).toMatch(new RegExp(`${origins.a.tableUrl}\\S*: 401`))
  })
})

describe('manifests', () => {
  it('progress lines: every URL in a message is redacted, the rest kept', () => {
    expect(redactUrls('planning and loading https://h.test/t/?sig=S3CRET and http://u:pw@h.test/v/ now')).toBe(
      'planning and loading https://h.test/t/?sig=REDACTED and http://h.test/v/ now',
    )
    expect(redactUrls('no url here')).toBe('no url here')
  })

  it('redact signed-URL query values and URL passwords, keeping the rest', () => {
    expect(
      redactUrl(
        'https://origins.b.s3.amazonaws.com/t/?X-Amz-Credential=AKIA1%2Fx&X-Amz-Signature=deadbeef&x-id=GetObject',
      ),
    ).toBe('https://origins.b.s3.amazonaws.com/t/?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&x-id=REDACTED')
    expect(redactUrl('https://user:pa55@host.test/t/')).toBe('https://host.test/t/')
    expect(redactUrl('http://127.0.0.1:5/t/')).toBe('http://127.0.0.1:5/t/')
    expect(redactUrl('part-0.parquet')).toBe('part-0.parquet')
    const plan = {
      tableUrl: 'https://acct.blob.core.windows.net/c/t/?sv=2024&sig=SECRETSIG&se=2030',
      version: 3,
      digest: 'd',
      files: [{ path: 'https://x.test/p.parquet?token=SECRETTOK', size: 10, metadata: {}, partitionValues: {} }],
      units: [],
      stats: { rows: 7 },
    } as unknown as ScanPlan
    const text = JSON.stringify(manifestTable(plan))
    expect(text).not.toMatch(/SECRETSIG|SECRETTOK/)
    expect(text).toContain('sig=REDACTED')
  })
})
