/**
 * GPU device loss mid-training, recommender: the first device is destroyed after the second
 * evaluation (as a driver reset or a crashed GPU process would end it); trainWithRecovery opens a
 * fresh device, imports the last in-memory checkpoint and replays from its cursor. The final
 * weights, optimizer state, loop state and metrics equal an uninterrupted GPU run bit for bit.
 * B ≤ 16, S = 2, D = 4, R = 20, 3 dense inputs, layers [8, 4]; 2 epochs of 6 batches.
 */
import { expect, test } from 'vitest'
import type { Cursor } from '../../src/data/types.ts'
import { requestDevice } from '../../src/gpu/device.ts'
import { PipelineCache } from '../../src/gpu/pipeline-cache.ts'
import type { ModelState } from '../../src/models/recsys/backend.ts'
import { stateTensors } from '../../src/models/recsys/checkpoint.ts'
import type { TrainSource } from '../../src/models/recsys/data.ts'
import { initOptimizerState, initWeights } from '../../src/models/recsys/init.ts'
import { GpuModel } from '../../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../../src/models/recsys/params.ts'
import { DeviceLostError, trainWithRecovery, type DeviceSession } from '../../src/models/recsys/recovery.ts'
import type { MetricRow } from '../../src/models/recsys/train-loop.ts'
import type { FeatureLayout, ModelBatch, ModelShape } from '../../src/models/recsys/types.ts'
import { Rng } from '../../src/util/rng.ts'

const SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8, 4] }
const PARAMS = parseRecsysParams({
  epochs: 2,
  batch_size: 16,
  layers: [8, 4],
  embedding_dim: 4,
  eval_every: 2,
  lr: 0.01,
  embedding_lr: 0.1,
  seed: 3,
})

function batch(rng: Rng, n: number): ModelBatch {
  const rows = new Uint32Array(n * 2)
  for (let b = 0; b < n; b++) {
    rows[2 * b] = rng.int(7)
    rows[2 * b + 1] = 7 + rng.int(13)
  }
  return { n, rows, dense: rng.floats(n * 3), labels: new Float32Array(n).map(() => (rng.next() < 0.3 ? 1 : 0)) }
}

const rng = new Rng(9)
const BATCHES = [16, 16, 16, 16, 16, 9].map(n => batch(rng, n))
const VALID = batch(rng, 16)

/** The batches in memory; the cursor is the batch index (as `position`). */
const SOURCE: TrainSource = {
  layout: { sparse: [{}, {}], totalRows: SHAPE.totalRows, denseInputs: SHAPE.dense } as unknown as FeatureLayout,
  stepsPerEpoch: BATCHES.length,
  open: (_epoch, cursor) => {
    let at = cursor?.position ?? 0
    return {
      async *batches() {
        while (at < BATCHES.length) yield BATCHES[at++]
      },
      cursor: () => ({ position: at }) as Cursor,
      close: async () => {},
    }
  },
}

/** A GPU model on a fresh device holding `state` (or the seeded initial weights). */
async function openGpu(state: ModelState | undefined, devices: GPUDevice[]): Promise<DeviceSession> {
  const { device } = await requestDevice()
  devices.push(device)
  const initial = state ?? { weights: initWeights(SHAPE, PARAMS.seed), opt: initOptimizerState(SHAPE, PARAMS) }
  const backend = await GpuModel.create(new PipelineCache(device), SHAPE, PARAMS, initial)
  return {
    backend,
    adapter: 'gpu',
    lost: device.lost,
    dispose: () => {
      backend.destroy()
      device.destroy()
    },
  }
}

const strip = (rows: MetricRow[]) => rows.map(({ elapsedMs: _e, ...rest }) => rest)

test('device destroyed after the 2nd evaluation: resumed on a fresh device, bit-identical to the uninterrupted run', async () => {
  const plainDevices: GPUDevice[] = []
  const plain = await trainWithRecovery(
    { params: PARAMS, source: SOURCE, valid: VALID },
    { open: s => openGpu(s, plainDevices), checkpointEvery: 1 },
  )
  const want = Object.fromEntries(stateTensors(SHAPE, await plain.session.backend.exportState()))
  plain.session.dispose?.()
  expect(plain.recoveries).toBe(0)

  const devices: GPUDevice[] = []
  let evals = 0
  const stages: string[] = []
  const run = await trainWithRecovery(
    {
      params: PARAMS,
      source: SOURCE,
      valid: VALID,
      onMetrics: () => {
        if (++evals === 2) devices[0].destroy()
      },
    },
    {
      open: s => openGpu(s, devices),
      checkpointEvery: 1,
      onRecover: (step, reason) => stages.push(`${step} ${reason}`),
    },
  )
  try {
    expect(devices).toHaveLength(2)
    expect(run.recoveries).toBe(1)
    expect(stages[0]).toMatch(/^\d+ destroyed/)
    expect(run.loop.state).toEqual(plain.loop.state)
    expect(strip(run.loop.metrics)).toEqual(strip(plain.loop.metrics))
    const got = Object.fromEntries(stateTensors(SHAPE, await run.session.backend.exportState()))
    for (const [name, a] of Object.entries(want)) expect([...got[name]], name).toEqual([...a])
  } finally {
    run.session.dispose?.()
  }
}, 60_000)

test('every device destroyed at its first evaluation: DeviceLostError after the rebuild budget, naming the steps kept', async () => {
  const devices: GPUDevice[] = []
  const err = await trainWithRecovery(
    { params: PARAMS, source: SOURCE, valid: VALID, onMetrics: () => devices.at(-1)!.destroy() },
    {
      open: s => openGpu(s, devices),
      checkpointEvery: 1,
      maxRecoveries: 1,
    },
  ).catch(e => e as Error)
  expect(err).toBeInstanceOf(DeviceLostError)
  expect((err as Error).message).toMatch(/GPU device lost \(destroyed.*\) 2 times; stopped at step \d+/)
  expect(devices).toHaveLength(2)
}, 60_000)
