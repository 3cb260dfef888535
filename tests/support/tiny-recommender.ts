/**
 * A tiny recommender for the CLI tests that need a model.bin: a generated 3000-row `clicks` table
 * (served over real HTTP) and a model trained on it in Node with the CPU reference (1 epoch,
 * B 512, layers [8], D 4), written to `<tmp>/model.bin`. Call `close()` in afterAll.
 */
import { expect } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runTraining } from '../../src/run/pipeline.ts'
import type { RecsysTrainResult } from '../../src/models/recsys/family.ts'
import { serveDirectory } from '../../src/serve/server.ts'
import { runMain } from './cli.ts'

export interface TinyRecommender {
  /** The test's temporary folder (the table is under data/clicks). */
  tmp: string
  /** URL of the served clicks table (ends in '/'). */
  url: string
  /** The trained checkpoint's bytes, also written at modelPath. */
  model: Uint8Array<ArrayBuffer>
  modelPath: string
  close(): Promise<void>
}

/** Generates the table, serves it and trains the model; `prefix` names the temporary folder. */
export async function tinyRecommender(prefix: string): Promise<TinyRecommender> {
  const tmp = mkdtempSync(join(tmpdir(), prefix))
  const data = join(tmp, 'data')
  const gen = await runMain(['data', '--out', data, '--rows', '3000', '--marketing-rows', '500', '--tables', 'clicks'])
  expect(gen.code, gen.stderr).toBe(0)
  const server = await serveDirectory(data)
  const url = `${server.url}clicks/`
  const r = await runTraining<RecsysTrainResult>({
    table: url,
    model: 'recsys',
    label: 'label',
    params: { epochs: 1, batch_size: 512, layers: [8], embedding_dim: 4, eval_every: 4, lr: 0.01, embedding_lr: 0.1 },
    backend: 'cpu',
    workers: 0,
  })
  const model = new Uint8Array(r.model as Uint8Array)
  const modelPath = join(tmp, 'model.bin')
  writeFileSync(modelPath, model)
  return {
    tmp,
    url,
    model,
    modelPath,
    close: async () => {
      await server.close()
      rmSync(tmp, { recursive: true, force: true })
    },
  }
}
