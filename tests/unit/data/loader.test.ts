import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expose } from 'comlink'
import { createLoader, type LoaderOptions } from '../../../src/data/loader.ts'
import { createLoaderService, transferables } from '../../../src/data/loader-service.ts'
import { utf8Strings } from '../../../src/data/decode.ts'
import { readSchedule } from '../../../src/data/read-schedule.ts'
import { rankStream } from '../../../src/data/stream.ts'
import { createUnitReader } from '../../../src/data/unit-reader.ts'
import type { Batch, DecodeSpec, DecodedUnit, RankSegment } from '../../../src/data/types.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { Rng } from '../../../src/util/rng.ts'
import type { FetchLike } from '../../../src/table/types.ts'
import { CLICKS, firstMismatch, openFixture, type Fixture } from './loader-fixtures.ts'

const SPEC: DecodeSpec = { user_id: 'hash32', item_id: 'hash32' }
const COLUMNS = ['user_id', 'item_id', 'country', 'dense_2', 'emb', 'label']

async function collect(
  fx: Fixture,
  opts: Partial<LoaderOptions>,
  stopAfter = Infinity,
): Promise<{ batches: Batch[]; loader: ReturnType<typeof createLoader> }> {
  const loader = createLoader(fx.plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 1000,
    spec: SPEC,
    ids: true,
    workers: 0,
    http: { fetch: fx.fetch },
    cache: false, // these tests read the table (retries, bounds), not the epoch cache (unit-cache.test.ts)
    ...opts,
  })
  const batches: Batch[] = []
  for await (const batch of loader.batches()) {
    batches.push(batch)
    if (batches.length >= stopAfter) break
  }
  return { batches, loader }
}

/** Column values of batches concatenated. */
function flat(batches: Batch[], name: string): number[] {
  const out: number[] = []
  for (const b of batches) for (const v of b.columns[name].values) out.push(v)
  return out
}

/** Element-wise equality (NaN equals NaN) without a slow deep diff of huge arrays. */
function expectSame(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length)
  expect(firstMismatch(got, want), `${what}: first differing index`).toBe(-1)
}
function ids(batches: Batch[]): string[] {
  return batches.flatMap(b => Array.from(b.ids!.unit, (u, i) => `${u}:${b.ids!.row[i]}`))
}

describe('createLoader (in-process) on clicks', () => {
  let fx: Fixture
  let units: DecodedUnit[]
  beforeAll(async () => {
    fx = await openFixture(CLICKS, COLUMNS, false)
    const reader = createUnitReader(fx.plan, SPEC, { fetch: fx.fetch })
    units = await Promise.all(fx.plan.units.map(u => reader.read(u.id)))
  }, 60_000)

  const ASSIGNS = [
    { seed: 5, epoch: 1, worldSize: 2, rank: 1, shuffleBuffer: 5000 },
    { seed: 8, epoch: 0, worldSize: 4, rank: 3, shuffleBuffer: 20000, mode: 'pad' as const },
    { epoch: 0, worldSize: 3, rank: 0 },
  ]
  it.each(ASSIGNS)(
    'delivers exactly the stream order (rowsAt) in batches, with identities and values: %o',
    async assign => {
      const { batches, loader } = await collect(fx, { assign, batchSize: 777 })
      const stream = rankStream(fx.plan, assign)
      const { unit, index } = stream.rowsAt(0, stream.length)
      expect(batches.map(b => b.size)).toEqual(
        Array.from({ length: Math.ceil(stream.length / 777) }, (_, i) => Math.min(777, stream.length - i * 777)),
      )
      expect(batches.map(b => b.position)).toEqual(batches.map((_, i) => i * 777))
      const want = Array.from(
        unit,
        (u, i) => `${u}:${fx.plan.units[u].live?.[index[i]] ?? fx.plan.units[u].rowStart + index[i]}`,
      )
      expect(ids(batches)).toEqual(want)
      for (const name of ['user_id', 'country', 'dense_2', 'label']) {
        const expected = Array.from(unit, (u, i) => units[u].columns[name].values[index[i]])
        expectSame(flat(batches, name), expected, name)
      }
      const emb = flat(batches, 'emb')
      expect(batches[0].columns.emb).toMatchObject({ encoding: 'fixed_list', length: 8 })
      expect(emb.length).toBe(stream.length * 8)
      const i = 123
      expect(emb.slice(i * 8, i * 8 + 8)).toEqual(
        Array.from(units[unit[i]].columns.emb.values.subarray(index[i] * 8, index[i] * 8 + 8)),
      )
      expect(loader.cursor().position).toBe(stream.length)
      expect(loader.stats()).toMatchObject({ rowsDelivered: stream.length, batchesDelivered: batches.length })
    },
  )

  it('delivers a utf8 string column in stream order across units and shuffled batches', async () => {
    const spec: DecodeSpec = { ...SPEC, country: 'utf8' }
    const reader = createUnitReader(fx.plan, spec, { fetch: fx.fetch })
    const perUnit = await Promise.all(
      fx.plan.units.map(async u => utf8Strings((await reader.read(u.id)).columns.country)),
    )
    const assign = { seed: 5, epoch: 1, worldSize: 1, rank: 0, shuffleBuffer: 5000 }
    const { batches } = await collect(fx, { assign, batchSize: 777, spec })
    const { unit, index } = rankStream(fx.plan, assign).rowsAt(0, fx.plan.stats.rows)
    const got = batches.flatMap(b => utf8Strings(b.columns.country))
    expect(got).toEqual(Array.from(unit, (u, i) => perUnit[u][index[i]]))
    expect(new Set(got).size).toBeGreaterThan(2)
    expect(batches[0].columns.country.encoding).toBe('utf8')
  })

  it('resumes from a cursor with exactly the undelivered rows, in the uninterrupted order', async () => {
    const assign = { seed: 9, epoch: 0, worldSize: 3, rank: 2, shuffleBuffer: 3000 }
    const whole = await collect(fx, { assign, batchSize: 512 })
    const first = await collect(fx, { assign, batchSize: 512 }, 17)
    const cursor = JSON.parse(JSON.stringify(first.loader.cursor()))
    expect(cursor.position).toBe(17 * 512)
    await first.loader.close()
    const rest = await collect(fx, { assign: { epoch: 99, worldSize: 1, rank: 0 }, cursor, batchSize: 512 })
    expect([...ids(first.batches), ...ids(rest.batches)]).toEqual(ids(whole.batches))
    expectSame(flat(rest.batches, 'user_id'), flat(whole.batches, 'user_id').slice(17 * 512), 'user_id')
    expect(() => createLoader({ ...fx.plan, digest: 'other' }, { assign, batchSize: 1, cursor, workers: 0 })).toThrow(
      /plan digest/,
    )
  })

  it('delivers the identical sequence when 10% of requests fail (503 or network error)', async () => {
    const rng = new Rng(2024)
    let failed = 0
    const flaky: FetchLike = async (url, init) => {
      const r = rng.next()
      if (r < 0.05) {
        failed++
        return new Response('busy', { status: 503, statusText: 'Service Unavailable' })
      }
      if (r < 0.1) {
        failed++
        throw new TypeError('fetch failed: connection reset')
      }
      return fx.fetch(url, init)
    }
    const assign = { seed: 1, epoch: 0, worldSize: 1, rank: 0 }
    const small = { ...fx, plan: { ...fx.plan, units: fx.plan.units.slice(0, 6) } } // ids stay indices
    const clean = await collect(small, { assign })
    const noisy = await collect(small, { assign, http: { fetch: flaky, backoffMs: 1, attempts: 8 } })
    expect(failed).toBeGreaterThan(0)
    expect(ids(noisy.batches)).toEqual(ids(clean.batches))
    for (const name of ['item_id', 'dense_2', 'emb'])
      expectSame(flat(noisy.batches, name), flat(clean.batches, name), name)
  })

  it('holds a bounded number of decoded units and frees them behind delivery', async () => {
    const biggest = Math.max(...units.map(u => Object.values(u.columns).reduce((n, c) => n + c.values.byteLength, 0)))
    const { batches, loader } = await collect(fx, { batchSize: 4096, prefetchUnits: 2, memoryBytes: 1 })
    const stats = loader.stats()
    expect(batches.reduce((n, b) => n + b.size, 0)).toBe(fx.plan.stats.rows)
    expect(stats.unitsRead).toBe(fx.plan.units.length)
    // Table order: a batch straddles at most two units, so at most two are ever held.
    expect(stats.peakBytes).toBeLessThanOrEqual(2 * biggest)
    expect(stats.bytesDelivered).toBeGreaterThan(5 * stats.peakBytes)
  })

  it('marks every column buffer of a decoded unit for transfer, each its own buffer', async () => {
    await expect(createLoaderService().readUnit(0)).rejects.toThrow(/readUnit before init/)
    const reader = createUnitReader(fx.plan, SPEC, { fetch: fx.fetch })
    const unit = await reader.read(2, { ids: true })
    const buffers = transferables(unit)
    expect(buffers.length).toBe(COLUMNS.length + 1)
    for (const c of Object.values(unit.columns)) expect(c.values.byteLength).toBe(c.values.buffer.byteLength)
  })

  it('refuses bad options by name', () => {
    const assign = { epoch: 0, worldSize: 1, rank: 0 }
    expect(() => createLoader(fx.plan, { assign, batchSize: 0 })).toThrow(/batchSize/)
    expect(() => createLoader(fx.plan, { assign, batchSize: 8, workers: -1 })).toThrow(/workers/)
    expect(() =>
      createLoader(fx.plan, {
        assign,
        batchSize: 8,
        workers: 1,
        http: { fetch: fx.fetch },
        workerFactory: () => ({}) as Worker,
      }),
    ).toThrow(/http.fetch/)
  })
})

describe('readSchedule', () => {
  const seg = (unit: number, needFrom: number, needTo: number): RankSegment => ({
    unit,
    start: 0,
    end: 1,
    position: needFrom,
    needFrom,
    needTo,
  })
  it('merges touching need ranges per unit, keeps far-apart ones as separate reads, sorts by first need', () => {
    const reads = readSchedule([seg(4, 0, 10), seg(2, 5, 20), seg(4, 10, 15), seg(4, 90, 100)])
    expect(reads).toEqual([
      { unit: 4, from: 0, to: 15 },
      { unit: 2, from: 5, to: 20 },
      { unit: 4, from: 90, to: 100 },
    ])
    expect(readSchedule([seg(4, 0, 10), seg(2, 5, 20)], 10)).toEqual([{ unit: 2, from: 5, to: 20 }])
  })
})

/** A Worker stand-in: the loader service exposed over a MessageChannel (same thread, real transfers). */
function channelWorker(): Worker {
  const { port1, port2 } = new MessageChannel()
  expose(createLoaderService(), port2 as unknown as Parameters<typeof expose>[1])
  return Object.assign(port1, {
    terminate: () => {
      port1.close()
      port2.close()
    },
  }) as unknown as Worker
}

describe('createLoader with workers (comlink over MessageChannel, real HTTP server)', () => {
  let server: ServedDirectory
  let fx: Fixture
  beforeAll(async () => {
    server = await serveDirectory(CLICKS)
    fx = await openFixture(CLICKS, COLUMNS, false)
    const files = fx.plan.files.map(f => ({ ...f, url: server.url + f.path }))
    fx.plan = { ...fx.plan, files, units: fx.plan.units.slice(0, 7) } // a few units keep the test fast
  }, 60_000)
  afterAll(() => server?.close())

  it('reports a worker that fails to start instead of waiting forever', async () => {
    const broken = (): Worker => {
      const target = Object.assign(new EventTarget(), { postMessage() {}, terminate() {} })
      setTimeout(
        () => target.dispatchEvent(Object.assign(new Event('error'), { message: 'Failed to fetch module' })),
        5,
      )
      return target as unknown as Worker
    }
    const loader = createLoader(fx.plan, {
      assign: { epoch: 0, worldSize: 1, rank: 0 },
      batchSize: 100,
      workers: 1,
      workerFactory: broken,
      cache: false,
    })
    await expect(loader.batches()[Symbol.asyncIterator]().next()).rejects.toThrow(
      /loader worker 0 failed: Failed to fetch module/,
    )
    await loader.close()
  })

  it('delivers the same batches with 1 and 2 workers as in-process, with transferred buffers', async () => {
    const assign = { seed: 3, epoch: 0, worldSize: 1, rank: 0, shuffleBuffer: 4000 }
    const run = async (workers: number) => {
      const loader = createLoader(fx.plan, {
        assign,
        batchSize: 2048,
        spec: SPEC,
        ids: true,
        workers,
        workerFactory: channelWorker,
        cache: false, // each run reads through its workers
      })
      const batches: Batch[] = []
      for await (const b of loader.batches()) batches.push(b)
      const stats = loader.stats()
      await loader.close()
      return { batches, stats }
    }
    const [inProcess, one, two] = [await run(0), await run(1), await run(2)]
    expect(two.stats.workers).toBe(2)
    expect(two.stats.unitsRead).toBe(fx.plan.units.length)
    for (const other of [one, two]) {
      expect(ids(other.batches)).toEqual(ids(inProcess.batches))
      for (const name of COLUMNS) expectSame(flat(other.batches, name), flat(inProcess.batches, name), name)
    }
  })
})
