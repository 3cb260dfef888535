/** A SweepStore in memory (tests, the CLI): values are deep-copied in and out, as IndexedDB would. */
import type { SweepState, SweepStore, TrialArtifacts } from '../tune/types.ts'

/** In-memory SweepStore; list() is ordered by createdAt, then id. */
export class MemoryStore implements SweepStore {
  private sweeps = new Map<string, SweepState>()
  private artifacts = new Map<string, TrialArtifacts>()

  /** Stores a copy of `state` under state.id (replacing any earlier one). */
  async put(state: SweepState): Promise<void> {
    this.sweeps.set(state.id, structuredClone(state))
  }

  /** A copy of sweep `id`, or undefined. */
  async get(id: string): Promise<SweepState | undefined> {
    const s = this.sweeps.get(id)
    return s && structuredClone(s)
  }

  /** Copies of every sweep, oldest first. */
  async list(): Promise<SweepState[]> {
    return [...this.sweeps.values()]
      .map(s => structuredClone(s))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
  }

  /** Deletes sweep `id` and its artifacts. */
  async delete(id: string): Promise<void> {
    this.sweeps.delete(id)
    for (const k of [...this.artifacts.keys()]) if (k.startsWith(`${id}/`)) this.artifacts.delete(k)
  }

  /** Merges `a` into the artifacts of trial `trialId` (fields given replace earlier ones). */
  async putArtifacts(sweepId: string, trialId: number, a: TrialArtifacts): Promise<void> {
    const key = `${sweepId}/${trialId}`
    this.artifacts.set(key, structuredClone({ ...this.artifacts.get(key), ...a }))
  }

  /** A copy of trial `trialId`'s artifacts, or undefined. */
  async getArtifacts(sweepId: string, trialId: number): Promise<TrialArtifacts | undefined> {
    const a = this.artifacts.get(`${sweepId}/${trialId}`)
    return a && structuredClone(a)
  }
}
