/**
 * The up-front memory check (src/models/memory-budget.ts): estimates from the log's row counts and
 * the parameters, and a run over budget refused before any data file is read, with the size
 * needed and what to change. (Chunking a set larger than one buffer but within budget is covered
 * by tests/kernels/gbdt/gpu-backend.test.ts and determinism.test.ts with a small maxBindingBytes.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveDirectory } from '../../../src/serve/server.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import {
  checkMemory,
  gbdtMemoryNeed,
  recsysMemoryNeed,
  rowsFromLog,
  RECSYS_ADVICE,
} from '../../../src/models/memory-budget.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { dataFile, frame, writeTable } from './bad-tables.ts'

const MiB = 2 ** 20
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-memory-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
let table = ''
beforeAll(async () => {
  table = join(tmp, 'no-data')
  await writeTable(table, frame())
  // The data file is gone: a check that is really up front answers before anything reads it.
  await rm(await dataFile(table))
})

describe('estimates', () => {
  it('rows from the log: numRecords minus deletion-vector cardinality; unknown without stats', () => {
    const f = (n?: number, dv?: number) => ({
      stats: n === undefined ? undefined : { numRecords: n },
      deletionVector: dv === undefined ? undefined : { cardinality: dv },
    })
    expect(rowsFromLog({ files: [f(100), f(50, 7)] } as never)).toBe(143)
    expect(rowsFromLog({ files: [f(100), f()] } as never)).toBeUndefined()
  })

  it('GBDT: host columns, split copy and binned matrix; GPU as the backend estimates', () => {
    const p = parseParams({ max_depth: 6, max_bin: 256 })
    const a = gbdtMemoryNeed(1_000_000, 10, undefined, p)
    expect(a.host.parts['feature columns']).toBe(4 * 1_000_000 * 11)
    expect(a.host.parts['validation split copy']).toBe(0)
    expect(a.host.parts['binned matrix']).toBe(10_000_000)
    expect(gbdtMemoryNeed(1_000_000, 10, 0.2, p).host.total).toBeGreaterThan(a.host.total)
    expect(a.gpu.total).toBeGreaterThan(10_000_000) // at least the binned matrix on the device
    expect(gbdtMemoryNeed(1_000_000, 20, undefined, p).gpu.total).toBeGreaterThan(a.gpu.total)
  })

  it('recommender: embeddings and their optimizer state dominate; rowwise Adam holds two copies', () => {
    const shape = { sparse: 4, dim: 16, totalRows: 1_000_000, dense: 8, layers: [64, 32] }
    const ada = recsysMemoryNeed(shape, parseRecsysParams({ embedding_dim: 16, batch_size: 512 }))
    const row = recsysMemoryNeed(
      shape,
      parseRecsysParams({ embedding_dim: 16, batch_size: 512, embedding_optimizer: 'rowwise_adam' }),
    )
    expect(ada.parts.embeddings).toBe(64_000_000)
    expect(ada.parts['embedding optimizer state']).toBe(64_000_000)
    expect(row.parts['embedding optimizer state']).toBe(128_000_000 + 4_000_000)
    expect(() => checkMemory('GPU', row, 100 * MiB, RECSYS_ADVICE)).toThrow(
      /GPU memory: training needs about 1\d\d\.\d MiB \(embeddings 61\.0 MiB, .*\) but the budget is 100\.0 MiB; use fewer id columns .*embedding_dim/,
    )
    expect(() => checkMemory('GPU', ada, 200 * MiB, RECSYS_ADVICE)).not.toThrow()
  })
})

describe('a GBDT run over budget fails up front (runTraining, CPU backend, Node)', () => {
  async function trainWith(budget: { hostBytes?: number }, extra: Record<string, unknown> = {}): Promise<Error> {
    const server = await serveDirectory(table)
    try {
      return await runTraining({
        table: server.url,
        label: 'label',
        params: { num_round: 1 },
        backend: 'cpu',
        workers: 0,
        memoryBudget: budget,
        ...extra,
      })
        .then(() => new Error('trained'))
        .catch(e => e as Error)
    } finally {
      await server.close()
    }
  }

  it('names the size needed, its parts and what to change — before reading the (missing) data file', async () => {
    const e = await trainWith({ hostBytes: 1000 })
    expect(e.message).toMatch(
      /^host memory: training needs about 0\.0 MiB \(feature columns 0\.0 MiB, binned matrix 0\.0 MiB\) but the budget is 0\.0 MiB; /,
    )
    expect(e.message).toMatch(/fewer columns \(--features\), fewer rows \(--filter, or a sample of the table\)/)
  })

  it('within budget, the run goes on to read the data (and here meets the missing file)', async () => {
    const e = await trainWith({ hostBytes: 10 * MiB })
    expect(e.message).toMatch(/404|not found|\.parquet/i)
  })

  it('with a filter the log count is only an upper bound: no refusal up front', async () => {
    const e = await trainWith({ hostBytes: 1000 }, { filter: 'x > 0.5' })
    expect(e.message).not.toMatch(/memory/)
  })
})
