/**
 * Quantisation in loader workers (bin-workers.ts binWith) equals buildCuts + binMatrix on all rows
 * for every worker count, with missing values, row weights and a categorical feature; here the
 * workers are the loader service objects on this thread (tests/workers runs real module workers).
 * The bin task before the sketch task, and an unregistered task name, are refused by name.
 */
import { expect, it } from 'vitest'
import { binWith, loaderBinner, type RowBinner } from '../../../src/models/gbdt/bin-workers.ts'
import { buildCuts } from '../../../src/models/gbdt/cuts.ts'
import { binMatrix } from '../../../src/models/gbdt/binned.ts'
import { sketchPlan } from '../../../src/models/gbdt/sketch.ts'
import { createLoaderService } from '../../../src/data/loader-service.ts'
import { Rng } from '../../../src/util/rng.ts'
import { makeBinary } from './synthetic.ts'

it('cuts and bytes from 1, 2, 3 and 5 workers equal buildCuts + binMatrix (missing, weights, categorical)', async () => {
  const n = 9_001
  const { columns } = makeBinary(n, 4, 21, 0.05)
  columns[1] = columns[1].map(v => Math.round(v * 3)) // ties
  columns.push(Float32Array.from(new Rng(2).floats(n, 0, 7), v => Math.floor(v))) // category codes
  const weights = Float32Array.from(new Rng(3).floats(n, 0, 3), v => Math.floor(v))
  const categorical = { flags: Uint8Array.of(0, 0, 0, 0, 1), names: ['a', 'b', 'c', 'd', 'cat'] }
  expect(Math.ceil(n / sketchPlan(n, 64).chunkRows)).toBeGreaterThan(2)
  for (const maxBin of [64, 256]) {
    const cuts = buildCuts(columns, maxBin, weights, categorical)
    const want = { cuts, binned: binMatrix(columns, cuts) }
    for (const w of [1, 2, 3, 5]) {
      const got = await binWith(
        Array.from({ length: w }, () => loaderBinner(createLoaderService())),
        columns,
        maxBin,
        weights,
        categorical,
      )
      expect(got).toEqual(want)
    }
  }
})

it('a worker that returns no parts for its rows changes the cuts (the merge uses every range)', async () => {
  const { columns } = makeBinary(6_000, 2, 5)
  const service = loaderBinner(createLoaderService())
  const lazy: RowBinner = {
    sketchRows: async (...a) => ({ ...(await service.sketchRows(...a)), parts: [[], []] }),
    binRows: service.binRows,
  }
  const want = buildCuts(columns, 32)
  const got = await binWith([loaderBinner(createLoaderService()), lazy], columns, 32)
  expect(got.cuts).not.toEqual(want)
})

it('a loader service refuses the bin task before the sketch task, and a task nobody registered', async () => {
  const service = createLoaderService()
  await expect(service.runTask('gbdt-bin', [])).rejects.toThrow('loader worker: gbdt-bin before gbdt-sketch')
  await expect(service.runTask('no-such-task', [])).rejects.toThrow(
    /loader task "no-such-task": unknown \(known: .*gbdt-sketch, gbdt-bin/,
  )
})
