/**
 * A user's Stop through the one run (src/run/pipeline.ts, stop.ts), on the CPU reference backends:
 * GBDT ends after the round in progress with that many trees and metrics rows, the recommender
 * after the step in progress; both manifests are marked `stopped`, a run not stopped is not, and
 * the validation scores asked for give the run's AUC.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runTraining } from '../../../src/run/pipeline.ts'
import type { RecsysTrainResult } from '../../../src/models/recsys/family.ts'
import { thresholdCurves } from '../../../src/run/roc.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { fileFetch } from '../../support/file-fetch.ts'

const TABLES = join(PROJECT_ROOT, 'public', 'tables')
const BASE = {
  table: 'http://table.test/marketing/',
  label: 'y',
  features: ['age', 'balance', 'duration'],
  validFraction: 0.2,
  backend: 'cpu' as const,
  workers: 0,
}

describe('stop after the current round or step', () => {
  it('GBDT: stopped after round 2 of 50 keeps 2 trees, 2 metrics rows, the mark', async () => {
    const stop = new AbortController()
    const r = await runTraining(
      { ...BASE, params: { num_round: 50, max_depth: 2, max_bin: 16 }, http: { fetch: fileFetch(TABLES) } },
      p => {
        if (p.kind === 'round' && p.round === 1) stop.abort()
      },
      { stop: stop.signal, validScores: true },
    )
    expect(r.manifest.stopped).toEqual({ at_round: 2, reason: 'user' })
    expect(JSON.parse(r.model).learner.gradient_booster.model.trees).toHaveLength(2)
    expect(r.metrics).toHaveLength(2)
    expect(r.summary.rounds).toBe(2)
    expect(r.validation?.scores).toHaveLength(r.summary.rows_valid)
    expect(thresholdCurves(r.validation!.scores, r.validation!.labels).auc).toBeCloseTo(r.summary.auc!, 12)
  }, 60_000)

  it('GBDT: a run not stopped has no mark and no validation scores unless asked', async () => {
    const r = await runTraining(
      { ...BASE, params: { num_round: 2, max_depth: 2, max_bin: 16 }, http: { fetch: fileFetch(TABLES) } },
      undefined,
      { stop: new AbortController().signal },
    )
    expect(r.manifest.stopped).toBeUndefined()
    expect('stopped' in r.manifest).toBe(false)
    expect(r.validation).toBeUndefined()
  }, 60_000)

  it('recommender: stopped at the first evaluation ends at that step, marked at_step', async () => {
    const stop = new AbortController()
    const steps: Array<{ done: number; total: number } | undefined> = []
    const r = await runTraining<RecsysTrainResult>(
      {
        ...BASE,
        model: 'recsys',
        params: { epochs: 2, batch_size: 1024, embedding_dim: 4, layers: [8], eval_every: 3 },
        http: { fetch: fileFetch(TABLES) },
      },
      p => {
        if (p.kind !== 'round') return
        steps.push(p.steps)
        stop.abort()
      },
      { stop: stop.signal, validScores: true },
    )
    expect(r.manifest.stopped).toEqual({ at_step: 3, reason: 'user' })
    // Progress counts steps, the unit the stop obeyed: 3 done of 2 epochs' worth.
    expect(steps[0]?.done).toBe(3)
    expect(steps[0]!.total % 2).toBe(0)
    expect(steps[0]!.total).toBeGreaterThan(3)
    expect(r.summary.steps).toBe(3)
    expect(r.metrics).toHaveLength(1)
    expect(thresholdCurves(r.validation!.scores, r.validation!.labels).auc).toBeCloseTo(r.summary.auc!, 12)
  }, 120_000)
})
