/**
 * A sweep optimises its metric the way XGBoost's early stopping would (src/eval/metrics.ts
 * maximize): Hyperband over a small GBDT regression (CPU driver, in-memory rows, the sweep's own
 * trial parameters via gbdtTrialParams) promotes and reports the smallest mae, and the largest
 * aucpr. Also the sweep's metric check for the `@` names.
 */
import { describe, expect, it } from 'vitest'
import { planSweep, prepareSweep, sweepMetric } from '../../../src/sweep/plan.ts'
import { runSweep } from '../../../src/sweep/scheduler.ts'
import { MemoryStore } from '../../../src/sweep/store-memory.ts'
import { gbdtTrialParams } from '../../../src/models/gbdt/family.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { bestOf } from '../../../src/tune/sweep-state.ts'
import type { SweepConfig, SweepState, TrialRunner } from '../../../src/tune/types.ts'
import type { TrainData } from '../../../src/eval/dataset.ts'
import { Rng } from '../../../src/util/rng.ts'

/** y = 2·x0 − x1 + noise; for aucpr the label is y > 0 (reg:logistic). */
function rows(n: number, binary: boolean): TrainData {
  const rng = new Rng(5)
  const cols = [0, 1, 2].map(() => Float32Array.from({ length: n }, () => rng.normal()))
  const y = Float32Array.from({ length: n }, (_, i) => 2 * cols[0][i] - cols[1][i] + 0.5 * rng.normal())
  const labels = binary ? y.map(v => (v > 0 ? 1 : 0)) : y
  const cut = Math.floor(n * 0.7)
  return {
    columns: cols.map(c => c.slice(0, cut)),
    labels: labels.slice(0, cut),
    valid: { columns: cols.map(c => c.slice(cut)), labels: labels.slice(cut) },
  }
}

/** A runner training the trial's parameters on `data`, reporting the sweep's metric each round. */
function runner(config: SweepConfig, data: TrainData): TrialRunner {
  return {
    async run(req, report) {
      const params = gbdtTrialParams({
        fixed: config.fixed,
        config: req.config,
        resource: req.resource,
        seed: config.seed,
        metric: config.metric!,
      })
      await train(data, params, undefined, {
        onRound: (round, m) => (report(round + 1, m[config.metric!]) === 'stop' ? 'stop' : undefined),
      })
      return { gpuSeconds: 0 }
    },
  }
}

async function sweep(metric: string, objective: string): Promise<SweepState> {
  const config: SweepConfig = {
    model: 'gbdt',
    table: 'http://unused/t/',
    label: 'y',
    strategy: 'hyperband',
    minResource: 1,
    maxResource: 9,
    eta: 3,
    seed: 3,
    metric,
    fixed: { objective, max_depth: 3, max_bin: 32 },
    space: { eta: { type: 'loguniform', low: 0.02, high: 1 } },
  }
  const { strategy } = prepareSweep(config)
  return runSweep(config, strategy, runner(config, rows(600, objective === 'reg:logistic')), new MemoryStore())
}

/**
 * Per rung that promoted trials: the metrics of those promoted and of those left behind. sign 1:
 * every promoted one is at most every other (minimised); −1: at least (maximised).
 */
function promotedFirst(s: SweepState, sign: 1 | -1): number {
  const from = new Set(s.trials.map(t => t.promotedFrom).filter(id => id !== undefined))
  const rungs = new Map<string, { up: number[]; left: number[] }>()
  for (const t of s.trials) {
    const key = `${t.bracket}/${t.rung}`
    const r = rungs.get(key) ?? { up: [], left: [] }
    rungs.set(key, r)
    ;(from.has(t.id) ? r.up : r.left).push(sign * t.metric!)
  }
  let checked = 0
  for (const r of rungs.values())
    if (r.up.length && r.left.length) {
      expect(Math.max(...r.up)).toBeLessThanOrEqual(Math.min(...r.left))
      checked++
    }
  return checked
}

describe('a sweep optimises its metric the right way', () => {
  it('mae is minimised: Hyperband promotes and reports the smallest', async () => {
    const s = await sweep('mae', 'reg:squarederror')
    const done = s.trials.filter(t => t.metric !== undefined).map(t => t.metric!)
    expect(new Set(done).size).toBeGreaterThan(3)
    expect(bestOf(s)!.metric).toBe(Math.min(...done))
    expect(promotedFirst(s, 1)).toBeGreaterThan(0)
  }, 30_000)

  it('aucpr is maximised: Hyperband promotes and reports the largest', async () => {
    const s = await sweep('aucpr', 'reg:logistic')
    const done = s.trials.filter(t => t.metric !== undefined).map(t => t.metric!)
    expect(new Set(done).size).toBeGreaterThan(3)
    expect(bestOf(s)!.metric).toBe(Math.max(...done))
    expect(promotedFirst(s, -1)).toBeGreaterThan(0)
  }, 30_000)

  it("the sweep's metric: XGBoost's names with their parameter, for the GBDT only", () => {
    const base: SweepConfig = { model: 'gbdt', table: 'http://h/t/', label: 'y', strategy: 'random', trials: 2 }
    const errors = (c: Partial<SweepConfig>) => planSweep({ ...base, ...c }).errors.join('\n')
    expect(errors({ metric: 'error@0.3' })).toBe('')
    expect(errors({ metric: 'tweedie-nloglik@1.2' })).toBe('')
    expect(planSweep({ ...base, metric: 'gamma-deviance' }).errors).toEqual([])
    expect(errors({ metric: 'error@0.30' })).toMatch(/metric: XGBoost names 'error@0.30' 'error@0.3'/)
    expect(errors({ metric: 'tweedie-nloglik' })).toMatch(/metric: tweedie-nloglik needs its variance power/)
    expect(errors({ metric: 'tweedie-nloglik@2.5' })).toMatch(/\[1, 2\)/)
    expect(errors({ metric: 'mae', model: 'recsys' })).toMatch(/'mae' is a GBDT metric/)
    expect(errors({ metric: 'ndcg@10' })).toBe('')
    expect(errors({ metric: 'cox-nloglik' })).toMatch(/metric: must be /)
  })

  it("without a metric the sweep optimises the objective's own default eval metric, the right way", () => {
    const base: SweepConfig = { model: 'gbdt', table: 'http://h/t/', label: 'y', strategy: 'random', trials: 2 }
    const metric = (c: Partial<SweepConfig>) => sweepMetric({ ...base, ...c })
    const direction = (c: Partial<SweepConfig>) => prepareSweep({ ...base, ...c }).options.direction
    // Binary objectives (and no objective: binary:logistic) keep auc; the recommender too.
    expect(metric({})).toBe('auc')
    expect(metric({ fixed: { objective: 'binary:logistic' } })).toBe('auc')
    expect(metric({ model: 'recsys' })).toBe('auc')
    // The objective from the fixed parameters or a fixed value of the space; its parameters name the metric.
    expect(metric({ fixed: { objective: 'multi:softprob', num_class: 3 } })).toBe('mlogloss')
    expect(metric({ space: { objective: 'rank:ndcg', eta: { type: 'uniform', low: 0.1, high: 0.3 } } })).toBe('ndcg@32')
    expect(metric({ fixed: { objective: 'rank:map', lambdarank_num_pair_per_sample: 8 } })).toBe('map@8')
    expect(metric({ fixed: { objective: 'rank:pairwise', lambdarank_pair_method: 'mean' } })).toBe('ndcg')
    expect(metric({ fixed: { objective: 'reg:squarederror' } })).toBe('rmse')
    expect(metric({ fixed: { objective: 'reg:tweedie', tweedie_variance_power: 1.2 } })).toBe('tweedie-nloglik@1.2')
    expect(metric({ model: 'gblinear', fixed: { objective: 'reg:squarederror' } })).toBe('rmse')
    // A given metric wins.
    expect(metric({ fixed: { objective: 'rank:ndcg' }, metric: 'map@5' })).toBe('map@5')
    // The direction follows the resolved metric (eval/metrics.ts maximize).
    expect(direction({ fixed: { objective: 'multi:softprob', num_class: 3 } })).toBe('minimize')
    expect(direction({ fixed: { objective: 'rank:ndcg' } })).toBe('maximize')
    expect(direction({ fixed: { objective: 'reg:squarederror' } })).toBe('minimize')
    expect(direction({})).toBe('maximize')
  })
})
