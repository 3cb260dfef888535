/**
 * The coordinator (in the page): starts R rank workers (module workers over comlink), connects
 * each to the hub with its own MessageChannel, runs a job on every rank and collects the results.
 * Failure of any rank — its job throws, the worker crashes ('error' event), it is killed, loses
 * its device or misses a collective — ends the run: the hub aborts every pending collective,
 * every worker is terminated, and run() rejects with "rank r of R failed: cause".
 * R = world size.
 */
import { releaseProxy, transfer, wrap, type Remote } from 'comlink'
import type { RankWorkerApi } from '../workers/rank.api.ts'
import type { RankGroupOptions, RankRun } from './types.ts'
import { Hub } from './hub.ts'
import { abortShared, createSharedBuffer } from './shared-reducer.ts'
import { withTimeout } from '../util/deadline.ts'

/** Default bound on any one wait (worker start, device request, collective), ms: long enough for a slow rank's level on a software adapter; crashes, kills and lost devices end a run at once, not by timeout. */
export const DEFAULT_RANK_TIMEOUT_MS = 300_000

/** Creates one rank worker. */
export type RankWorkerFactory = () => Worker

/** The module worker at src/workers/rank.worker.ts (vite bundles it from this exact pattern). */
export function defaultRankWorker(): Worker {
  return new Worker(new URL('../workers/rank.worker.ts', import.meta.url), { type: 'module' })
}

/** Rank workers of this page not yet terminated (tests assert none is left behind). */
const live = new Set<Worker>()

/** Number of rank workers alive in this page. */
export function liveRankWorkers(): number {
  return live.size
}

interface Rank {
  worker: Worker
  api: Remote<RankWorkerApi>
}

/** R running rank workers and their hub. */
export class RankGroup {
  private error?: Error
  private rejectFailed!: (e: Error) => void
  /** Rejects with the first failure; never resolves. */
  private readonly failed = new Promise<never>((_, reject) => {
    this.rejectFailed = reject
  })
  private readonly ranks: Rank[] = []
  /** Each rank's end of its channel, until init() transfers it. */
  private readonly pendingPorts: MessagePort[] = []
  private readonly hub: Hub
  private terminated = false

  /** Starts `world` rank workers; rejects (and terminates them) if any fails to start. */
  static async start(
    world: number,
    opts: RankGroupOptions = {},
    factory: RankWorkerFactory = defaultRankWorker,
  ): Promise<RankGroup> {
    if (!Number.isInteger(world) || world < 1) throw new RangeError(`ranks must be an integer ≥ 1, got ${world}`)
    const group = new RankGroup(world, opts, factory)
    await group.race(Promise.all(group.ranks.map((_, r) => group.init(r))), 'start')
    if (opts.stop?.aborted) group.stop()
    else opts.stop?.addEventListener('abort', () => group.stop(), { once: true })
    return group
  }

  private constructor(
    readonly world: number,
    private readonly opts: RankGroupOptions,
    factory: RankWorkerFactory,
  ) {
    this.failed.catch(() => undefined) // observed through race()
    const ports: MessagePort[] = []
    for (let r = 0; r < world; r++) {
      const worker = factory()
      live.add(worker)
      worker.addEventListener('error', ev =>
        this.fail(r, `worker crashed: ${(ev as ErrorEvent).message || 'script error (failed to load?)'}`),
      )
      worker.addEventListener('messageerror', () =>
        this.fail(r, 'worker sent a message that could not be deserialised'),
      )
      this.ranks.push({ worker, api: wrap<RankWorkerApi>(worker) })
      const channel = new MessageChannel()
      ports.push(channel.port1)
      this.pendingPorts.push(channel.port2)
    }
    this.hub = new Hub(ports, this.timeoutMs, {
      onFailure: (r, cause) => this.fail(r, cause),
      onProgress: opts.onProgress,
    })
    // SharedArrayBuffer exists only in cross-origin isolated pages (COOP/COEP, as the dev server and CLI send).
    if (
      (opts.transport ?? 'auto') === 'auto' &&
      globalThis.crossOriginIsolated &&
      typeof SharedArrayBuffer !== 'undefined'
    )
      this.shared = createSharedBuffer(world)
  }

  /** The allreduce buffer shared with every rank, when the page is cross-origin isolated. */
  readonly shared?: SharedArrayBuffer

  /** How allreduce travels in this group. */
  get transport(): 'shared memory' | 'messages' {
    return this.shared ? 'shared memory' : 'messages'
  }

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? DEFAULT_RANK_TIMEOUT_MS
  }

  private init(r: number): Promise<void> {
    const port = this.pendingPorts[r]
    return withTimeout(
      this.ranks[r].api.init(
        transfer({ rank: r, world: this.world, port, timeoutMs: this.timeoutMs, shared: this.shared }, [port]),
      ),
      this.timeoutMs,
      `rank ${r}: worker did not start within ${this.timeoutMs / 1000} s`,
    ).catch(e => {
      this.fail(r, (e as Error).message)
      throw e
    })
  }

  /**
   * Runs job `job` on every rank; `config` is the same for all or one per rank (a function of
   * the rank). Resolves with every rank's value and stats; rejects on the first failure.
   */
  async run<R = unknown, C = unknown>(job: string, config: C | ((rank: number) => C)): Promise<RankRun<R>> {
    const t0 = performance.now()
    const cfg = (r: number): C => (typeof config === 'function' ? (config as (rank: number) => C)(r) : config)
    const runs = this.ranks.map((rank, r) =>
      rank.api.run(job, cfg(r)).catch(e => {
        this.fail(r, (e as Error)?.message ?? String(e))
        throw e
      }),
    )
    const done = await this.race(Promise.all(runs), 'run')
    return {
      results: done.map(d => d.value as R),
      stats: done.map(d => d.stats),
      ms: performance.now() - t0,
      transport: this.transport,
    }
  }

  /** Asks every rank to stop (the user's Stop): the job stops them at one round or step (stop-vote.ts). */
  stop(): void {
    if (this.terminated) return
    for (const { api } of this.ranks) api.stop().catch(() => undefined) // a failed rank fails the run anyway
  }

  /** Terminates rank `rank`'s worker as a crash would (tests): the run fails naming it. */
  kill(rank: number, cause = 'worker terminated'): void {
    const w = this.ranks[rank]?.worker
    if (!w) throw new RangeError(`kill: no rank ${rank} (world ${this.world})`)
    w.terminate()
    live.delete(w)
    this.fail(rank, cause)
  }

  /** Test hook: destroys rank `rank`'s GPU device (the rank reports the loss). */
  loseDevice(rank: number): Promise<void> {
    return this.ranks[rank].api.loseDevice()
  }

  /** The failure that ended the group, if any. */
  get failure(): Error | undefined {
    return this.error
  }

  /** Terminates every worker (idempotent). */
  close(): void {
    this.hub.close()
    this.terminateAll()
  }

  private async race<T>(p: Promise<T>, what: string): Promise<T> {
    if (this.error) throw this.error
    try {
      return await Promise.race([p, this.failed])
    } catch (e) {
      throw this.error ?? new Error(`ranks: ${what} failed: ${(e as Error).message}`)
    }
  }

  /** First failure wins: abort every collective, terminate every worker, reject the run. */
  private fail(rank: number, cause: string): void {
    if (this.error) return
    this.error = new Error(`rank ${rank} of ${this.world} failed: ${cause}`)
    this.hub.abort(`aborted: ${this.error.message}`)
    if (this.shared) abortShared(this.shared)
    this.terminateAll()
    this.rejectFailed(this.error)
  }

  private terminateAll(): void {
    if (this.terminated) return
    this.terminated = true
    for (const { worker, api } of this.ranks) {
      api[releaseProxy]()
      worker.terminate()
      live.delete(worker)
    }
  }
}

/** Starts `world` ranks, runs `job` on them and closes them, however it ends. */
export async function runRanks<R = unknown, C = unknown>(
  world: number,
  job: string,
  config: C | ((rank: number) => C),
  opts: RankGroupOptions = {},
): Promise<RankRun<R>> {
  const group = await RankGroup.start(world, opts)
  try {
    return await group.run<R, C>(job, config)
  } finally {
    group.close()
  }
}
