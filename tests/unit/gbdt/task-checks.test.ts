/**
 * Multiclass and ranking runs checked before any row loads, and told plainly (issue 29):
 * eval_metric against the objective (parseParams: mlogloss / merror only with multi:*, multi:*
 * only with mlogloss, merror, auc, aucpr — what XGBoost 1.7.4 scores, the rest failing at its
 * first evaluation), a ranking metric without query groups (the GBDT precheck: --qid, on any
 * objective as XGBoost allows), and a sweep trial's metric likewise; a num_class inferred from the
 * labels said once in the stage messages on ranks (R = 2: string label marital of the marketing
 * table, 3 classes; R = 1 and the manifest: tests/integration/gbdt/explain-run.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { classesMessage, gbdtFamily, gbdtTrialParams, runParams } from '../../../src/models/gbdt/family.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { localGroup } from '../../../src/ranks/local-group.ts'
import type { RankContext } from '../../../src/ranks/types.ts'
import type { Snapshot } from '../../../src/table/types.ts'
import type { TrainConfig } from '../../../src/run/config.ts'

describe('eval_metric against the objective (parseParams)', () => {
  const refused = (objective: string, eval_metric: string) => () => parseParams({ objective, eval_metric })

  it('mlogloss and merror need a multi:* objective; logloss / error named for two classes', () => {
    expect(refused('binary:logistic', 'mlogloss')).toThrow(
      'eval_metric: mlogloss scores the class probabilities of multi:softprob or multi:softmax (num_class), not binary:logistic; for two classes use logloss',
    )
    expect(refused('reg:squarederror', 'auc,merror')).toThrow(
      /^eval_metric: merror scores the class probabilities of multi:softprob or multi:softmax \(num_class\), not reg:squarederror$/,
    )
    expect(refused('rank:ndcg', 'merror')).toThrow('eval_metric: merror')
  })

  it('multi:* takes mlogloss, merror, auc and aucpr only (ranking and one-prediction metrics refused)', () => {
    for (const m of ['logloss', 'error@0.7', 'rmse', 'mphe', 'ndcg@5', 'map', 'pre@3'])
      expect(refused('multi:softprob', m)).toThrow(
        `eval_metric: ${m} scores one prediction a row, but multi:softprob gives num_class probabilities a row; its metrics are mlogloss, merror, auc, aucpr`,
      )
    const p = parseParams({ objective: 'multi:softmax', eval_metric: 'auc,aucpr,merror,mlogloss' })
    expect(p.eval_metric).toEqual(['auc', 'aucpr', 'merror', 'mlogloss'])
    expect(parseParams({ objective: 'multi:softprob' }).eval_metric).toEqual(['mlogloss'])
    // Ranking metrics on a one-prediction objective are XGBoost's too (with query groups: the precheck).
    expect(parseParams({ objective: 'binary:logistic', eval_metric: 'ndcg@5' }).eval_metric).toEqual(['ndcg@5'])
  })

  it("a sweep trial's metric is checked with the trial's objective", () => {
    const spec = { fixed: { objective: 'binary:logistic' }, config: {}, resource: 2, seed: 1 }
    expect(() => gbdtTrialParams({ ...spec, metric: 'mlogloss' } as never)).toThrow('eval_metric: mlogloss scores')
    expect(gbdtTrialParams({ ...spec, metric: 'auc' } as never).eval_metric).toContain('auc')
  })
})

let server: ServedDirectory
let url: string
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  url = `${server.url}marketing/`
})
afterAll(async () => {
  await server?.close()
})

describe('a ranking metric needs query groups (the GBDT precheck, before any row loads)', () => {
  // Any use of this snapshot fails the test: the check comes first.
  const untouched = new Proxy({} as Snapshot, {
    get: (_, key) => {
      throw new Error(`snapshot read (${String(key)})`)
    },
  })

  it('refused without --qid, naming eval_metric, for a ranking objective and any other', async () => {
    for (const params of [{ objective: 'rank:ndcg' }, { objective: 'binary:logistic', eval_metric: 'auc,map@3' }]) {
      // rank:ndcg's default metric is ndcg@32 (XGBoost 2.0's).
      const config: TrainConfig = { table: 'unread', label: 'y', params }
      await expect(gbdtFamily.precheck(untouched, config, runParams(config))).rejects.toThrow(
        `eval_metric: ${params.objective === 'rank:ndcg' ? 'ndcg@32' : 'map@3'} scores rows within their query groups: name the query id column (--qid COL)`,
      )
    }
  })

  it('accepted with --qid on a binary objective (XGBoost 1.7.4 scores ndcg there)', async () => {
    const snapshot = await openSnapshot(url)
    const config: TrainConfig = {
      table: url,
      label: 'y',
      features: ['age', 'balance'],
      qid: 'day',
      params: { objective: 'binary:logistic', eval_metric: 'ndcg@5' },
    }
    await expect(gbdtFamily.precheck(snapshot, config, runParams(config))).resolves.toBeUndefined()
  })
})

describe('a num_class inferred from the labels is said once', () => {
  const config: TrainConfig = {
    table: '',
    label: 'marital',
    features: ['age', 'balance'],
    workers: 0,
    validFraction: 0.2,
    params: { objective: 'multi:softprob', num_round: 1, max_depth: 2, max_bin: 16 },
  }
  const said =
    '3 classes from label marital: divorced, married, single (num_class inferred: its distinct values, sorted)'

  it('R = 2 ranks: rank 0 says it once, from the classes over all ranks', async () => {
    const run = { ...config, table: url }
    const params = runParams(run)
    const snapshot = await openSnapshot(url)
    const messages: string[] = []
    const group = localGroup(2)
    await Promise.all(
      group.map((coll, rank) =>
        gbdtFamily.load(
          {
            config: run,
            snapshot,
            hooks: {},
            rank: { rank, world: 2, coll } as RankContext,
            onProgress: e => e.kind === 'stage' && messages.push(e.message),
          },
          params,
        ),
      ),
    )
    expect(messages.filter(m => m.includes('classes from label'))).toEqual([said])
  })

  it('a numeric label names its codes; many classes are cut after ten', () => {
    expect(classesMessage(4, 'y', {})).toBe('4 classes from label y: 0…3 (num_class inferred: the largest label + 1)')
    const letters = Array.from({ length: 26 }, (_, k) => String.fromCharCode(97 + k))
    expect(classesMessage(26, 'letter', { labelValues: letters })).toBe(
      '26 classes from label letter: a, b, c, d, e, f, g, h, i, j, … (26 in all) (num_class inferred: its distinct values, sorted)',
    )
  })
})
