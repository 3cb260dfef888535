/**
 * GPU device loss mid-training, GBDT: the device is destroyed after round 2 of 5. trainRecovering
 * (what runTraining uses) opens a fresh device and boosts again; training is deterministic, so the
 * trees equal an uninterrupted GPU run's. Lost with no rebuilds left, the run stops with an
 * error naming the device loss and the rounds that had finished. N = 600, F = 6.
 */
import { expect, test } from 'vitest'
import { requestDevice } from '../../src/gpu/device.ts'
import { trainRecovering, type LosableBackend } from '../../src/models/gbdt/device-loss.ts'
import { train } from '../../src/models/gbdt/driver.ts'
import { createGpuBackend } from '../../src/models/gbdt/gpu-backend.ts'
import { parseParams } from '../../src/models/gbdt/params.ts'
import { gbdtData } from '../kernels/gbdt/gpu-backend-data.ts'

const DATA = gbdtData(600, 6, 4, 0.1, 'binary')
const PARAMS = parseParams({ num_round: 5, max_depth: 3, eval_metric: ['auc', 'logloss'] })

async function openGpu(devices: GPUDevice[]): Promise<LosableBackend> {
  const { device } = await requestDevice()
  devices.push(device)
  return {
    backend: createGpuBackend(device),
    adapter: `gpu ${devices.length}`,
    lost: device.lost,
    dispose: () => device.destroy(),
  }
}

test('device destroyed after round 2: rebuilt, boosted again, the same trees as the uninterrupted run', async () => {
  const plain = await trainRecovering({ numRound: 5, open: () => openGpu([]), train: f => train(DATA, PARAMS, f) })
  const devices: GPUDevice[] = []
  const recovered: string[] = []
  const r = await trainRecovering({
    numRound: 5,
    open: () => openGpu(devices),
    onRecover: (rounds, reason) => recovered.push(`${rounds} ${reason}`),
    train: (f, done) =>
      train(DATA, PARAMS, f, {
        onRound: round => {
          done(round)
          if (round === 1 && devices.length === 1) devices[0].destroy()
        },
      }),
  })
  expect(recovered).toHaveLength(1)
  expect(recovered[0]).toMatch(/^2 destroyed/)
  expect(r.adapter).toBe('gpu 2')
  expect(r.booster.trees).toEqual(plain.booster.trees)
  expect(r.booster.history).toEqual(plain.booster.history)
}, 60_000)

test('lost on every device: an error naming the device loss and the rounds finished', async () => {
  const devices: GPUDevice[] = []
  const err = await trainRecovering({
    numRound: 5,
    open: () => openGpu(devices),
    maxRecoveries: 0,
    train: (f, done) =>
      train(DATA, PARAMS, f, {
        onRound: round => {
          done(round)
          if (round === 2) devices.at(-1)!.destroy()
        },
      }),
  }).catch(e => e as Error)
  expect((err as Error).message).toMatch(
    /GPU device lost \(destroyed.*\) after 3 of 5 boosting rounds, 1 time\(s\); nothing was written/,
  )
  expect(devices).toHaveLength(1)
}, 60_000)
