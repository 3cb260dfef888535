import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { crc32, deletionVectorUrls, loadDeletionVector } from '../../../src/table/deletion-vector.ts'
import { TableError, type DeletionVectorDescriptor, type FetchLike } from '../../../src/table/types.ts'
import { z85Encode } from '../../../src/table/z85.ts'
import { craftedBitmap, deltaBitmap, dvFile } from './roaring-fixtures.ts'

const TABLE = 'http://host/t/'
/** uuid 00112233-4455-6677-8899-aabbccddeeff as 16 bytes, then as a Z85 id. */
const UUID = '00112233-4455-6677-8899-aabbccddeeff'
const UUID_ID = z85Encode(Uint8Array.from(UUID.replace(/-/g, '').match(/../g)!, h => parseInt(h, 16)))

/** In-memory fake fetch with Range support; records requested URLs. */
function memoryFetch(files: Record<string, Uint8Array>, seen: string[] = []): FetchLike {
  return async (url, init) => {
    seen.push(url)
    const body = files[url]
    if (!body) return new Response(null, { status: 404 })
    const range = new Headers(init?.headers).get('Range')
    const match = range && /bytes=(\d+)-(\d+)/.exec(range)
    if (!match) return new Response(body as BodyInit, { status: 200 })
    return new Response(body.slice(Number(match[1]), Number(match[2]) + 1), { status: 206 })
  }
}

function descriptor(over: Partial<DeletionVectorDescriptor>): DeletionVectorDescriptor {
  return { storageType: 'u', pathOrInlineDv: UUID_ID, offset: 1, sizeInBytes: 0, cardinality: 0, ...over }
}

describe('deletion vectors', () => {
  const first = deltaBitmap([3, 5, 8], 'plain')
  const second = deltaBitmap([0, 100_000], 'run')
  const { file, offsets } = dvFile([first, second], crc32)

  test('crc32 matches the standard check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926)
  })

  test("'u' with a random prefix reads the second DV of a shared file by offset", async () => {
    const seen: string[] = []
    const fetch = memoryFetch({ [`${TABLE}ab/deletion_vector_${UUID}.bin`]: file }, seen)
    const dv = descriptor({
      pathOrInlineDv: `ab${UUID_ID}`,
      offset: offsets[1],
      sizeInBytes: second.length,
      cardinality: 2,
    })
    expect(await loadDeletionVector(dv, TABLE, { fetch })).toEqual([0, 100_000])
    expect(seen).toEqual([`${TABLE}ab/deletion_vector_${UUID}.bin`])
  })

  test("'u' falls back to Delta's test file name (test%dv%prefix-) only on 404", async () => {
    const fetch = memoryFetch({ [`${TABLE}test%25dv%25prefix-deletion_vector_${UUID}.bin`]: file })
    const dv = descriptor({ offset: offsets[0], sizeInBytes: first.length, cardinality: 3 })
    expect(await loadDeletionVector(dv, TABLE, { fetch })).toEqual([3, 5, 8])
  })

  test("'p' absolute path on the table's origin, and a server that ignores Range", async () => {
    const url = 'http://host/dv/file.bin'
    const whole: FetchLike = async u =>
      u === url ? new Response(file as BodyInit, { status: 200 }) : new Response(null, { status: 404 })
    const dv = descriptor({
      storageType: 'p',
      pathOrInlineDv: url,
      offset: offsets[1],
      sizeInBytes: second.length,
      cardinality: 2,
    })
    expect(await loadDeletionVector(dv, TABLE, { fetch: whole })).toEqual([0, 100_000])
  })

  test("'p' keeps the URI's %-escapes as they are (the server decodes them once)", () => {
    const dv = descriptor({ storageType: 'p', pathOrInlineDv: 'http://host/t/dv%20dir/a&b%25c%20d.bin' })
    expect(deletionVectorUrls(dv, TABLE)).toEqual(['http://host/t/dv%20dir/a&b%25c%20d.bin'])
  })

  const offOrigin = ['http://other/dv/file.bin', 'https://host/t/dv.bin', 's3://bucket/t/dv.bin', 'file:/tmp/t/dv.bin']
  for (const path of offOrigin) {
    test(`'p' off the table's origin is refused before any request: ${path}`, async () => {
      const seen: string[] = []
      const dv = descriptor({ storageType: 'p', pathOrInlineDv: path, sizeInBytes: second.length, cardinality: 2 })
      const opts = { fetch: memoryFetch({ [path]: file }, seen), headers: { Authorization: 'Bearer secret' } }
      const error = await loadDeletionVector(dv, TABLE, opts).catch(e => e)
      expect(error).toBeInstanceOf(TableError)
      expect(error.code).toBe('unsupported-feature')
      expect(error.message).toContain(`deletion vector path '${path}' is not on the table's origin http://host`)
      expect(seen).toEqual([])
    })
  }

  test("'i' inline bitmap (padded to 4 bytes before Z85)", async () => {
    const padded = new Uint8Array(Math.ceil(first.length / 4) * 4)
    padded.set(first)
    const dv = descriptor({
      storageType: 'i',
      pathOrInlineDv: z85Encode(padded),
      offset: undefined,
      sizeInBytes: first.length,
      cardinality: 3,
    })
    expect(await loadDeletionVector(dv, TABLE, { fetch: memoryFetch({}) })).toEqual([3, 5, 8])
  })

  test('a flipped bitmap byte fails the CRC check, naming the URL', async () => {
    const bad = file.slice()
    bad[offsets[0] + 4 + 10] ^= 1
    const url = `${TABLE}deletion_vector_${UUID}.bin`
    const dv = descriptor({ offset: offsets[0], sizeInBytes: first.length, cardinality: 3 })
    const error = await loadDeletionVector(dv, TABLE, { fetch: memoryFetch({ [url]: bad }) }).catch(e => e)
    expect(error).toBeInstanceOf(TableError)
    expect(error.code).toBe('corrupt-file')
    expect(error.message).toContain(url)
    expect(error.message).toMatch(/CRC-32/)
  })

  test('a size field that disagrees with sizeInBytes, and a wrong cardinality, are corrupt', async () => {
    const url = `${TABLE}deletion_vector_${UUID}.bin`
    const fetch = memoryFetch({ [url]: file })
    const wrongSize = descriptor({ offset: offsets[0], sizeInBytes: first.length - 1, cardinality: 3 })
    await expect(loadDeletionVector(wrongSize, TABLE, { fetch })).rejects.toThrow(/size field/)
    const wrongCount = descriptor({ offset: offsets[0], sizeInBytes: first.length, cardinality: 4 })
    await expect(loadDeletionVector(wrongCount, TABLE, { fetch })).rejects.toThrow(
      /holds 3 deleted rows, the log says 4/,
    )
  })

  test('an invalid bitmap inside a valid frame is corrupt, naming the file and the broken rule', async () => {
    const bad = craftedBitmap([{ key: 0, kind: 'array', values: [1, 9, 7] }])
    const url = `${TABLE}deletion_vector_${UUID}.bin`
    const fetch = memoryFetch({ [url]: dvFile([bad], crc32).file })
    const dv = descriptor({ sizeInBytes: bad.length, cardinality: 3 })
    const error = await loadDeletionVector(dv, TABLE, { fetch }).catch(e => e)
    expect(error).toBeInstanceOf(TableError)
    expect(error.code).toBe('corrupt-file')
    expect(error.url).toBe(url)
    expect(error.message).toBe(
      `${url}: corrupt deletion vector: array container 0 of bucket 0: ` +
        'values not strictly ascending at index 2 (7 after 9)',
    )
  })

  test('an invalid inline bitmap is named by its data file', async () => {
    const bad = craftedBitmap([
      {
        key: 0,
        kind: 'run',
        runs: [
          [4, 3],
          [6, 0],
        ],
      },
    ])
    const padded = new Uint8Array(Math.ceil(bad.length / 4) * 4)
    padded.set(bad)
    const inline = { storageType: 'i' as const, pathOrInlineDv: z85Encode(padded), offset: undefined }
    const dv = descriptor({ ...inline, sizeInBytes: bad.length, cardinality: 5 })
    const dataFile = `${TABLE}part-0.parquet`
    const error = await loadDeletionVector(dv, TABLE, { fetch: memoryFetch({}) }, dataFile).catch(e => e)
    expect(error.code).toBe('corrupt-file')
    expect(error.message).toContain(`inline deletion vector of ${dataFile}: corrupt deletion vector: run container 0`)
  })

  test('a missing DV file is an http error naming the URL', async () => {
    const dv = descriptor({ sizeInBytes: first.length, cardinality: 3 })
    const error = await loadDeletionVector(dv, TABLE, { fetch: memoryFetch({}), attempts: 1 }).catch(e => e)
    expect(error.code).toBe('http')
    expect(error.message).toContain('deletion_vector_')
  })

  test('candidate URLs for a prefixed id', () => {
    expect(deletionVectorUrls(descriptor({ pathOrInlineDv: `r9${UUID_ID}` }), TABLE)[0]).toBe(
      `${TABLE}r9/deletion_vector_${UUID}.bin`,
    )
  })

  test('a real DV file from the golden table table-with-dv-large', async () => {
    const root = fileURLToPath(new URL('../../conformance/golden/table-with-dv-large/', import.meta.url))
    const name = 'test%dv%prefix-deletion_vector_44ccbf3f-b223-4581-9cd8-a7e569120ada.bin'
    const fetch = memoryFetch({ [`${TABLE}${encodeURIComponent(name)}`]: new Uint8Array(readFileSync(root + name)) })
    const dv = descriptor({ pathOrInlineDv: 'm9JzgVlI!?Oy<+3x+y^b', offset: 85, sizeInBytes: 34, cardinality: 1 })
    const deleted = await loadDeletionVector(dv, TABLE, { fetch })
    expect(deleted).toHaveLength(1)
    expect(deleted[0]).toBeGreaterThanOrEqual(0)
  })
})
