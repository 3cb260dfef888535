/**
 * The CPU reference as a rank (RankModel): the reference backend plus a split step — gradients
 * of Σ loss over the rank's batch out, combined gradients in. Used by the Node identity tests
 * and by `--backend cpu --ranks R`. P = dense parameters, U = distinct rows, D = embedding dim.
 */
import { RefBackend } from './backend.ts'
import type { CombinedGradients, RankGradients, RankModel } from './dist-types.ts'
import { initOptimizerState, initWeights } from './init.ts'
import { LOSS_REDUCE_WG, modelBackward, modelForward } from './model-ref.ts'
import { applyOptimizers } from './optimizer.ts'
import { reduceSum } from '../../kernels/recsys/reduce_sum.ref.ts'
import type { ModelBatch, ModelShape, RecsysParams, StepLr } from './types.ts'

/** A CPU reference rank: the reference backend (step, predict, state) plus the split step. */
export class RefRank extends RefBackend implements RankModel {
  async gradients(batch: ModelBatch): Promise<RankGradients> {
    const a = modelForward(this.shape, this.state.weights, batch)
    const g = modelBackward(this.shape, this.state.weights, batch, a, 1)
    return { n: batch.n, lossSum: reduceSum(a.loss, a.n, LOSS_REDUCE_WG), dense: concatTensors(g.dense), rows: g.segments.uniq, dRows: g.dRows }
  }

  async applyGradients(c: CombinedGradients, lr: StepLr): Promise<void> {
    const dense = splitTensors(c.dense, this.state.weights.dense.map(t => t.length))
    const segments = { uniq: c.rows, segStart: new Uint32Array(0), order: new Uint32Array(0) } // the optimizers read uniq only
    applyOptimizers(this.shape, this.params, this.state.weights, this.state.opt, { segments, dRows: c.dRows, dense }, lr)
  }
}

/** A reference rank with fresh seeded weights (the same on every rank for the same seed). */
export function createRefRank(shape: ModelShape, params: RecsysParams): RefRank {
  return new RefRank(shape, params, { weights: initWeights(shape, params.seed), opt: initOptimizerState(shape, params) })
}

/** The tensors one after another: f32 [Σ lengths]. */
export function concatTensors(tensors: readonly Float32Array[]): Float32Array<ArrayBuffer> {
  const out = new Float32Array(tensors.reduce((s, t) => s + t.length, 0))
  let at = 0
  for (const t of tensors) { out.set(t, at); at += t.length }
  return out
}

/** Copies of consecutive slices of `flat` with the given lengths (they must add up to its length). */
export function splitTensors(flat: Float32Array, lengths: readonly number[]): Float32Array<ArrayBuffer>[] {
  const total = lengths.reduce((s, n) => s + n, 0)
  if (total !== flat.length) throw new RangeError(`dense gradients: ${flat.length} values, the model has ${total} dense parameters`)
  let at = 0
  return lengths.map(n => flat.slice(at, (at += n)))
}
