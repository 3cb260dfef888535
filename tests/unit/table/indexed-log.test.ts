/**
 * A table's log as a static index carries it (src/table/listing.ts IndexedLog, written by
 * tools/build/demo.mjs indexedLog and read through src/sources/folder/catalog.ts): the reader then
 * asks a host without listing no listing, no `_last_checkpoint` and no probe, and what it reads is
 * the snapshot and history that probing the same host gives.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { listCommits, openSnapshot } from '../../../src/table/index.ts'
import { indexedListing, parseIndexedLog, pad20, type IndexedLog } from '../../../src/table/listing.ts'
import type { FetchLike } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const ROOT = join(import.meta.dirname, '../../conformance')
/** The demo build's reading of a table folder's log (an .mjs module, typed here). */
const { indexedLog } = (await import(join(import.meta.dirname, '../../../tools/build/demo.mjs'))) as {
  indexedLog(tableDir: string): IndexedLog
}
const url = (name: string) => `http://table.test/golden/${name}/`

/** A static host (no listing) over `root` that records each request with its status. */
function staticHost(root = ROOT): FetchLike & { seen: string[] } {
  const files = fileFetch(root, { listing: false })
  const seen: string[] = []
  const fetch = async (input: string, init?: RequestInit) => {
    const res = await files(input, init)
    seen.push(`${init?.method ?? 'GET'} ${input.replace('http://table.test/golden/', '')} ${res.status}`)
    return res
  }
  return Object.assign(fetch, { seen })
}

/** The snapshot and history of `root`/golden/`name` at `version`, probed, and read with its index entry. */
async function bothWays(name: string, root: string, version?: number) {
  const dir = root
  const log = indexedLog(join(root, 'golden', name))
  const probe = staticHost(dir)
  const indexed = staticHost(dir)
  const indexedLogs = { [url(name)]: log }
  return {
    log,
    probed: await openSnapshot(url(name), { fetch: probe, version }),
    read: await openSnapshot(url(name), { fetch: indexed, version, indexedLogs }),
    probedHistory: await listCommits(url(name), { fetch: probe }),
    readHistory: await listCommits(url(name), { fetch: indexed, indexedLogs }),
    probes: probe.seen,
    asks: indexed.seen,
  }
}

let cleaned: string | undefined
afterAll(() => cleaned && rmSync(cleaned, { recursive: true, force: true }))

describe('a log read from its index entry', () => {
  it.each([
    ['time-travel-start-start20-start40', undefined], // commits only
    ['basic-dv-with-checkpoint', undefined], // classic checkpoint at 40, commits to 46
    ['basic-dv-with-checkpoint', 12], // time travel before the checkpoint: commits from 0
    ['multi-part-checkpoint', undefined],
    ['v2-checkpoint-parquet', undefined],
    ['only-checkpoint-files', 1],
  ])('%s at version %s: the probed snapshot and history, without a 404 or a probe', async (name, version) => {
    const got = await bothWays(name, ROOT, version)
    expect(got.read).toEqual(got.probed)
    expect(got.readHistory).toEqual(got.probedHistory)
    expect(got.probes.some(r => r.endsWith(' 404'))).toBe(true) // probing asks for what is not there
    expect(got.asks.filter(r => !/ 20[06]$/.test(r))).toEqual([])
    // No probe: no HEAD of a commit, no _last_checkpoint (a multi-part checkpoint's parts are sized by HEAD).
    expect(got.asks.filter(r => /^HEAD .*\d{20}\.json /.test(r) || r.includes('_last_checkpoint'))).toEqual([])
  })

  it('a log whose oldest commits were cleaned up: commits from the oldest left, the hinted checkpoint', async () => {
    cleaned = mkdtempSync(join(tmpdir(), 'indexed-log-'))
    const dir = join(cleaned, 'golden')
    cpSync(join(ROOT, 'golden', 'basic-dv-with-checkpoint'), join(dir, 'basic-dv-with-checkpoint'), { recursive: true })
    for (let v = 0; v < 30; v++) rmSync(join(dir, 'basic-dv-with-checkpoint', '_delta_log', `${pad20(v)}.json`))
    const got = await bothWays('basic-dv-with-checkpoint', cleaned)
    expect(got.log).toEqual({ earliest: 30, latest: 46, lastCheckpoint: expect.objectContaining({ version: 40 }) })
    expect(got.read).toEqual(got.probed)
    expect(got.read.version).toBe(46)
    // The history is every commit left, as a listing host names them (probing starts after the hint).
    const listed = await listCommits(url('basic-dv-with-checkpoint'), { fetch: fileFetch(cleaned) })
    expect(got.readHistory.map(c => c.version)).toEqual(listed.map(c => c.version))
    expect(got.readHistory.map(c => c.version)).toEqual(Array.from({ length: 17 }, (_, i) => 30 + i))
    expect(got.asks.filter(r => !/ 20[06]$/.test(r))).toEqual([])
  })

  it('the listing an entry stands for: commits earliest..latest, the hint as the checkpoint', () => {
    const t = url('t')
    const listing = indexedListing(t, {
      indexedLogs: { [t]: { earliest: 2, latest: 4, lastCheckpoint: { version: 3 } } },
    })
    expect(listing).toEqual({
      source: 'index',
      commits: [2, 3, 4].map(v => ({ version: v, url: `${t}_delta_log/${pad20(v)}.json` })),
      checkpoints: [{ version: 3, kind: 'classic', parts: [{ url: `${t}_delta_log/${pad20(3)}.checkpoint.parquet` }] }],
    })
    expect(indexedListing(url('other'), {})).toBeUndefined()
  })

  it.each([
    [null, /tables\[0\]\.log: expected \{"earliest": n, "latest": n\}/],
    [{ earliest: 0 }, /expected \{"earliest": n, "latest": n\}.*\{"earliest":0\}/],
    [{ earliest: -1, latest: 2 }, /expected \{"earliest"/],
    [{ earliest: 1.5, latest: 2 }, /expected \{"earliest"/],
    [{ earliest: 3, latest: 2 }, /earliest 3 is after latest 2/],
    [{ earliest: 0, latest: 2, lastCheckpoint: {} }, /lastCheckpoint must be a _last_checkpoint body/],
    [{ earliest: 0, latest: 2, lastCheckpoint: { version: 5 } }, /lastCheckpoint\.version 5 is after latest 2/],
  ])('a bad entry %j is refused naming the index and entry', (value, message) => {
    expect(() => parseIndexedLog(value, 'http://h/tables/index.json', 'tables[0].log')).toThrow(message)
    expect(() => parseIndexedLog(value, 'http://h/tables/index.json', 'tables[0].log')).toThrow(
      /^http:\/\/h\/tables\/index\.json: /,
    )
  })
})
