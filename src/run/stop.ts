/**
 * A user's Stop of one training run: the run ends after the round (GBDT) or step (recommender)
 * in progress and keeps what was trained — model, metrics up to there, a manifest marked
 * `stopped`. The caller aborts an AbortSignal (the page's Stop button, window.snaptrain.stopTraining,
 * the CLI's first Ctrl-C); a family asks `obey` after each round or step, and the run's answer
 * is the same 'stop' a sweep's scheduler gives (the families' one early-stopping path).
 */

/** How a manifest records a stopped run: rounds (GBDT) or steps (recommender) done, and why. */
export type StoppedMark = { at_round: number; reason: 'user' } | { at_step: number; reason: 'user' }

/** The stop request of one run; `at` (and its unit) is set once a family obeyed it. */
export class StopRequest {
  /** Rounds (GBDT) or steps (recommender) done when the run stopped; undefined while it has not. */
  at?: number
  private unit: 'round' | 'step' = 'round'

  constructor(readonly signal: AbortSignal) {}

  /**
   * True when asked to stop; the first call that says so records `done`, the rounds or steps
   * (`unit`, the family's) done so far.
   */
  obey(done: number, unit: 'round' | 'step'): boolean {
    if (!this.signal.aborted) return false
    if (this.at === undefined) {
      this.at = done
      this.unit = unit
    }
    return true
  }

  /** The manifest's mark, in the unit the family obeyed in; undefined when the run was not stopped. */
  mark(): StoppedMark | undefined {
    if (this.at === undefined) return undefined
    return this.unit === 'round' ? { at_round: this.at, reason: 'user' } : { at_step: this.at, reason: 'user' }
  }
}
