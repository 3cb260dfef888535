/**
 * restore_best for any backend: keep the weights of each improving evaluation and put them back
 * at the end of the run. Backends with keepWeights/restoreKeptWeights (the CPU reference, the GPU
 * model's on-device shadow buffers) keep them themselves; for others this keeps a CPU copy from
 * exportState (a full read-back per improvement, so only a fallback).
 */
import type { RecsysBackend } from './backend.ts'
import type { ModelWeights } from './types.ts'

/** The kept weights of one run. */
export class BestWeights {
  private cpu?: ModelWeights

  constructor(private readonly backend: RecsysBackend) {}

  /** Keeps the backend's current weights (called at an evaluation that improved the best AUC). */
  async keep(): Promise<void> {
    if (this.backend.keepWeights) await this.backend.keepWeights()
    else this.cpu = (await this.backend.exportState()).weights
  }

  /** Puts the kept weights back (optimizer state untouched); false when none were kept. */
  async restore(): Promise<boolean> {
    if (this.backend.restoreKeptWeights) return this.backend.restoreKeptWeights()
    if (!this.cpu) return false
    const { opt } = await this.backend.exportState()
    await this.backend.importState({ weights: this.cpu, opt })
    return true
  }
}
