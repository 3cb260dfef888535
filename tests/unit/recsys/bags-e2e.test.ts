import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { planScan } from '../../../src/data/plan.ts'
import type { ScanPlan } from '../../../src/data/types.ts'
import { createRefBackend, RefBackend } from '../../../src/models/recsys/backend.ts'
import { decodeCheckpoint, encodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop } from '../../../src/models/recsys/train-loop.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { Rng } from '../../../src/util/rng.ts'
import { DeltaTableWriter } from '../../../tools/datagen/delta-writer.ts'
import { sigmoid } from '../../../tools/datagen/logistic.ts'
import { fileFetch, type FileFetch } from '../../support/file-fetch.ts'

/**
 * A table where only the list column carries signal: `tags` (0–6 ids of 40, 5 % null rows),
 * logit = −1 + 2·mean(effect of its tags); `noise` (an id) and `x` (a float) are independent of
 * the label. A model without the bag sees noise (AUC ≈ 0.5); with it, it can learn the effects.
 */
const ROWS = 4000
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-bags-'))
let plan: ScanPlan, fetch: FileFetch, bayes: number

async function writeTable(dir: string): Promise<number> {
  const rng = new Rng(3)
  const effect = Float64Array.from({ length: 40 }, () => (rng.next() < 0.5 ? -1.5 : 1.5))
  const tags: (bigint[] | null)[] = [],
    label = new Int32Array(ROWS),
    prob = new Float64Array(ROWS)
  for (let i = 0; i < ROWS; i++) {
    const t = rng.next() < 0.05 ? null : Array.from({ length: rng.int(7) }, () => rng.int(40))
    const m = t?.length ? t.reduce((s, v) => s + effect[v], 0) / t.length : 0
    prob[i] = sigmoid(-1 + 2 * m)
    label[i] = rng.next() < prob[i] ? 1 : 0
    tags.push(t ? t.map(v => BigInt(v)) : null)
  }
  const w = new DeltaTableWriter(
    dir,
    [
      { name: 'noise', type: 'long', nullable: false },
      { name: 'x', type: 'double', nullable: false },
      { name: 'tags', type: { type: 'array', elementType: 'long', containsNull: false }, nullable: true },
      { name: 'label', type: 'integer', nullable: false },
    ],
    1,
    'bags',
  )
  const frame = {
    numRows: ROWS,
    columns: {
      noise: BigInt64Array.from({ length: ROWS }, () => BigInt(rng.int(1000))),
      x: Float64Array.from({ length: ROWS }, () => rng.normal()),
      tags,
      label,
    },
  }
  const file = await w.writeDataFile(frame, 1500)
  await w.commit({ operation: 'WRITE', operationParameters: {}, operationMetrics: {} }, [file.add], [])
  const { auc } = await import('../../../src/eval/metrics.ts')
  return auc(prob, label)
}

beforeAll(async () => {
  const dir = join(tmp, 'bags')
  bayes = await writeTable(dir)
  fetch = fileFetch(dir)
  plan = await planScan(await openSnapshot('http://table.test/', { fetch }), { fetch, label: 'label' })
}, 30_000)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Trains the reference model on `features`; returns the best validation AUC and what the run made. */
async function train(features: string[], extra: Record<string, unknown> = {}) {
  const params = parseRecsysParams({
    epochs: 2,
    batch_size: 128,
    embedding_dim: 8,
    layers: [16],
    eval_every: 40,
    lr: 3e-3,
    seed: 1,
    ...extra,
  })
  const data = await openRecsysData(
    { plan, label: 'label', features, validFraction: 0.2, workers: 0, http: { fetch } },
    params,
  )
  const shape = modelShapeOf(data.source.layout, params)
  const backend = createRefBackend(shape, params)
  const result = await trainLoop({ params, backend, source: data.source, valid: data.valid })
  return { auc: Math.max(...result.metrics.map(m => m.validAuc!)), params, data, shape, backend, result }
}

describe('a bag column end to end (loader → features → reference model)', () => {
  test('the model learns from the bag: validation AUC with it well above without it', { timeout: 60_000 }, async () => {
    const without = await train(['noise', 'x'])
    const withBag = await train(['noise', 'x', 'tags'])
    const sum = await train(['noise', 'x', 'tags'], { pooling: 'sum' })
    console.log(
      `bag e2e (${ROWS} rows): valid AUC without the bag ${without.auc.toFixed(4)}, with it (mean) ${withBag.auc.toFixed(4)}, (sum) ${sum.auc.toFixed(4)}; Bayes ${bayes.toFixed(4)}`,
    )
    expect(withBag.data.source.layout.bags!.map(f => [f.name, f.pooling])).toEqual([['tags', 'mean']])
    expect(withBag.shape.bags).toBe(1)
    expect(without.auc).toBeLessThan(0.58)
    expect(withBag.auc).toBeGreaterThan(without.auc + 0.1)
    expect(sum.auc).toBeGreaterThan(without.auc + 0.1)

    // The checkpoint keeps the bag layout and pooling: a decoded model predicts the same.
    const { params, data, shape, backend, result } = withBag
    const state = await backend.exportState()
    const ck = decodeCheckpoint(
      encodeCheckpoint({ shape, params, layout: data.source.layout, loop: result.state, state }),
    )
    expect(ck.shape).toEqual(shape)
    expect(ck.layout.bags).toEqual(data.source.layout.bags)
    const again = new RefBackend(ck.shape, ck.params, ck.state)
    expect([...(await again.predict(data.valid))]).toEqual([...(await backend.predict(data.valid))])
  })

  test('bad bag input is refused naming it', async () => {
    const p = parseRecsysParams({ pooling: { noise: 'sum' } })
    await expect(
      openRecsysData({ plan, label: 'label', features: ['noise', 'tags'], workers: 0, http: { fetch } }, p),
    ).rejects.toThrow(/pooling\.noise: column 'noise' is not a bag feature/)
    expect(() => parseRecsysParams({ pooling: 'max' })).toThrow(/pooling must be one of 'sum', 'mean'/)
  })
})
