/**
 * The recommender across R data-parallel ranks, in one module: the rank model's interface and
 * gradients, learning-rate scaling, gradient combination over a collective, the CPU reference
 * rank, the backend that steps R ranks as one, and the backend a `--ranks` run trains on (GPU:
 * one GpuModel per rank worker; CPU reference: R RefRanks in this thread). R = ranks.
 */
import type { StopVote } from '../../ranks/stop-vote.ts'
import { RefBackend, cloneState, type ModelState, type RecsysBackend } from './backend.ts'
import type { ModelBatch, ModelShape, RecsysParams, StepLr } from './types.ts'
import type { Collective, CollectiveStats, RankContext } from '../../ranks/types.ts'
import { initOptimizerState, initWeights } from './init.ts'
import { LOSS_REDUCE_WG, modelBackward, modelForward } from './model-ref.ts'
import { applyOptimizers } from './optimizer.ts'
import { reduceSum } from '../../kernels/recsys/reduce_sum.ref.ts'
import { sliceBatch } from './data.ts'
import { parameterCount } from './layout.ts'
import { localGroup } from '../../ranks/local-group.ts'
import type { DeviceSession } from '../../run/device-loss.ts'

/*
 * Types of the recommender across ranks: a rank's local gradients, the gradients
 * combined over all ranks, and the model interface a rank drives. P = dense parameters (all MLP
 * tensors, layout order, concatenated), U = distinct embedding rows, D = embedding dim.
 */

/** How the peak lrs grow with the world size R: ×1, ×R (Goyal et al.) or ×√R. */
export type LrScaling = 'none' | 'linear' | 'sqrt'

/** One rank's gradients of Σ loss over its batch (not the mean: ranks divide by the global rows). */
export interface RankGradients {
  /** Rows of this rank's batch (0 allowed: the rank still takes part in the collectives). */
  n: number
  /** Σ per-row BCE loss of the batch. */
  lossSum: number
  /** f32 [P]: every dense tensor's gradient, layout order (w0, b0, w1, …), concatenated. */
  dense: Float32Array<ArrayBuffer>
  /** u32 [U]: the batch's distinct embedding rows, ascending. */
  rows: Uint32Array<ArrayBuffer>
  /** f32 [U × D]: gradient of row rows[u]. */
  dRows: Float32Array<ArrayBuffer>
}

/** Gradients of the mean loss over the global batch (identical on every rank). */
export interface CombinedGradients {
  /** Global batch rows N = Σ ranks' n. */
  n: number
  /** Mean loss over the global batch. */
  loss: number
  /** f32 [P]: Σ ranks' dense gradients / N. */
  dense: Float32Array<ArrayBuffer>
  /** u32 [U]: union of the ranks' touched rows, ascending; only these rows are updated. */
  rows: Uint32Array<ArrayBuffer>
  /** f32 [U × D]: per row, Σ ranks' gradients in rank order / N. */
  dRows: Float32Array<ArrayBuffer>
}

/** A backend that can split its step: local gradients out, combined gradients in. */
export interface RankModel extends RecsysBackend {
  /** Forward + backward of `batch` (n ≥ 1) without updating; reads the gradients back. */
  gradients(batch: ModelBatch): Promise<RankGradients>
  /** One optimizer update (Adam's t advances) with gradients combined over the ranks. */
  applyGradients(g: CombinedGradients, lr: StepLr): Promise<void>
}

/*
 * Learning-rate scaling for data-parallel runs: with R ranks the global batch is
 * R × batch_size, so fewer, larger steps are taken per epoch. The linear rule (Goyal et al.,
 * "Accurate, Large Minibatch SGD") scales the peak lr by R, the square-root rule (Krizhevsky,
 * "One weird trick"; suited to Adam-type optimizers) by √R; both reach the peak through the
 * existing linear warmup (warmup_steps) so the first large steps do not diverge.
 */

/** The factor rule `lr_scaling` applies to the peak lrs for `world` = R ranks. */
export function lrScale(rule: RecsysParams['lr_scaling'], world: number): number {
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`ranks must be an integer ≥ 1, got ${world}`)
  if (rule === 'linear') return world
  if (rule === 'sqrt') return Math.sqrt(world)
  return 1
}

/** `p` with lr and embedding_lr scaled by the rule for R ranks (unchanged for R = 1 or 'none'). */
export function scaledParams(p: RecsysParams, world: number): RecsysParams {
  const k = lrScale(p.lr_scaling, world)
  return k === 1 ? p : { ...p, lr: p.lr * k, embedding_lr: p.embedding_lr * k }
}

/*
 * Combining the ranks' gradients of one step. Dense gradients: one allreduce(sum)
 * of the concatenated MLP gradients. Embedding gradients: sparse — every rank allgathers the
 * others' touched rows and row gradients and merges them per row in rank order, so only rows
 * some rank touched are updated and no rank ships an [R × D] table. Ranks send gradients of
 * Σ loss; dividing by the global rows N afterwards gives the gradient of the global batch mean
 * even when ranks hold different row counts (validation holdout, last batch).
 * P = dense parameters, U = distinct rows, D = embedding dim.
 */

/** What a rank ships in the allgather: everything but the dense gradients, and its stop vote. */
type SparsePart = Pick<RankGradients, 'n' | 'lossSum' | 'rows' | 'dRows'> & { stop: boolean }

/**
 * The global-batch gradients from this rank's `g`; every rank must call it in the same step.
 * Resolves to the same values on every rank. With world 1 no collective traffic is needed but
 * the same arithmetic runs (so R = 1 through this path equals a plain step up to the division).
 * `stop`: the user's Stop travels with the allgather, so every rank agrees after the same step.
 */
export async function combineGradients(
  coll: Collective,
  g: RankGradients,
  dim: number,
  stop?: StopVote,
): Promise<CombinedGradients> {
  const part: SparsePart = { n: g.n, lossSum: g.lossSum, rows: g.rows, dRows: g.dRows, stop: stop?.vote ?? false }
  const parts = coll.world === 1 ? [part] : await coll.allgather(part)
  stop?.agree(parts.map(p => p.stop))
  const dense = coll.world === 1 ? g.dense.slice() : await coll.allreduceSum(g.dense)
  const n = parts.reduce((s, p) => s + p.n, 0)
  const merged = mergeRowGradients(parts, dim)
  if (n > 0) {
    divideInPlace(dense, n)
    divideInPlace(merged.dRows, n)
  }
  const loss = n > 0 ? parts.reduce((s, p) => s + p.lossSum, 0) / n : NaN
  return { n, loss, dense, rows: merged.rows, dRows: merged.dRows }
}

/**
 * Union of the parts' touched rows (ascending) and, per row, the sum of the parts' gradients
 * in part (= rank) order, rounded to f32 after each addition (as a rank-order float sum).
 * Throws RangeError when a part's dRows length is not U × D.
 */
export function mergeRowGradients(
  parts: readonly Pick<RankGradients, 'rows' | 'dRows'>[],
  dim: number,
): { rows: Uint32Array<ArrayBuffer>; dRows: Float32Array<ArrayBuffer> } {
  parts.forEach((p, r) => {
    if (p.dRows.length !== p.rows.length * dim)
      throw new RangeError(`rank ${r}: dRows has ${p.dRows.length} values, expected ${p.rows.length} rows × dim ${dim}`)
  })
  const rows = unionSorted(parts.map(p => p.rows))
  const dRows = new Float32Array(rows.length * dim)
  for (const p of parts) {
    let k = 0 // both lists ascending: walk them together instead of searching
    for (let u = 0; u < p.rows.length; u++) {
      while (rows[k] !== p.rows[u]) k++
      for (let d = 0; d < dim; d++) dRows[k * dim + d] += p.dRows[u * dim + d]
    }
  }
  return { rows, dRows }
}

/** Distinct values of ascending u32 lists, ascending. */
function unionSorted(lists: readonly Uint32Array[]): Uint32Array<ArrayBuffer> {
  const all = new Uint32Array(lists.reduce((s, l) => s + l.length, 0))
  let at = 0
  for (const l of lists) {
    all.set(l, at)
    at += l.length
  }
  all.sort()
  let u = 0
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[u++] = all[i]
  return all.slice(0, u)
}

function divideInPlace(a: Float32Array, n: number): void {
  for (let i = 0; i < a.length; i++) a[i] = a[i] / n
}

/*
 * The CPU reference as a rank (RankModel): the reference backend plus a split step — gradients
 * of Σ loss over the rank's batch out, combined gradients in. Used by the Node identity tests
 * and by `--backend cpu --ranks R`. P = dense parameters, U = distinct rows, D = embedding dim.
 */

/** A CPU reference rank: the reference backend (step, predict, state) plus the split step. */
export class RefRank extends RefBackend implements RankModel {
  async gradients(batch: ModelBatch): Promise<RankGradients> {
    const a = modelForward(this.shape, this.state.weights, batch)
    const g = modelBackward(this.shape, this.state.weights, batch, a, 1)
    return {
      n: batch.n,
      lossSum: reduceSum(a.loss, a.n, LOSS_REDUCE_WG),
      dense: concatTensors(g.dense),
      rows: g.segments.uniq,
      dRows: g.dRows,
    }
  }

  async applyGradients(c: CombinedGradients, lr: StepLr): Promise<void> {
    const dense = splitTensors(
      c.dense,
      this.state.weights.dense.map(t => t.length),
    )
    const segments = { uniq: c.rows, segStart: new Uint32Array(0), order: new Uint32Array(0) } // the optimizers read uniq only
    applyOptimizers(
      this.shape,
      this.params,
      this.state.weights,
      this.state.opt,
      { segments, dRows: c.dRows, dense },
      lr,
    )
  }
}

/** A reference rank with fresh seeded weights (the same on every rank for the same seed). */
export function createRefRank(shape: ModelShape, params: RecsysParams): RefRank {
  return new RefRank(shape, params, {
    weights: initWeights(shape, params.seed),
    opt: initOptimizerState(shape, params),
  })
}

/** The tensors one after another: f32 [Σ lengths]. */
export function concatTensors(tensors: readonly Float32Array[]): Float32Array<ArrayBuffer> {
  const out = new Float32Array(tensors.reduce((s, t) => s + t.length, 0))
  let at = 0
  for (const t of tensors) {
    out.set(t, at)
    at += t.length
  }
  return out
}

/** Copies of consecutive slices of `flat` with the given lengths (they must add up to its length). */
export function splitTensors(flat: Float32Array, lengths: readonly number[]): Float32Array<ArrayBuffer>[] {
  const total = lengths.reduce((s, n) => s + n, 0)
  if (total !== flat.length)
    throw new RangeError(`dense gradients: ${flat.length} values, the model has ${total} dense parameters`)
  let at = 0
  return lengths.map(n => flat.slice(at, (at += n)))
}

/*
 * R ranks driven as one RecsysBackend, so the unchanged training loop trains them:
 * `step` takes a global batch of up to R × B rows, gives rank r the contiguous slice r (the
 * global batch is the ranks' batches one after another, as in a single-rank run with batch
 * R × B), and each rank computes its gradients, combines them with the others through its
 * Collective (ranks.ts combineGradients) and applies the same update. Every rank therefore holds the same
 * weights; predictions, state export and the non-finite check use rank 0.
 * B = per-rank batch, N = global batch rows.
 */

/** One training step of one rank: local gradients → combined over ranks → update. Resolves to the global mean loss. */
export async function rankStep(
  model: RankModel,
  coll: Collective,
  batch: ModelBatch,
  lr: StepLr,
  stop?: StopVote,
): Promise<number> {
  const local = batch.n > 0 ? await model.gradients(batch) : emptyGradients(model.shape)
  const combined = await combineGradients(coll, local, model.shape.dim, stop)
  await model.applyGradients(combined, lr)
  return combined.loss
}

/** The gradients of a rank with no rows this step (it still joins the collectives). */
export function emptyGradients(shape: ModelShape): RankGradients {
  return {
    n: 0,
    lossSum: 0,
    dense: new Float32Array(parameterCount(shape).dense),
    rows: new Uint32Array(0),
    dRows: new Float32Array(0),
  }
}

/** Rows [r·⌈N/R⌉, (r+1)·⌈N/R⌉) of the global batch for each rank r (the last ranks may get fewer, or none). */
export function splitBatch(batch: ModelBatch, world: number, shape: { sparse: number; dense: number }): ModelBatch[] {
  const per = Math.ceil(batch.n / world)
  return Array.from({ length: world }, (_, r) =>
    sliceBatch(batch, Math.min(batch.n, r * per), Math.min(batch.n, (r + 1) * per), shape),
  )
}

/** R rank models in this thread, each with its Collective (localGroup or worker-backed). */
export class RanksBackend implements RecsysBackend {
  private losses: number[] = []
  readonly maxBatch: number

  /** `ranks[r]` talks through `group[r]`; all start from the same state. `stop`: a rank worker's vote (stop-vote.ts). */
  constructor(
    private readonly ranks: RankModel[],
    private readonly group: Collective[],
    private readonly stop?: StopVote,
  ) {
    if (ranks.length !== group.length || ranks.length < 1)
      throw new RangeError(`RanksBackend: ${ranks.length} models for ${group.length} collectives`)
    this.maxBatch = ranks.length * ranks[0].maxBatch
  }

  get shape(): ModelShape {
    return this.ranks[0].shape
  }

  /** R: ranks in the whole run (this thread may drive only some of them). */
  get world(): number {
    return this.group[0].world
  }

  async step(batch: ModelBatch, lr: StepLr): Promise<void> {
    const parts = splitBatch(batch, this.ranks.length, this.shape)
    const losses = await Promise.all(this.ranks.map((m, r) => rankStep(m, this.group[r], parts[r], lr, this.stop)))
    this.losses.push(losses[0])
  }

  async takeLosses(): Promise<number[]> {
    const out = this.losses
    this.losses = []
    return out
  }

  async predict(batch: ModelBatch): Promise<Float32Array> {
    const m = this.ranks[0],
      out = new Float32Array(batch.n)
    for (let at = 0; at < batch.n; at += m.maxBatch) {
      const end = Math.min(batch.n, at + m.maxBatch)
      out.set(await m.predict(sliceBatch(batch, at, end, this.shape)), at)
    }
    return out
  }

  firstNonFinite(): Promise<string | undefined> {
    return this.ranks[0].firstNonFinite()
  }

  exportState(): Promise<ModelState> {
    return this.ranks[0].exportState()
  }

  async importState(state: ModelState): Promise<void> {
    await Promise.all(this.ranks.map(m => m.importState(state)))
  }

  /** Rank 0's per-op collective totals (every rank moves the same amounts). */
  collectives(): CollectiveStats[] {
    return this.group[0].stats()
  }

  destroy(): void {
    this.ranks.forEach(m => m.destroy())
  }
}

/*
 * The recommender's backend for `--ranks R`. GPU: inside each of R rank workers (the one run on
 * every rank, src/run/ranks.ts) one GpuModel on the rank's own device, its own shard of every
 * epoch (the loader's rank assignment), gradients combined every step. CPU reference: R RefRanks
 * in this thread on an in-thread group, each step's global batch of R × batch_size rows split
 * between them.
 */

/** Summary fields of a multi-rank run. */
export interface RanksSummary {
  ranks: number
  collectives: CollectiveStats[]
}

/**
 * The backend of a multi-rank run in this thread: on a rank worker (`rank` given) one GpuModel
 * on the rank's own device talking through the rank's collective; otherwise (CPU reference)
 * R RefRanks on an in-thread group.
 */
export async function ranksBackend(
  shape: ModelShape,
  params: RecsysParams,
  state: ModelState,
  world: number,
  rank?: RankContext,
): Promise<DeviceSession<RanksBackend>> {
  if (!rank) {
    const group = localGroup(world)
    return {
      backend: new RanksBackend(
        group.map(() => new RefRank(shape, params, cloneState(state))),
        group,
      ),
      adapter: `cpu (reference backend) × ${world} ranks in one thread`,
    }
  }
  const [{ PipelineCache }, { GpuModel }] = await Promise.all([
    import('../../gpu/pipeline-cache.ts'),
    import('./model-gpu.ts'),
  ])
  const device = await rank.device()
  const model = await GpuModel.create(new PipelineCache(device), shape, params, state)
  return {
    backend: new RanksBackend([model], [rank.coll], rank.stop),
    adapter: `${rank.adapterLabel()} × ${world} rank workers`,
  }
}

/** `result` with `ranks` and rank 0's collective totals in its summary when `ranks` ran it (else as is). */
export function withRanks<T extends { summary: object }>(result: T, ranks?: RanksBackend): T {
  if (!ranks) return result
  return { ...result, summary: { ...result.summary, ranks: ranks.world, collectives: ranks.collectives() } }
}
