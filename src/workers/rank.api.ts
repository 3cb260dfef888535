/**
 * The rank worker's API (comlink), shared by src/workers/rank.worker.ts and the coordinator
 * (src/ranks/rank-group.ts) through `import type`. The logic lives in src/ranks/rank-service.ts.
 */
import type { CollectiveStats } from '../ranks/types.ts'

/** What a rank is started with (the port is transferred). */
export interface RankInit {
  rank: number
  world: number
  /** This rank's end of its channel to the coordinator's hub. */
  port: MessagePort
  /** Longest wait for one collective or the device, ms. */
  timeoutMs: number
  /** The group's shared buffer for allreduce (cross-origin isolated pages), else undefined. */
  shared?: SharedArrayBuffer
}

/** One rank worker. */
export interface RankWorkerApi {
  init(init: RankInit): void
  /** Runs job `job` (a name registered in src/ranks/jobs.ts) with `config`; its value and this rank's collective totals. */
  run(job: string, config: unknown): Promise<{ value: unknown; stats: CollectiveStats[] }>
  /** The user's Stop: the running job (or the next) is asked to stop (src/ranks/stop-vote.ts). */
  stop(): void
  /** Test hook: destroys this rank's GPU device as if it were lost (no-op without one). */
  loseDevice(): Promise<void>
}
