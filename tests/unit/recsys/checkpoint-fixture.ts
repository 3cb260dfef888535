/** The recommender checkpoint tests' setup: a small clicks table, parameters and tensor comparisons. */
import type { RefBackend } from '../../../src/models/recsys/backend.ts'
import { stateTensors } from '../../../src/models/recsys/checkpoint.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { ModelShape, RecsysParams } from '../../../src/models/recsys/types.ts'
import { clicksFixture } from './clicks-fixture.ts'

export const BASE = {
  epochs: 2,
  batch_size: 256,
  embedding_dim: 4,
  layers: [8, 4],
  lr: 3e-3,
  eval_every: 4,
  early_stopping_rounds: 50,
  seed: 11,
  schedule: 'cosine',
  warmup_steps: 3,
}

export async function setup(
  extra: object,
): Promise<{ params: RecsysParams; shape: ModelShape; data: Awaited<ReturnType<typeof openRecsysData>> }> {
  const fx = await clicksFixture()
  const params = parseRecsysParams({ ...BASE, ...extra })
  const data = await openRecsysData(
    { plan: fx.plan, label: 'label', validFraction: 0.1, workers: 0, http: { fetch: fx.fetch } },
    params,
  )
  return { params, shape: modelShapeOf(data.source.layout, params), data }
}

/** Names of the tensors whose bytes differ between two bytesOf() records (Buffer.compare: fast on large tables). */
export function differing(got: Record<string, Uint8Array>, want: Record<string, Uint8Array>): string[] {
  const names = [...new Set([...Object.keys(got), ...Object.keys(want)])]
  return names.filter(n => !got[n] || !want[n] || Buffer.compare(got[n], want[n]) !== 0)
}

/** Every tensor of a state as bytes, by name. */
export function bytesOf(
  shape: ModelShape,
  s: Awaited<ReturnType<RefBackend['exportState']>>,
): Record<string, Uint8Array> {
  return Object.fromEntries(
    stateTensors(shape, s).map(([n, a]) => [n, new Uint8Array(a.buffer, a.byteOffset, a.byteLength)]),
  )
}
