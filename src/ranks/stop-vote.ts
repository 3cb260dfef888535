/**
 * A user's Stop on R ranks. Ranks must stop at the same round or step (each one's next
 * collective would wait for the others), but the coordinator's request reaches each rank worker
 * at its own moment. So a rank only records it (`ask`), carries its vote in a collective its job
 * already makes every round or step (GBDT: rank 0's metrics broadcast; the recommender: the
 * gradients' allgather), and `agree`s with the votes that collective brings back: every rank
 * then sees the same answer after the same collective, and `signal` aborts on all of them there.
 */
export class StopVote {
  private asked = false
  private readonly agreed = new AbortController()

  /** Aborted once the ranks agreed to stop (the run's StopRequest watches it). */
  readonly signal: AbortSignal = this.agreed.signal

  /** The coordinator asked this rank to stop. */
  ask(): void {
    this.asked = true
  }

  /** This rank's vote, to send in the round's or step's collective. */
  get vote(): boolean {
    return this.asked
  }

  /** The votes the collective brought back (the same on every rank): any true stops the run. */
  agree(votes: boolean | readonly boolean[]): void {
    if (typeof votes === 'boolean' ? votes : votes.includes(true)) this.agreed.abort()
  }
}
