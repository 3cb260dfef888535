import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ceilingAucs, ceilingProbs } from '../../../tools/datagen/ceiling.ts'
import { openRecsysData } from '../../../src/models/recsys/data.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { GeneratorInfo } from '../../../tools/datagen/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { clicksFixture } from '../recsys/clicks-fixture.ts'

describe('clicks learnable ceiling', () => {
  test('without per-user terms the three probabilities agree; the marginal only shrinks toward 0.5', () => {
    const rng = new Rng(1)
    const logit = Float64Array.from({ length: 500 }, () => rng.normal() * 2)
    const none = ceilingProbs(logit, new Float64Array(500), new Float64Array(500), -2)
    expect([...none.learnable]).toEqual([...none.bayes])
    none.marginal.forEach((m, i) => expect(m).toBeCloseTo(none.bayes[i], 12))
    const user = Float64Array.from({ length: 500 }, () => rng.normal())
    const p = ceilingProbs(logit, user, new Float64Array(500).fill(1), -2)
    // E[σ(x + Z)] lies between σ(x) and 0.5 (σ is convex below 0, concave above).
    p.marginal.forEach((m, i) => {
      const l = p.learnable[i]
      expect(Math.min(l, 0.5) - 1e-12 <= m && m <= Math.max(l, 0.5) + 1e-12).toBe(true)
    })
    const labels = Int32Array.from(p.bayes, q => (rng.next() < q ? 1 : 0))
    const a = ceilingAucs(
      p,
      labels,
      Int32Array.from({ length: 500 }, (_, i) => i),
    )
    expect(a.rows).toBe(500)
    expect(a.bayesAuc).toBeGreaterThan(a.learnableAuc)
  })

  test("_generator.json reports it over all rows and over exactly the trainers' validation rows", {
    timeout: 30_000,
  }, async () => {
    const fx = await clicksFixture()
    const info = JSON.parse(readFileSync(join(fx.dir, '_generator.json'), 'utf8')) as GeneratorInfo
    const c = info.learnable!
    expect(c.rows).toBe(info.finalRows)
    expect(c.bayesAuc).toBe(info.bayesAuc)
    expect(c.learnableAuc).toBeLessThan(c.bayesAuc)
    expect(c.learnableAucMarginal).toBeGreaterThan(0.5)
    for (const s of c.splits) {
      const params = parseRecsysParams({ seed: s.seed, batch_size: 512 })
      const data = await openRecsysData(
        { plan: fx.plan, label: 'label', validFraction: s.fraction, workers: 0, http: { fetch: fx.fetch } },
        params,
      )
      expect(s.rows, `fraction ${s.fraction}`).toBe(data.valid.n)
    }
  })
})
