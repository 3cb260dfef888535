/**
 * A real recommender sweep in the page on a slice of the vite-served clicks table (hour = 3,
 * five feature columns): ASHA over 3 configurations × up to 3 epochs, one report per epoch, the
 * table decoded once for every trial, the best trial's model file kept.
 */
import { expect, it } from 'vitest'
import { createSweepApi } from '../../src/sweep/api.ts'
import { MemoryStore } from '../../src/sweep/store-memory.ts'
import type { SweepConfig } from '../../src/tune/types.ts'
import type { FetchLike } from '../../src/table/types.ts'

/** The vite dev server answers a missing file with index.html; the snapshot reader needs a 404. */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  return (res.headers.get('content-type') ?? '').includes('text/html')
    ? new Response('Not Found', { status: 404 })
    : res
}

it('runs an ASHA recsys sweep: per-epoch curves, every trial measured, the best model kept', async () => {
  const api = createSweepApi({ store: async () => new MemoryStore(), read: { workers: 0, http: { fetch: devFetch } } })
  const config: SweepConfig = {
    model: 'recsys',
    table: new URL('/tables/clicks/', location.href).href,
    label: 'label',
    filter: 'hour = 3',
    features: ['device', 'country', 'ad_format', 'dense_0', 'dense_1'],
    strategy: 'asha',
    trials: 3,
    parallel: 1,
    seed: 2,
    minResource: 1,
    maxResource: 3,
    eta: 3,
    space: { lr: { type: 'loguniform', low: 1e-3, high: 1e-2 } },
    fixed: { batch_size: 1024, layers: [16], embedding_dim: 8 },
  }
  const stages: string[] = []
  const s = await api.sweep(config, e => {
    if (e.kind === 'stage') stages.push(e.message)
  })
  expect(s.status).toBe('finished')
  expect(s.trials.length).toBe(3)
  for (const t of s.trials) {
    expect(t.status === 'completed' || t.status === 'stopped', `trial ${t.id}: ${t.status} ${t.error ?? ''}`).toBe(true)
    expect(t.curve.map(p => p.resource)).toEqual(Array.from({ length: t.curve.length }, (_, i) => i + 1))
    expect(t.metric).toBeGreaterThan(0.4)
    expect(t.gpuSeconds).toBeGreaterThan(0)
  }
  expect(stages.filter(m => /^decoding \d+ rows/.test(m))).toHaveLength(1)
  const art = await api.sweepArtifacts(s.id, s.best!.trial)
  expect(atob(art!.model!).slice(0, 8)).toBe('SNAPRCK1')
  // The best trial's continue bundle: weights, optimizer state and the DDP job, continue.json naming the trial.
  const bundle = await api.sweepContinueFiles(s.id)
  expect(bundle.map(f => f.name)).toEqual(
    [
      'continue.json',
      'snaptrain_continue.py',
      'features.json',
      'model.safetensors',
      'optimizer.safetensors',
      'torch_ddp.py',
    ].map(n => `continue/${n}`),
  )
  expect(JSON.parse(String(bundle[0]!.data)).source).toEqual({ kind: 'sweep', sweep_id: s.id, trial: s.best!.trial })
}, 60_000)
