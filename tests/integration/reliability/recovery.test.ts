/**
 * Device-loss recovery logic in Node, with the CPU backends standing in for devices and a
 * `lost` promise the test resolves mid-run (the browser tests in tests/browser/recovery-*.test.ts
 * destroy real GPU devices): the recommender resumes from its last in-memory checkpoint and ends
 * bit-identical to the uninterrupted run; GBDT retrains on a fresh device to the same trees; both
 * give up after their rebuild budget with a message naming the loss and what was kept.
 */
import { describe, expect, it } from 'vitest'
import { createRefBackend } from '../../../src/models/recsys/backend.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import { trainLoop, type MetricRow } from '../../../src/models/recsys/train-loop.ts'
import { DeviceLostError, trainWithRecovery, type DeviceSession } from '../../../src/models/recsys/recovery.ts'
import { trainRecovering } from '../../../src/models/gbdt/device-loss.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import type { ModelState } from '../../../src/models/recsys/backend.ts'
import { clicksFixture } from '../../unit/recsys/clicks-fixture.ts'

/** A promise resolved from outside (a device's `lost`). */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void
  const promise = new Promise<T>(r => {
    resolve = r
  })
  return { promise, resolve }
}

const strip = (rows: MetricRow[]) => rows.map(({ elapsedMs: _e, ...rest }) => rest)

async function recsysSetup(restoreBest = false) {
  const fx = await clicksFixture()
  const params = parseRecsysParams({
    epochs: 2,
    batch_size: 256,
    embedding_dim: 4,
    layers: [8],
    eval_every: 3,
    seed: 5,
    restore_best: restoreBest,
    early_stopping_rounds: 0,
  })
  const data = await openRecsysData(
    { plan: fx.plan, label: 'label', validFraction: 0.2, workers: 0, http: { fetch: fx.fetch } },
    params,
  )
  return { params, data, shape: modelShapeOf(data.source.layout, params) }
}

describe('recommender: resume from the in-memory checkpoint on a fresh device', () => {
  for (const restoreBest of [false, true]) {
    it(`a device lost after the 3rd evaluation: final weights, loop state and metrics equal the uninterrupted run (restore_best ${restoreBest})`, async () => {
      const { params, data, shape } = await recsysSetup(restoreBest)
      const plain = createRefBackend(shape, params)
      const ref = await trainLoop({ params, backend: plain, source: data.source, valid: data.valid })
      const opened: number[] = []
      const loss = deferred<{ reason?: string; message: string }>()
      const seen: MetricRow[] = []
      const run = await trainWithRecovery(
        {
          params,
          source: data.source,
          valid: data.valid,
          onMetrics: row => {
            seen.push(row)
            if (seen.length === 3) loss.resolve({ reason: 'unknown', message: 'test: device lost' })
          },
        },
        {
          checkpointEvery: 1,
          async open(state, attempt) {
            opened.push(attempt)
            const backend = createRefBackend(shape, params)
            if (state) await backend.importState(state)
            return {
              backend,
              adapter: `fake ${attempt}`,
              lost: attempt === 0 ? loss.promise : new Promise(() => {}),
            } satisfies DeviceSession
          },
        },
      )
      expect(opened).toEqual([0, 1])
      expect(run.recoveries).toBe(1)
      expect(ref.state.step).toBe(2 * data.source.stepsPerEpoch)
      expect(run.loop.state).toEqual(ref.state)
      expect(strip(run.loop.metrics)).toEqual(strip(ref.metrics))
      expect(run.loop.restored?.step).toBe(ref.restored?.step)
      const [a, b] = [await run.session.backend.exportState(), await plain.exportState()]
      expect(a.weights.embeddings).toEqual(b.weights.embeddings)
      a.weights.dense.forEach((w, i) => expect(w).toEqual(b.weights.dense[i]))
      expect(a.opt.accum).toEqual(b.opt.accum)
      // Rows after the checkpoint were replayed: the progress stream saw some twice, in step order per attempt.
      expect(seen.length).toBeGreaterThanOrEqual(ref.metrics.length)
    }, 30_000)
  }

  it('a device lost on every attempt: stops after maxRecoveries with DeviceLostError naming the kept step', async () => {
    const { params, data, shape } = await recsysSetup()
    const attempts: number[] = []
    let fire = (): void => {}
    // Each attempt's device is lost at its first evaluation.
    const err = await trainWithRecovery(
      { params, source: data.source, valid: data.valid, onMetrics: () => fire() },
      {
        checkpointEvery: 1,
        maxRecoveries: 2,
        async open(state: ModelState | undefined, attempt) {
          attempts.push(attempt)
          const backend = createRefBackend(shape, params)
          if (state) await backend.importState(state)
          const lost = deferred<{ message: string }>()
          fire = () => lost.resolve({ message: `lost #${attempt}` })
          return { backend, adapter: 'fake', lost: lost.promise }
        },
      },
    ).catch(e => e as Error)
    expect(err).toBeInstanceOf(DeviceLostError)
    expect((err as Error).message).toMatch(
      /GPU device lost \(unknown: lost #2\) 3 times; stopped at step \d+ \(the last checkpoint: \d+ evaluations kept\)/,
    )
    expect(attempts).toEqual([0, 1, 2])
  }, 30_000)

  it('an error that is not a device loss is not retried', async () => {
    const { params, data, shape } = await recsysSetup()
    let opens = 0
    const run = trainWithRecovery(
      { params, source: data.source, valid: data.valid },
      {
        async open() {
          opens++
          const backend = createRefBackend(shape, params)
          backend.step = async () => {
            throw new RangeError('bad batch')
          }
          return { backend, adapter: 'fake', lost: new Promise(() => {}) }
        },
      },
    )
    await expect(run).rejects.toThrow('bad batch')
    expect(opens).toBe(1)
  }, 30_000)
})

describe('GBDT: rebuild the device and boost again (deterministic)', () => {
  const n = 400
  const cols = [0, 1, 2].map(f => Float32Array.from({ length: n }, (_, i) => Math.sin(i * (f + 1) * 0.37)))
  const labels = Float32Array.from({ length: n }, (_, i) => (cols[0][i] + 0.5 * cols[1][i] > 0 ? 1 : 0))
  const params = parseParams({ num_round: 6, max_depth: 3, eta: 0.3 })
  const data = { columns: cols, labels, valid: { columns: cols, labels } }

  it('lost after round 3: the final booster equals the uninterrupted one', async () => {
    const ref = await train(data, params, createCpuBackend)
    const loss = deferred<{ message: string }>()
    const stages: string[] = []
    const out = await trainRecovering({
      numRound: params.num_round,
      open: async attempt => ({
        backend: createCpuBackend,
        adapter: `fake ${attempt}`,
        lost: attempt === 0 ? loss.promise : undefined,
      }),
      train: (factory, done) =>
        train(data, params, factory, {
          onRound: round => {
            done(round)
            if (round === 2) loss.resolve({ message: 'test' })
          },
        }),
      onRecover: (rounds, reason) => stages.push(`${rounds} ${reason}`),
    })
    expect(stages).toEqual(['3 unknown: test'])
    expect(out.adapter).toBe('fake 1')
    expect(out.booster.trees).toEqual(ref.trees)
    expect(out.booster.history).toEqual(ref.history)
  })

  it('lost again after the rebuild: an error naming the loss and the rounds finished', async () => {
    await expect(
      trainRecovering({
        numRound: params.num_round,
        open: async () => {
          const loss = deferred<{ reason?: string; message: string }>()
          return {
            backend: createCpuBackend,
            adapter: 'fake',
            lost: loss.promise,
            dispose: () => {},
            fire: loss.resolve,
          } as never
        },
        train: async (_factory, done) => {
          done(0)
          done(1)
          throw new Error('mapAsync: device lost')
        },
      }),
    ).rejects.toThrow(/mapAsync: device lost/) // no `lost` resolution: an ordinary error, not retried
    let attempt = 0
    const err = await trainRecovering({
      numRound: params.num_round,
      open: async () => ({
        backend: createCpuBackend,
        adapter: 'fake',
        lost: Promise.resolve({ reason: 'destroyed', message: `#${attempt++}` }),
      }),
      train: (factory, done) => train(data, params, factory, { onRound: round => done(round) }),
    }).catch(e => e as Error)
    expect((err as Error).message).toMatch(
      /GPU device lost \(destroyed: #1\) after \d of 6 boosting rounds, 2 time\(s\); nothing was written/,
    )
  })
})
