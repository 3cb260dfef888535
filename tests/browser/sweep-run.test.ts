/**
 * A real GBDT sweep in the page on the vite-served marketing table (filtered to ~5k rows, 1–3
 * rounds): Hyperband on 2 GPU devices finishes with every trial measured and the best model
 * stored; a device destroyed in the middle of a trial fails that trial with the cause while the
 * sweep goes on and finishes on a fresh device.
 */
import { expect, it } from 'vitest'
import { createSweepApi } from '../../src/sweep/api.ts'
import { MemoryStore } from '../../src/sweep/store-memory.ts'
import { fromXGBoostJson } from '../../src/models/gbdt/xgboost-json.ts'
import type { SweepConfig, SweepEvent } from '../../src/tune/types.ts'
import type { FetchLike } from '../../src/table/types.ts'

/** The vite dev server answers a missing file with index.html; the snapshot reader needs a 404 (as loader-worker.test.ts). */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  return (res.headers.get('content-type') ?? '').includes('text/html')
    ? new Response('Not Found', { status: 404 })
    : res
}
const READ = { workers: 0, http: { fetch: devFetch } }

const TABLE = new URL('/tables/marketing/', location.href).href
const SPACE = {
  max_depth: { type: 'int', low: 2, high: 4 },
  eta: { type: 'loguniform', low: 0.1, high: 0.5 },
  max_bin: 64,
}
const BASE: SweepConfig = {
  model: 'gbdt',
  table: TABLE,
  label: 'y',
  filter: 'age < 30',
  space: SPACE,
  strategy: 'hyperband',
  minResource: 1,
  maxResource: 3,
  eta: 3,
  seed: 5,
  parallel: 2,
}

it('runs a Hyperband sweep on two devices: every trial measured, best model stored, state persisted', async () => {
  const store = new MemoryStore()
  const api = createSweepApi({ store: async () => store, read: READ })
  const plan = api.planSweep(BASE)
  expect(plan.errors).toEqual([])
  const stages: string[] = [],
    bars: Array<{ message: string; fraction: number }> = []
  const s = await api.sweep(BASE, e => {
    if (e.kind !== 'stage') return
    stages.push(e.message)
    if (e.fraction !== undefined) bars.push({ message: e.message, fraction: e.fraction })
  })
  expect(s.status).toBe('finished')
  expect(s.trials.length).toBe(plan.trials)
  for (const t of s.trials) {
    expect(t.status === 'completed' || t.status === 'stopped', `trial ${t.id}: ${t.status} ${t.error ?? ''}`).toBe(true)
    expect(t.metric).toBeGreaterThan(0.5)
    expect(t.curve.at(-1)!.resource).toBeLessThanOrEqual(t.resource)
    expect(t.gpuSeconds).toBeGreaterThan(0)
  }
  expect(s.gpuSeconds).toBeCloseTo(
    s.trials.reduce((a, t) => a + t.gpuSeconds, 0),
    9,
  )
  expect(s.gpuSecondsFullBudget).toBeGreaterThan(0)
  expect(s.best!.metric).toBe(Math.max(...s.trials.map(t => t.metric!)))
  expect(stages.some(m => /loaded \d+ training rows/.test(m))).toBe(true)
  // Progress bars: loading and quantising (max_bin 64, once for all trials, in loader workers) each rise from 0 to 1.
  for (const step of [/^loading .*rows$/, /^quantising \d+ features \(max_bin 64\) in \d+ loader workers/]) {
    const f = bars.filter(b => step.test(b.message)).map(b => b.fraction)
    expect([f[0], f.at(-1)], String(step)).toEqual([0, 1])
    expect(
      f.every((x, i) => i === 0 || x >= f[i - 1]!),
      String(step),
    ).toBe(true)
  }
  const art = await api.sweepArtifacts(s.id, s.best!.trial)
  expect(fromXGBoostJson(art!.model!).trees.length).toBe(s.trials[s.best!.trial].curve.at(-1)!.resource)
  expect((await api.getSweep(s.id))!.trials.map(t => t.status)).toEqual(s.trials.map(t => t.status))
  // The best trial's continue bundle: the model it stored, the jobs, continue.json naming the sweep and trial.
  const bundle = await api.sweepContinueFiles(s.id)
  expect(bundle.map(f => f.name)).toEqual(
    ['continue.json', 'snaptrain_continue.py', 'model.json', 'xgboost_dask.py', 'xgboost_spark.py'].map(
      n => `continue/${n}`,
    ),
  )
  expect(bundle[2]!.data).toBe(art!.model)
  const spec = JSON.parse(String(bundle[0]!.data))
  expect([spec.source, spec.done]).toEqual([
    { kind: 'sweep', sweep_id: s.id, trial: s.best!.trial },
    { rounds: fromXGBoostJson(art!.model!).trees.length },
  ])
}, 60_000)

it('a device destroyed mid-trial fails that trial with the cause; the sweep finishes on a new device', async () => {
  const devices: GPUDevice[] = []
  const api = createSweepApi({ store: async () => new MemoryStore(), read: READ, onSlot: (_i, d) => devices.push(d) })
  const config: SweepConfig = { ...BASE, strategy: 'random', trials: 3, parallel: 1, space: { ...SPACE, num_round: 3 } }
  const onEvent = (e: SweepEvent): void => {
    if (e.kind === 'trial' && e.trial.id === 1 && e.trial.curve.length === 1 && e.trial.status === 'running')
      devices[0].destroy()
  }
  const s = await api.sweep(config, onEvent)
  expect(s.status).toBe('finished')
  expect(s.trials.map(t => t.status)).toEqual(['completed', 'failed', 'completed'])
  expect(s.trials[1].error).toMatch(/GPU device lost \(destroyed\)/)
  expect(devices.length).toBe(2)
}, 60_000)
