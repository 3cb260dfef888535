/**
 * Crafted inputs that claim far more than they hold, or are not what they say: each must be
 * refused within 10 s, naming the file and the limit, without the process growing past a stated
 * memory bound (peak RSS measured for the spawned CLI cases). Inputs are built at test time.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { afterAll, describe, expect, it } from 'vitest'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'
import { decodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import { renderListObjectsV2 } from '../../../src/serve/s3-listing.ts'
import { maxBitmapBytes } from '../../../src/table/deletion-vector.ts'
import { fetchBytes } from '../../../src/table/http.ts'
import { decodeDeletionBitmap, DV_MAGIC } from '../../../src/table/roaring.ts'
import { MAX_SCHEMA_DEPTH } from '../../../src/table/schema.ts'
import { openSnapshot } from '../../../src/table/snapshot.ts'
import { z85Encode } from '../../../src/table/z85.ts'
import { runCliMeasured } from '../../support/cli.ts'

/** Peak RSS a refused CLI case may reach: Node + the TypeScript loader + the CLI, with room to spare. */
const CLI_RSS_MIB = 400
/** Each case answers within this. */
const ANSWER_MS = 10_000

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-hostile-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A one-file table of `rows` long ids, with `extra` actions in its only commit and `schema` in its metaData. */
function table(name: string, rows: number, opts: { dv?: object; schemaString?: string } = {}): string {
  const dir = join(tmp, name)
  mkdirSync(join(dir, '_delta_log'), { recursive: true })
  const bytes = new Uint8Array(
    parquetWriteBuffer({
      columnData: [{ name: 'id', data: Array.from({ length: rows }, (_, i) => BigInt(i)), type: 'INT64' }],
    }),
  )
  writeFileSync(join(dir, 'part-0.parquet'), bytes)
  const schemaString =
    opts.schemaString ??
    JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }] })
  const protocol = opts.dv
    ? {
        minReaderVersion: 3,
        minWriterVersion: 7,
        readerFeatures: ['deletionVectors'],
        writerFeatures: ['deletionVectors'],
      }
    : { minReaderVersion: 1, minWriterVersion: 2 }
  const lines = [
    { protocol },
    {
      metaData: {
        id: name,
        format: { provider: 'parquet', options: {} },
        schemaString,
        partitionColumns: [],
        configuration: {},
      },
    },
    {
      add: {
        path: 'part-0.parquet',
        partitionValues: {},
        size: bytes.byteLength,
        modificationTime: 0,
        dataChange: true,
        stats: JSON.stringify({ numRecords: rows }),
        ...(opts.dv ? { deletionVector: opts.dv } : {}),
      },
    },
  ]
  writeFileSync(join(dir, '_delta_log/00000000000000000000.json'), `${lines.map(l => JSON.stringify(l)).join('\n')}\n`)
  return dir
}

/** A DV bitmap of one bucket with `containers` run containers, each one run over all 65 536 values. */
function fullRunBitmap(containers: number): Uint8Array {
  const out: number[] = []
  const u16 = (v: number) => out.push(v & 0xff, v >>> 8)
  const u32 = (v: number) => {
    u16(v & 0xffff)
    u16(v >>> 16)
  }
  u32(DV_MAGIC)
  u32(1)
  u32(0) // one bucket
  u32(0) // bucket key 0
  u32(12347 | ((containers - 1) << 16))
  for (let i = 0; i < containers; i += 8) out.push(0xff)
  for (let i = 0; i < containers; i++) {
    u16(i)
    u16(0xffff)
  }
  if (containers >= 4) for (let i = 0; i < containers; i++) u32(0)
  for (let i = 0; i < containers; i++) {
    u16(1)
    u16(0)
    u16(0xffff)
  }
  return Uint8Array.from(out)
}

describe('deletion vectors claiming more rows than their file has', () => {
  it('an inline bitmap of 2^32 deleted rows for an 8-row file is refused by scan, bounded in time and memory', async () => {
    const bitmap = fullRunBitmap(65536)
    expect(bitmap.byteLength).toBeGreaterThan(600_000)
    const dv = {
      storageType: 'i',
      pathOrInlineDv: z85Encode(padTo4(bitmap)),
      sizeInBytes: bitmap.byteLength,
      cardinality: 2 ** 32,
    }
    const dir = table('dv-2e32', 8, { dv })
    const r = await runCliMeasured(['scan', '--table', dir, '--json'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('part-0.parquet')
    expect(r.stderr).toContain('the log says it deletes 4294967296 rows, the file has 8')
    expect(r.ms).toBeLessThan(ANSWER_MS)
    expect(r.peakRssMiB).toBeLessThan(CLI_RSS_MIB)
  }, 30_000)

  it('a bitmap whose headers claim more than the log says is refused before its containers are expanded', () => {
    const bitmap = fullRunBitmap(65536)
    const t0 = performance.now()
    expect(() => decodeDeletionBitmap(bitmap, { maxValues: 8, rows: 8 })).toThrow(
      'run container 0 of bucket 0: the headers claim at least 65536 deleted rows, more than the 8 allowed',
    )
    expect(() => decodeDeletionBitmap(fullRunBitmap(2), { maxValues: 2 ** 20, rows: 65536 })).toThrow(
      'run container 1 of bucket 0: holds rows from 65536 on, the file has 65536 rows',
    )
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it('a sizeInBytes beyond what the row count allows is refused before any fetch', async () => {
    expect(maxBitmapBytes(8)).toBeLessThan(20_000)
    const dv = { storageType: 'u', pathOrInlineDv: 'ab'.repeat(10), sizeInBytes: 2 ** 30, cardinality: 4 }
    const dir = table('dv-size', 8, { dv })
    const r = await runCliMeasured(['scan', '--table', dir])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /deletion vector of .*part-0\.parquet: corrupt deletion vector: sizeInBytes 1073741824 is more than a bitmap of 8 rows needs/,
    )
  }, 30_000)
})

function padTo4(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(b.length / 4) * 4)
  out.set(b)
  return out
}

describe('a schema nested deeper than the reader allows', () => {
  it('is refused naming the limit, not with a stack overflow', async () => {
    // Built as text: JSON.stringify itself would overflow the stack on 10 000 levels.
    const type = `${'{"type":"array","elementType":'.repeat(10_000)}"long"${',"containsNull":true}'.repeat(10_000)}`
    const schemaString = `{"type":"struct","fields":[{"name":"deep","type":${type},"nullable":true,"metadata":{}}]}`
    const r = await runCliMeasured(['scan', '--table', table('deep-schema', 1, { schemaString })])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`schema nests types more than ${MAX_SCHEMA_DEPTH} levels deep`)
    expect(r.stderr).not.toContain('Maximum call stack')
    expect(r.ms).toBeLessThan(ANSWER_MS)
    expect(r.peakRssMiB).toBeLessThan(CLI_RSS_MIB)
  }, 30_000)
})

describe('malformed XGBoost models', () => {
  const good = readFileSync(new URL('../../unit/gbdt/fixtures/xgboost-1.7-binary.json', import.meta.url), 'utf8')
  type Tree = Record<string, number[] | unknown>
  /** The fixture with tree 0 changed by `edit`. */
  const crafted = (edit: (t: Tree) => void) => {
    const m = JSON.parse(good)
    edit(m.learner.gradient_booster.model.trees[0])
    return m
  }
  /** Tree 0 replaced by `n` split nodes in a chain whose both children are the next node (2^(n-1) root-to-leaf paths). */
  const dag = (n: number) =>
    crafted(t => {
      const ids = Array.from({ length: n + 1 }, (_, i) => i)
      t.left_children = ids.map(i => (i < n ? i + 1 : -1))
      t.right_children = ids.map(i => (i < n ? i + 1 : -1))
      for (const k of [
        'parents',
        'split_indices',
        'split_conditions',
        'default_left',
        'base_weights',
        'loss_changes',
        'sum_hessian',
        'split_type',
      ]) {
        t[k] = ids.map(() => 0)
      }
    })
  const cases: [string, unknown, string][] = [
    [
      'a split on a feature the model does not have',
      crafted(t => {
        ;(t.split_indices as number[])[0] = 7
      }),
      'trees[0] node 0: splits on feature 7, the model has 4 features',
    ],
    [
      'a child index beyond the tree',
      crafted(t => {
        ;(t.left_children as number[])[1] = 99
      }),
      'trees[0] node 1: child 99 is not a node of the tree (0 to 14)',
    ],
    [
      'arrays of different lengths',
      crafted(t => {
        ;(t.split_conditions as number[]).pop()
      }),
      'trees[0]: split_conditions has 14 entries, left_children has 15',
    ],
    [
      'a cycle',
      crafted(t => {
        ;(t.left_children as number[])[3] = 0
      }),
      'trees[0] node 3: child 0 is reached twice (the nodes do not form a tree)',
    ],
    ['40 nodes sharing children (2^39 paths)', dag(40), 'trees[0] node 0: child 1 is reached twice'],
    [
      'a non-finite threshold',
      crafted(t => {
        ;(t.split_conditions as unknown[])[2] = 'NaN'
      }),
      'trees[0] node 2: split condition / leaf value is not finite',
    ],
    [
      'a node nothing reaches',
      crafted(t => {
        ;(t.left_children as number[])[6] = -1
        ;(t.right_children as number[])[6] = -1
      }),
      'trees[0]: node 13 is not reached from the root (2 such nodes)',
    ],
  ]
  for (const [what, model, message] of cases) {
    it(`refuses ${what} when the model is loaded, naming tree and node`, () => {
      expect(() => fromXGBoostJson(model)).toThrow(message)
    })
  }

  it.each(['--cpu', '--json'])(
    'predict %s refuses a cyclic and a shared-children model before any browser starts',
    async flag => {
      for (const [name, model] of [
        ['cycle', cases[3][1]],
        ['dag', cases[4][1]],
      ] as const) {
        const path = join(tmp, `${name}-model.json`)
        writeFileSync(path, JSON.stringify(model))
        const r = await runCliMeasured(['predict', '--model', path, '--table', join(tmp, 'nowhere'), flag])
        expect(r.code).toBe(2)
        expect(r.stderr).toContain(`--model ${path}: XGBoost model: trees[0]`)
        expect(r.ms).toBeLessThan(ANSWER_MS)
        expect(r.peakRssMiB).toBeLessThan(CLI_RSS_MIB)
      }
    },
    60_000,
  )
})

describe('a recommender checkpoint whose header lies about the file', () => {
  /** A checkpoint file: magic, header JSON and `data` bytes of tensor data. */
  const file = (header: object, data = 64) => {
    const json = new TextEncoder().encode(JSON.stringify(header))
    const start = Math.ceil((12 + json.length) / 8) * 8
    const bytes = new Uint8Array(start + data)
    bytes.set(new TextEncoder().encode('SNAPRCK1'))
    new DataView(bytes.buffer).setUint32(8, json.length, true)
    bytes.set(json, 12)
    return bytes
  }
  const shape = { sparse: 1, dim: 2, totalRows: 4, dense: 0, layers: [2] }
  const header = (patch: object) => ({
    format: 'snaptrain-recsys-checkpoint',
    version: 1,
    shape,
    params: {},
    layout: {},
    loop: {},
    optimizerStep: 0,
    tensors: [{ name: 'embeddings', dtype: 'f32', length: 8, offset: 0 }],
    ...patch,
  })
  const cases: [string, object, string][] = [
    [
      'a negative offset',
      { tensors: [{ name: 'embeddings', dtype: 'f32', length: 8, offset: -16 }] },
      'tensor embeddings: offset -16 is not a whole number ≥ 0',
    ],
    [
      'a length past the end',
      { tensors: [{ name: 'embeddings', dtype: 'f32', length: 2 ** 40, offset: 0 }] },
      'tensor embeddings (1099511627776 × f32 at',
    ],
    [
      'a fractional length',
      { tensors: [{ name: 'embeddings', dtype: 'f32', length: 1.5, offset: 0 }] },
      'tensor embeddings: length 1.5 is not a whole number ≥ 0',
    ],
    [
      'an unknown dtype',
      { tensors: [{ name: 'embeddings', dtype: 'f64', length: 8, offset: 0 }] },
      'tensor embeddings: dtype "f64" is not f32 or u32',
    ],
    [
      'a tensor listed twice',
      {
        tensors: [
          { name: 'embeddings', dtype: 'f32', length: 8, offset: 0 },
          { name: 'embeddings', dtype: 'f32', length: 8, offset: 32 },
        ],
      },
      'tensor embeddings is listed twice',
    ],
    [
      'a shape that is no shape',
      { shape: { ...shape, dim: -3 } },
      'header.shape: model shape: dim must be an integer ≥ 1, got -3',
    ],
    ['no shape', { shape: undefined }, 'header.shape is missing'],
    ['tensors that are not a list', { tensors: { embeddings: 1 } }, 'header.tensors is not an array'],
  ]
  for (const [what, patch, message] of cases) {
    it(`refuses ${what}, naming the file`, () => {
      expect(() => decodeCheckpoint(file(header(patch)), 'model.bin')).toThrow(
        `model.bin: not a recsys checkpoint: ${message}`,
      )
    })
  }
})

describe('bodies and logs that never end', () => {
  /** A loopback server: `/t/_delta_log/<v>.json` per `commits`, and `endless` paths that stream zeros until the client leaves. */
  async function server(commits: string[], endless: (path: string, range?: string) => boolean) {
    const srv = createServer((req, res) => {
      const path = new URL(req.url!, 'http://x').pathname
      if (endless(path, req.headers.range)) {
        if (req.method === 'HEAD') {
          res.writeHead(200).end()
          return
        } // no body: writes would be dropped, never pushed back
        res.writeHead(
          req.headers.range ? 206 : 200,
          req.headers.range ? { 'Content-Range': 'bytes 0-99/1000000000000' } : {},
        )
        const chunk = Buffer.alloc(64 * 1024)
        const pump = () => {
          while (res.write(chunk)) {
            /* until the socket pushes back */
          }
        }
        res.on('drain', pump)
        req.on('close', () => res.destroy())
        return pump()
      }
      const m = /^\/t\/_delta_log\/(\d{20})\.json$/.exec(path)
      const body = m ? commits[Number(m[1])] : undefined
      if (body === undefined) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'Content-Length': Buffer.byteLength(body) }).end(body)
    })
    await new Promise<void>(r => srv.listen(0, '127.0.0.1', r))
    const port = (srv.address() as { port: number }).port
    return { url: `http://127.0.0.1:${port}/t/`, close: () => new Promise(r => srv.close(r)) }
  }
  const COMMIT0 = `${JSON.stringify({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } })}\n${JSON.stringify({
    metaData: {
      id: 'x',
      format: { provider: 'parquet', options: {} },
      partitionColumns: [],
      configuration: {},
      schemaString: JSON.stringify({
        type: 'struct',
        fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }],
      }),
    },
  })}\n`

  it('a commit whose body never ends is aborted at the log-file cap, once, naming the file and the cap', async () => {
    const s = await server([COMMIT0], p => p.endsWith('00000000000000000001.json'))
    try {
      const t0 = performance.now()
      const error = await openSnapshot(s.url, { maxLogBytes: 2 ** 20, timeoutMs: 10_000 }).then(
        () => undefined,
        (e: Error) => e,
      )
      expect(error?.message).toMatch(
        /00000000000000000001\.json: the answer is longer than 1048576 bytes \(the log-file cap/,
      )
      expect(performance.now() - t0).toBeLessThan(5_000) // not 4 attempts × the 10 s timeout
    } finally {
      await s.close()
    }
  })

  it('a ranged read never takes more than the bytes it asked for', async () => {
    const s = await server([COMMIT0], p => p.endsWith('data.bin'))
    try {
      const error = await fetchBytes(`${s.url}data.bin`, {}, [0, 100]).then(
        () => undefined,
        (e: Error) => e,
      )
      expect(error?.message).toMatch(/data\.bin: the answer is longer than 100 bytes \(asked for bytes=0-99\)/)
    } finally {
      await s.close()
    }
  })

  it('a commit larger than the cap is refused by scan naming the file and the cap, in bounded memory', async () => {
    const dir = table('big-commit', 4)
    const filler = `${JSON.stringify({ commitInfo: { operation: 'WRITE', pad: 'x'.repeat(1000) } })}\n`
    writeFileSync(join(dir, '_delta_log/00000000000000000001.json'), filler.repeat(20_000)) // ~20 MB
    const r = await runCliMeasured(['scan', '--table', dir], { SNAPTRAIN_MAX_LOG_BYTES: String(4 * 2 ** 20) })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/00000000000000000001\.json: the answer is longer than 4194304 bytes \(the log-file cap/)
    expect(r.ms).toBeLessThan(ANSWER_MS)
    expect(r.peakRssMiB).toBeLessThan(CLI_RSS_MIB)
  }, 30_000)

  it('listing a log of 20 000 commits is linear: every page finds its start instead of walking the folder', async () => {
    const dir = join(tmp, 'many-commits')
    mkdirSync(join(dir, 't/_delta_log'), { recursive: true })
    for (let v = 0; v < 20_000; v++)
      writeFileSync(join(dir, 't/_delta_log', `${String(v).padStart(20, '0')}.json`), '{}\n')
    const t0 = performance.now()
    let token: string | undefined
    let keys = 0
    let pages = 0
    do {
      const xml = await renderListObjectsV2(dir, { prefix: 't/_delta_log/', delimiter: '/', continuationToken: token })
      keys += (xml.match(/<Key>/g) ?? []).length
      pages++
      token = /<NextContinuationToken>([^<]*)</.exec(xml)?.[1]
    } while (token)
    expect([keys, pages]).toEqual([20_000, 20])
    expect(performance.now() - t0).toBeLessThan(ANSWER_MS)
  }, 60_000)
})
