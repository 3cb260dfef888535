/**
 * Shared fixtures of the recommender-across-ranks tests (Node and browser): a tiny model, seeded
 * batches, and the identity check — R ranks with per-rank batch B against one model with batch
 * R × B on the same global batches. B ≤ 16, S = 2, D = 4, R_rows = 20 (tables of 7 and 13),
 * 3 dense inputs, layers [8, 4].
 */
import type { ModelState, RecsysBackend } from '../../src/models/recsys/backend.ts'
import { stateTensors } from '../../src/models/recsys/checkpoint.ts'
import { initOptimizerState, initWeights } from '../../src/models/recsys/init.ts'
import type { ModelBatch, ModelShape, RecsysParams } from '../../src/models/recsys/types.ts'
import { Rng } from '../../src/util/rng.ts'
import { compareArrays, describeMismatch } from '../../src/util/tolerance.ts'

/** The model of these tests. */
export const DIST_SHAPE: ModelShape = { sparse: 2, dim: 4, totalRows: 20, dense: 3, layers: [8, 4] }

/** `n` seeded rows: a row id from each table, dense values in [-1, 1), 30 % positives. */
export function randomBatch(rng: Rng, n: number): ModelBatch {
  const rows = new Uint32Array(n * 2)
  for (let b = 0; b < n; b++) {
    rows[2 * b] = rng.int(7)
    rows[2 * b + 1] = 7 + rng.int(13)
  }
  const labels = new Float32Array(n).map(() => (rng.next() < 0.3 ? 1 : 0))
  return { n, rows, dense: rng.floats(n * 3), labels }
}

/** Fresh state whose embeddings are large enough that every path (and every ReLU) matters. */
export function startState(p: RecsysParams, seed: number, shape: ModelShape = DIST_SHAPE): ModelState {
  const rng = new Rng(seed)
  const weights = initWeights(shape, seed)
  weights.embeddings.set(rng.floats(weights.embeddings.length, -0.5, 0.5))
  return { weights, opt: initOptimizerState(shape, p) }
}

/** Runs the same global batches through both backends at the same lrs; returns both final states and losses. */
export async function trainBoth(
  single: RecsysBackend,
  ranks: RecsysBackend,
  batches: ModelBatch[],
  p: RecsysParams,
): Promise<{ single: ModelState; ranks: ModelState; singleLoss: number[]; ranksLoss: number[] }> {
  for (const [k, batch] of batches.entries()) {
    const lr = { dense: p.lr * Math.min(1, (k + 1) / 4), embedding: p.embedding_lr }
    await single.step(batch, lr)
    await ranks.step(batch, lr)
  }
  return {
    single: await single.exportState(),
    ranks: await ranks.exportState(),
    singleLoss: await single.takeLosses(),
    ranksLoss: await ranks.takeLosses(),
  }
}

/** Names and mismatch summaries of every state tensor outside atol + rtol·|want| (empty: identical within tolerance). */
export function stateMismatches(
  got: ModelState,
  want: ModelState,
  atol: number,
  rtol: number,
  shape: ModelShape = DIST_SHAPE,
): string[] {
  const g = Object.fromEntries(stateTensors(shape, got))
  const out: string[] = []
  for (const [name, w] of stateTensors(shape, want)) {
    const r = compareArrays(g[name], w, atol, rtol)
    if (!r.ok) out.push(`${name}: ${describeMismatch(r)}`)
  }
  if (got.opt.step !== want.opt.step) out.push(`opt.step ${got.opt.step} != ${want.opt.step}`)
  return out
}

/** Largest |got − want| over every state tensor (for the log line). */
export function maxStateDiff(got: ModelState, want: ModelState, shape: ModelShape = DIST_SHAPE): number {
  const g = Object.fromEntries(stateTensors(shape, got))
  let max = 0
  for (const [name, w] of stateTensors(shape, want))
    w.forEach((x, i) => {
      max = Math.max(max, Math.abs(g[name][i] - x))
    })
  return max
}
