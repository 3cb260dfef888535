import { asyncBufferFromUrl } from 'hyparquet'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fetchBytes, fetchJson, fetchOptional, retryingFetch } from '../../../src/table/http.ts'
import { TableError, type FetchLike } from '../../../src/table/types.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const URL_X = 'http://h.test/t/x.parquet'

/** A fake fetch answering from a script of statuses (or thrown errors), recording the calls. */
function scripted(script: (number | Error)[]): FetchLike & { calls: RequestInit[] } {
  const calls: RequestInit[] = []
  const fetch = async (_url: string, init?: RequestInit) => {
    calls.push(init ?? {})
    const step = script[Math.min(calls.length - 1, script.length - 1)]
    if (step instanceof Error) throw step
    return new Response(step === 204 ? null : `body ${calls.length}`, { status: step, statusText: statusText(step) })
  }
  return Object.assign(fetch, { calls })
}

function statusText(status: number): string {
  return (
    (
      { 200: 'OK', 404: 'Not Found', 503: 'Service Unavailable', 500: 'Internal Server Error' } as Record<
        number,
        string
      >
    )[status] ?? ''
  )
}

async function caught(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  return error as TableError
}

describe('retryingFetch', () => {
  it('retries 5xx and returns the first success', async () => {
    const fake = scripted([503, 500, 200])
    const res = await retryingFetch({ fetch: fake, backoffMs: 1 })(URL_X)
    expect(await res.text()).toBe('body 3')
    expect(fake.calls.length).toBe(3)
  })

  it('does not retry a 4xx and names URL and status', async () => {
    const fake = scripted([404, 200])
    const error = await caught(retryingFetch({ fetch: fake, backoffMs: 1 })(URL_X))
    expect(error.code).toBe('http')
    expect(error.message).toBe(`GET ${URL_X}: 404 Not Found`)
    expect(fake.calls.length).toBe(1)
  })

  it('returns HEAD answers as they are (hyparquet falls back to a ranged GET on 403)', async () => {
    const fake = scripted([403])
    const res = await retryingFetch({ fetch: fake })(URL_X, { method: 'HEAD' })
    expect(res.status).toBe(403)
  })

  it('gives up after `attempts` server errors', async () => {
    const fake = scripted([503])
    const error = await caught(retryingFetch({ fetch: fake, attempts: 3, backoffMs: 1 })(URL_X))
    expect(error.message).toBe(`GET ${URL_X}: 503 Service Unavailable`)
    expect(fake.calls.length).toBe(3)
  })

  it('retries network errors and reports the cause', async () => {
    const fake = scripted([new TypeError('fetch failed: ECONNRESET')])
    const error = await caught(retryingFetch({ fetch: fake, attempts: 2, backoffMs: 1 })(URL_X))
    expect(error.message).toBe(`GET ${URL_X}: network error: fetch failed: ECONNRESET`)
    expect(fake.calls.length).toBe(2)
  })

  it('times out a body that never finishes', async () => {
    const stalled: FetchLike = async (_url, init) =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new Uint8Array([1]))
            init?.signal?.addEventListener('abort', () => controller.error(new Error('aborted')))
          },
        }),
      )
    const start = Date.now()
    const error = await caught(retryingFetch({ fetch: stalled, timeoutMs: 50, attempts: 1 })(URL_X))
    expect(error.message).toBe(`GET ${URL_X}: timed out after 50 ms`)
    expect(Date.now() - start).toBeLessThan(2000)
  })

  it('does not retry when the caller aborts', async () => {
    const fake = scripted([200])
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(retryingFetch({ fetch: fake })(URL_X, { signal: controller.signal })).rejects.toThrow('stop')
    expect(fake.calls.length).toBe(0)
  })

  it('passes the Range header through and keeps 206', async () => {
    const fake = scripted([206])
    await retryingFetch({ fetch: fake })(URL_X, { headers: { Range: 'bytes=0-9' } })
    expect(new Headers(fake.calls[0].headers).get('Range')).toBe('bytes=0-9')
  })

  it('sends extra headers only to the table origin', async () => {
    const fake = scripted([200])
    const fetch = retryingFetch({ fetch: fake, headers: { Authorization: 'Bearer t' } }, 'https://h.test/t/')
    await fetch('https://h.test/t/x.parquet')
    await fetch('https://other.test/y')
    expect(new Headers(fake.calls[0].headers).get('Authorization')).toBe('Bearer t')
    expect(new Headers(fake.calls[1].headers).get('Authorization')).toBeNull()
  })

  it('serves hyparquet asyncBufferFromUrl range reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'http-test-'))
    writeFileSync(join(dir, 'f.bin'), new Uint8Array(Array.from({ length: 100 }, (_, i) => i)))
    const files = fileFetch(dir)
    const buffer = await asyncBufferFromUrl({
      url: 'http://table.test/f.bin',
      fetch: retryingFetch({ fetch: files }) as typeof globalThis.fetch,
    })
    expect(buffer.byteLength).toBe(100)
    expect([...new Uint8Array(await buffer.slice(10, 13))]).toEqual([10, 11, 12])
    expect(files.requests.at(-1)?.range).toBe('bytes=10-12')
  })
})

describe('fetch helpers', () => {
  it('fetchBytes cuts the range when the server ignores Range', async () => {
    const whole: FetchLike = async () => new Response(new Uint8Array([0, 1, 2, 3, 4, 5]), { status: 200 })
    expect([...(await fetchBytes(URL_X, { fetch: whole }, [2, 5]))]).toEqual([2, 3, 4])
  })

  it('fetchJson names the URL of a non-JSON body', async () => {
    const fake = scripted([200])
    const error = await caught(fetchJson(URL_X, { fetch: fake }))
    expect(error.code).toBe('malformed-log')
    expect(error.message).toContain(URL_X)
  })

  it('fetchOptional resolves undefined on 404 and falls back to GET when HEAD is refused', async () => {
    expect(await fetchOptional(URL_X, { fetch: scripted([404]) }, 'HEAD')).toBeUndefined()
    const fake = scripted([405, 200])
    const res = await fetchOptional(URL_X, { fetch: fake }, 'HEAD')
    expect(res?.status).toBe(200)
    expect(fake.calls.map(c => c.method)).toEqual(['HEAD', 'GET'])
  })
})

describe('answers hand their body over without copies', () => {
  it('arrayBuffer() is the buffer read (the same one each call); text() reads the same bytes', async () => {
    const bytes = new TextEncoder().encode('0123456789')
    const fake: FetchLike = async (_url, init) => {
      const range = new Headers(init?.headers).get('Range')
      expect(range).toBe('bytes=2-5')
      return new Response(bytes.slice(2, 6), {
        status: 206,
        headers: { 'Content-Range': 'bytes 2-5/10', 'Content-Length': '4' },
      })
    }
    const res = await retryingFetch({ fetch: fake })(URL_X, { headers: { Range: 'bytes=2-5' } })
    const a = await res.arrayBuffer()
    expect(new TextDecoder().decode(a)).toBe('2345')
    expect(await res.arrayBuffer()).toBe(a)
    expect(await res.text()).toBe('2345')
    expect(new TextDecoder().decode(await fetchBytes(URL_X, { fetch: fake }, [2, 6]))).toBe('2345')
  })
})
