/**
 * Synthetic learning-to-rank data: G query groups of 2…maxDocs documents, F features, relevance
 * 0…4 from a hidden linear score plus noise (per-query offsets, so only order within a query is
 * learnable). Rows come gathered by group (TrainData.groups) and with each row's query id.
 */
import type { TrainData } from '../../../src/eval/dataset.ts'
import { Rng } from '../../../src/util/rng.ts'

export interface RankingSet {
  data: TrainData
  /** Each row's query id (the group index + 1000). */
  qid: Float32Array
}

/** G queries (validation: V more, with their own groups), seeded. */
export function makeRanking(G: number, F: number, seed: number, maxDocs = 12, V = 0): RankingSet {
  const rng = new Rng(seed)
  const w = Array.from({ length: F }, () => rng.normal())
  const part = (groups: number, first: number) => {
    const sizes = Array.from({ length: groups }, () => 2 + rng.int(maxDocs - 1))
    const n = sizes.reduce((a, b) => a + b, 0)
    const columns = Array.from({ length: F }, () => new Float32Array(n))
    const labels = new Float32Array(n),
      qid = new Float32Array(n),
      ptr = new Uint32Array(groups + 1)
    let i = 0
    sizes.forEach((s, g) => {
      const offset = 2 * rng.normal()
      for (let d = 0; d < s; d++, i++) {
        let score = offset
        for (let f = 0; f < F; f++) {
          const x = rng.normal() + (f === 0 ? offset : 0)
          columns[f][i] = x
          score += w[f] * x
        }
        score += 0.5 * rng.normal() - offset * (1 + w[0])
        labels[i] = Math.max(0, Math.min(4, Math.round(score + 1)))
        qid[i] = first + g
      }
      ptr[g + 1] = i
    })
    return { columns, labels, qid, groups: ptr }
  }
  const t = part(G, 1000)
  const v = V > 0 ? part(V, 1000 + G) : undefined
  return {
    data: {
      columns: t.columns,
      labels: t.labels,
      groups: t.groups,
      featureNames: Array.from({ length: F }, (_, f) => `f${f}`),
      labelName: 'rel',
      valid: v && { columns: v.columns, labels: v.labels, groups: v.groups },
    },
    qid: t.qid,
  }
}
