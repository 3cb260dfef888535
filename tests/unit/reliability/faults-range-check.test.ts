/**
 * The fetch layer's checks of ranged answers (src/table/range-check.ts through retryingFetch):
 * wrong spans fail at once naming URL and range, short answers are retried, a file whose ETag or
 * size changes between reads of one reader (or differs from the log's size) fails as changed,
 * and headers a server does not expose are not held against it.
 */
import { describe, expect, it } from 'vitest'
import { retryingFetch } from '../../../src/table/http.ts'
import { FileMemory } from '../../../src/table/range-check.ts'
import { TableError, type FetchLike } from '../../../src/table/types.ts'

const URL_X = 'http://h.test/t/x.parquet'
const FILE: Uint8Array<ArrayBuffer> = new Uint8Array(100).map((_, i) => i)

type Answer = {
  status?: number
  range?: [number, number]
  body?: Uint8Array
  etag?: string
  total?: number
  hide?: boolean
}

/** A fake server: each call answers the next scripted answer (the last one repeats). */
function scripted(answers: Answer[]): FetchLike & { calls: number } {
  const fetch = Object.assign(
    async () => {
      const a = answers[Math.min(fetch.calls++, answers.length - 1)]
      const [s, e] = a.range ?? [0, FILE.length - 1]
      const headers: Record<string, string> = {}
      if (!a.hide) {
        headers['Content-Range'] = `bytes ${s}-${e}/${a.total ?? FILE.length}`
        headers.ETag = a.etag ?? '"v1"'
      }
      return new Response((a.body ?? FILE.slice(s, e + 1)) as Uint8Array<ArrayBuffer>, {
        status: a.status ?? 206,
        headers,
      })
    },
    { calls: 0 },
  )
  return fetch
}

async function get(fake: FetchLike, range: string, memory = new FileMemory()): Promise<Uint8Array | TableError> {
  return retryingFetch(
    { fetch: fake, backoffMs: 1 },
    undefined,
    memory,
  )(URL_X, { headers: { Range: range } }).then(
    async r => new Uint8Array(await r.arrayBuffer()),
    (e: TableError) => e,
  )
}

describe('ranged answers', () => {
  it('accepts the asked span, suffix ranges and ends past EOF resolved as RFC 9110 says', async () => {
    expect(await get(scripted([{ range: [10, 19] }]), 'bytes=10-19')).toEqual(FILE.slice(10, 20))
    expect(await get(scripted([{ range: [90, 99] }]), 'bytes=-10')).toEqual(FILE.slice(90))
    expect(await get(scripted([{ range: [95, 99] }]), 'bytes=95-200')).toEqual(FILE.slice(95))
  })

  it('other bytes than asked: fails at once, naming URL, the asked and the answered range', async () => {
    const fake = scripted([{ range: [0, 9] }, { range: [10, 19] }])
    const e = await get(fake, 'bytes=10-19')
    expect(e).toBeInstanceOf(TableError)
    expect((e as TableError).code).toBe('bad-response')
    expect((e as TableError).message).toBe(
      `GET ${URL_X}: wrong bytes: asked for bytes=10-19, the server answered bytes 0-9`,
    )
    expect(fake.calls).toBe(1)
  })

  it('a body shorter than its Content-Range, or a shorter range, is retried', async () => {
    const fake = scripted([{ range: [10, 19], body: FILE.slice(10, 15) }, { range: [10, 14] }, { range: [10, 19] }])
    expect(await get(fake, 'bytes=10-19')).toEqual(FILE.slice(10, 20))
    expect(fake.calls).toBe(3)
  })

  it('a changed ETag or size between two reads of one reader fails as changed-file', async () => {
    const memory = new FileMemory()
    expect(await get(scripted([{ range: [0, 9] }]), 'bytes=0-9', memory)).toEqual(FILE.slice(0, 10))
    const e = await get(scripted([{ range: [10, 19], etag: '"v2"' }]), 'bytes=10-19', memory)
    expect((e as TableError).code).toBe('changed-file')
    expect((e as TableError).message).toContain(`GET ${URL_X}: file changed while reading (ETag was "v1", now "v2")`)
    const logged = new FileMemory()
    logged.expect(URL_X, { size: 100 })
    const bigger = await get(scripted([{ range: [0, 9], total: 120 }]), 'bytes=0-9', logged)
    expect((bigger as TableError).message).toContain('(size was 100, now 120)')
  })

  it('a 200 to a ranged GET (Range ignored) passes; unexposed headers are not checked', async () => {
    expect(await get(scripted([{ status: 200, hide: true }]), 'bytes=10-19')).toEqual(FILE)
    expect(await get(scripted([{ range: [10, 19], hide: true, body: FILE.slice(10, 20) }]), 'bytes=10-19')).toEqual(
      FILE.slice(10, 20),
    )
  })
})
