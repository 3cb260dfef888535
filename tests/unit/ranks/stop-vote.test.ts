/**
 * A user's Stop on ranks (src/ranks/stop-vote.ts) over in-thread groups: GBDT ranks stop after
 * the same round when only rank 0 was asked (its vote rides the metrics broadcast), with
 * byte-identical models equal to a run of that many rounds; the recommender's allgather carries
 * any rank's vote to all, and leaves the combined gradients as they were.
 */
import { describe, expect, it } from 'vitest'
import { localGroup } from '../../../src/ranks/local-group.ts'
import { StopVote } from '../../../src/ranks/stop-vote.ts'
import { shardOf, trainShard } from '../../../src/models/gbdt/ranks.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'
import { toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { combineGradients } from '../../../src/models/recsys/ranks.ts'
import { makeBinary } from '../gbdt/synthetic.ts'

describe('StopVote', () => {
  it('agrees on any true vote; an ask alone does not abort', () => {
    const v = new StopVote()
    v.ask()
    expect(v.vote).toBe(true)
    expect(v.signal.aborted).toBe(false)
    v.agree([false, false])
    expect(v.signal.aborted).toBe(false)
    v.agree(true)
    expect(v.signal.aborted).toBe(true)
  })
})

describe('GBDT ranks', () => {
  it('rank 0 asked during round 1: every rank stops after round 2, models identical to 3 rounds on one', async () => {
    const all = makeBinary(900, 4, 7, 0.1)
    const data = { columns: all.columns, labels: all.labels, valid: makeBinary(200, 4, 8, 0.1) }
    const p = parseParams({ max_depth: 3, num_round: 40, max_bin: 16, seed: 3, eval_metric: ['auc'] })
    for (const world of [2, 3]) {
      const group = localGroup(world)
      const votes = group.map(() => new StopVote())
      const lastRound = group.map(() => -1)
      const boosters = await Promise.all(
        group.map((c, r) =>
          trainShard(shardOf(data, world, r), p, c, createCpuBackend, {
            stop: votes[r],
            onRound: round => {
              lastRound[r] = round
              if (r === 0 && round === 1) votes[0].ask()
              return votes[r].signal.aborted ? 'stop' : undefined
            },
          }),
        ),
      )
      expect(lastRound).toEqual(group.map(() => 2))
      const want = toXGBoostJsonString(await train(data, { ...p, num_round: 3 }, createCpuBackend))
      for (const b of boosters) expect(toXGBoostJsonString(b)).toBe(want)
    }
  })
})

describe('recommender ranks', () => {
  const grads = (n: number) => ({
    n,
    lossSum: n / 2,
    dense: Float32Array.of(n, 2 * n),
    rows: Uint32Array.of(n),
    dRows: Float32Array.of(n, n),
  })

  it("any rank's vote reaches every rank after the same allgather; the gradients are unchanged", async () => {
    const plain = await Promise.all(localGroup(3).map((c, r) => combineGradients(c, grads(r + 1), 2)))
    const group = localGroup(3)
    const votes = group.map(() => new StopVote())
    votes[2].ask()
    const voted = await Promise.all(group.map((c, r) => combineGradients(c, grads(r + 1), 2, votes[r])))
    expect(votes.map(v => v.signal.aborted)).toEqual([true, true, true])
    expect(voted).toEqual(plain)
    const quiet = localGroup(2).map(() => new StopVote())
    await Promise.all(localGroup(2).map((c, r) => combineGradients(c, grads(r + 1), 2, quiet[r])))
    expect(quiet.map(v => v.signal.aborted)).toEqual([false, false])
  })
})
