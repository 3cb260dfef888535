/**
 * R ranks driven as one RecsysBackend, so the unchanged training loop trains them:
 * `step` takes a global batch of up to R × B rows, gives rank r the contiguous slice r (the
 * global batch is the ranks' batches one after another, as in a single-rank run with batch
 * R × B), and each rank computes its gradients, combines them with the others through its
 * Collective (dist-combine.ts) and applies the same update. Every rank therefore holds the same
 * weights; predictions, state export and the non-finite check use rank 0.
 * B = per-rank batch, N = global batch rows.
 */
import type { Collective, CollectiveStats } from '../../ranks/types.ts'
import type { ModelState, RecsysBackend } from './backend.ts'
import { sliceBatch } from './data.ts'
import { combineGradients } from './dist-combine.ts'
import type { RankGradients, RankModel } from './dist-types.ts'
import { parameterCount } from './layout.ts'
import type { ModelBatch, ModelShape, StepLr } from './types.ts'

/** One training step of one rank: local gradients → combined over ranks → update. Resolves to the global mean loss. */
export async function rankStep(model: RankModel, coll: Collective, batch: ModelBatch, lr: StepLr): Promise<number> {
  const local = batch.n > 0 ? await model.gradients(batch) : emptyGradients(model.shape)
  const combined = await combineGradients(coll, local, model.shape.dim)
  await model.applyGradients(combined, lr)
  return combined.loss
}

/** The gradients of a rank with no rows this step (it still joins the collectives). */
export function emptyGradients(shape: ModelShape): RankGradients {
  return { n: 0, lossSum: 0, dense: new Float32Array(parameterCount(shape).dense), rows: new Uint32Array(0), dRows: new Float32Array(0) }
}

/** Rows [r·⌈N/R⌉, (r+1)·⌈N/R⌉) of the global batch for each rank r (the last ranks may get fewer, or none). */
export function splitBatch(batch: ModelBatch, world: number, shape: { sparse: number; dense: number }): ModelBatch[] {
  const per = Math.ceil(batch.n / world)
  return Array.from({ length: world }, (_, r) => sliceBatch(batch, Math.min(batch.n, r * per), Math.min(batch.n, (r + 1) * per), shape))
}

/** R rank models in this thread, each with its Collective (localGroup or worker-backed). */
export class RanksBackend implements RecsysBackend {
  private losses: number[] = []
  readonly maxBatch: number

  /** `ranks[r]` talks through `group[r]`; all start from the same state. */
  constructor(private readonly ranks: RankModel[], private readonly group: Collective[]) {
    if (ranks.length !== group.length || ranks.length < 1) throw new RangeError(`RanksBackend: ${ranks.length} models for ${group.length} collectives`)
    this.maxBatch = ranks.length * ranks[0].maxBatch
  }

  get shape(): ModelShape { return this.ranks[0].shape }

  /** R: ranks in the whole run (this thread may drive only some of them). */
  get world(): number { return this.group[0].world }

  async step(batch: ModelBatch, lr: StepLr): Promise<void> {
    const parts = splitBatch(batch, this.ranks.length, this.shape)
    const losses = await Promise.all(this.ranks.map((m, r) => rankStep(m, this.group[r], parts[r], lr)))
    this.losses.push(losses[0])
  }

  async takeLosses(): Promise<number[]> {
    const out = this.losses
    this.losses = []
    return out
  }

  async predict(batch: ModelBatch): Promise<Float32Array> {
    const m = this.ranks[0], out = new Float32Array(batch.n)
    for (let at = 0; at < batch.n; at += m.maxBatch) {
      const end = Math.min(batch.n, at + m.maxBatch)
      out.set(await m.predict(sliceBatch(batch, at, end, this.shape)), at)
    }
    return out
  }

  firstNonFinite(): Promise<string | undefined> { return this.ranks[0].firstNonFinite() }

  exportState(): Promise<ModelState> { return this.ranks[0].exportState() }

  async importState(state: ModelState): Promise<void> {
    await Promise.all(this.ranks.map(m => m.importState(state)))
  }

  /** Rank 0's per-op collective totals (every rank moves the same amounts). */
  collectives(): CollectiveStats[] { return this.group[0].stats() }

  destroy(): void {
    this.ranks.forEach(m => m.destroy())
  }
}
