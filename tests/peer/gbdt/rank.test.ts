/**
 * Ranking against real XGBoost 1.7.4 (tests/support/xgboost_rank_peer.py): our rank:ndcg model file
 * loads there and predicts our margins (≤ 1e-5); XGBoost's own rank:ndcg (1.7.4's LambdaRankObj:
 * random pairs, so not the same trees as our XGBoost 2.0 LambdaMART) trained on the same
 * generated queries reaches a validation NDCG@10 no better than ours (both printed); our ndcg@10 of
 * XGBoost's margins equals its own eval. XGBoost-trained rank:ndcg / rank:pairwise / rank:map models
 * (1.7.4's lambda_rank_param: num_pairsample random pairs = 2.0's mean method) import with equal
 * margins and continue with --init-model, keeping the saved pair config unless the run gives one.
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { predictMargins } from '../../../src/models/gbdt/predict.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { readInitModel } from '../../../src/models/gbdt/init-model.ts'
import { runParams } from '../../../src/models/gbdt/family.ts'
import { evaluate } from '../../../src/eval/metrics.ts'
import { makeRanking } from '../../unit/gbdt/ranking-data.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'
import { maxDiff, tempDir } from './xgboost-peer.ts'

const peer = pythonPeer(['xgboost', 'numpy'])
const SCRIPT = new URL('../../support/xgboost_rank_peer.py', import.meta.url).pathname

/** Row-major f32 bytes of F columns. */
function rowMajor(columns: Float32Array[]): Uint8Array {
  const n = columns[0].length,
    F = columns.length,
    x = new Float32Array(n * F)
  columns.forEach((c, f) => c.forEach((v, i) => (x[i * F + f] = v)))
  return new Uint8Array(x.buffer)
}

const bytes = (a: Float32Array | Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)

describe.runIf(peer.run)('rank:ndcg against XGBoost 1.7.4', () => {
  it('our model loads with equal margins; NDCG@10 on validation queries at least XGBoost’s own rank:ndcg', async () => {
    peer.require()
    // 300 training and 100 validation queries of 2…30 documents, relevance 0…4.
    const { data } = makeRanking(300, 8, 41, 30, 100)
    const common = { objective: 'rank:ndcg', eta: 0.1, max_depth: 6, max_bin: 256, num_round: 40 }
    const ours = await train(data, parseParams({ ...common, eval_metric: 'ndcg@10' }))
    const dir = tempDir(),
      file = (name: string, b: Uint8Array) => (writeFileSync(join(dir, name), b), join(dir, name))
    const v = data.valid!
    const args = [
      file('model.json', new TextEncoder().encode(toXGBoostJsonString(ours))),
      file('tx.f32', rowMajor(data.columns)),
      file('ty.f32', bytes(data.labels)),
      file('tg.u32', bytes(data.groups!)),
      file('vx.f32', rowMajor(v.columns)),
      file('vy.f32', bytes(v.labels)),
      file('vg.u32', bytes(v.groups!)),
      String(data.columns.length),
      JSON.stringify({ ...common, tree_method: 'hist', eval_metric: 'ndcg@10', seed: 0 }),
    ]
    const r = spawnSync(PYTHON, [SCRIPT, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
    if (r.status !== 0) throw new Error(`xgboost_rank_peer.py: ${r.stderr}`)
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      ours: number[]
      theirs: number[]
      eval: Record<string, number>
      version: string
    }
    expect(maxDiff(out.ours, predictMargins(ours, v.columns))).toBeLessThanOrEqual(1e-5)
    const opts = { group_ptr: v.groups! }
    const oursNdcg = evaluate('ndcg@10', predictMargins(ours, v.columns), v.labels, undefined, opts)
    const theirsNdcg = evaluate('ndcg@10', Float32Array.from(out.theirs), v.labels, undefined, opts)
    expect(oursNdcg).toBeCloseTo(ours.history.at(-1)!['ndcg@10'], 6)
    expect(theirsNdcg).toBeCloseTo(out.eval['ndcg@10'], 4)
    console.log(
      `validation NDCG@10 over ${v.groups!.length - 1} queries: snaptrain ${oursNdcg.toFixed(4)}, ` +
        `XGBoost ${out.version} ${theirsNdcg.toFixed(4)} (its eval ${out.eval['ndcg@10']})`,
    )
    // 2.0's top-32 pairs per document learn more per round than 1.7.4's one random pair: not worse.
    expect(oursNdcg).toBeGreaterThan(theirsNdcg - 0.01)
  }, 120_000)

  it('XGBoost-trained rank:ndcg / pairwise / map models import with equal margins and continue, keeping their pair config', async () => {
    peer.require()
    const graded = makeRanking(60, 5, 7, 12, 20).data
    const dir = tempDir(),
      file = (name: string, b: Uint8Array) => (writeFileSync(join(dir, name), b), join(dir, name))
    for (const objective of ['rank:ndcg', 'rank:pairwise', 'rank:map']) {
      // rank:map: relevant (relevance ≥ 2) or not.
      const relevant = (y: Float32Array) => y.map(r => (r >= 2 ? 1 : 0))
      const data =
        objective === 'rank:map'
          ? {
              ...graded,
              labels: relevant(graded.labels),
              valid: { ...graded.valid!, labels: relevant(graded.valid!.labels) },
            }
          : graded
      const v = data.valid!
      const inputs = [
        file('tx.f32', rowMajor(data.columns)),
        file('ty.f32', bytes(data.labels)),
        file('tg.u32', bytes(data.groups!)),
        file('vx.f32', rowMajor(v.columns)),
        file('vy.f32', bytes(v.labels)),
        file('vg.u32', bytes(v.groups!)),
        String(data.columns.length),
      ]
      const common = { objective, eta: 0.3, max_depth: 4, max_bin: 64, num_round: 4 }
      const ours = toXGBoostJsonString(await train(data, parseParams(common)))
      const saved = join(dir, `${objective.replace(':', '-')}.json`)
      // 1.7.4's num_pairsample: 3 random pairs per document (2.0's mean method with 3 pairs).
      const params = JSON.stringify({ ...common, tree_method: 'hist', num_pairsample: 3, seed: 0 })
      const args = [file('model.json', new TextEncoder().encode(ours)), ...inputs.slice(0, 6), inputs[6], params, saved]
      const r = spawnSync(PYTHON, [SCRIPT, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
      if (r.status !== 0) throw new Error(`xgboost_rank_peer.py: ${r.stderr}`)
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { theirs: number[] }
      const text = readFileSync(saved, 'utf8')
      expect(JSON.parse(text).learner.objective.lambda_rank_param.num_pairsample).toBe('3')
      const theirs = readInitModel(text).booster
      expect(theirs.params).toMatchObject({
        objective,
        lambdarank_pair_method: 'mean',
        lambdarank_num_pair_per_sample: 3,
      })
      expect(maxDiff(out.theirs, predictMargins(theirs, v.columns))).toBeLessThanOrEqual(1e-5)
      // --init-model: the saved pair config unless the run gives its own (the run's parameters win, as XGBoost).
      const p = runParams({ params: { objective, num_round: 2, max_bin: 64 }, initModel: text })
      expect([p.lambdarank_pair_method, p.lambdarank_num_pair_per_sample]).toEqual(['mean', 3])
      const given = runParams({ params: { objective, lambdarank_pair_method: 'topk' }, initModel: text })
      expect([given.lambdarank_pair_method, given.lambdarank_num_pair_per_sample]).toEqual(['topk', 3])
      const more = await train(data, p, undefined, { initModel: theirs })
      expect(more.trees.length).toBe(theirs.trees.length + 2)
      expect(more.trees.slice(0, theirs.trees.length)).toEqual(theirs.trees)
      // Our own file of the continued model reads back with the same pair config (its lambdarank_param).
      expect(readInitModel(toXGBoostJsonString(more)).booster.params).toMatchObject({
        lambdarank_pair_method: 'mean',
        lambdarank_num_pair_per_sample: 3,
      })
    }
  }, 120_000)
})
