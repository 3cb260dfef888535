/**
 * Data-parallel ranks: R rank workers, each with its own GPUDevice, combining work
 * through collectives. Usage:
 *
 * 1. Write a rank job — a module exporting `const myJob: RankJob<Config, Result> = { async run(ctx, config) { … } }`
 *    and register it by name from above: `registerRankJob('myjob', async () => (await import('…')).myJob as RankJob)` (src/models/rank-jobs.ts does so for the model families; the rank layer imports no model).
 *    Inside run(): `ctx.rank`, `ctx.world`; `await ctx.device()` gives the rank's own GPUDevice (do
 *    not destroy it); `ctx.coll` is the Collective (types.ts): allreduceSum/allreduceMax over
 *    Int32Array/Uint32Array/Float32Array/Float64Array (a new array, summed in rank order, identical
 *    on every rank), allgather(value), broadcast(value, root), barrier(). Every rank must make the
 *    same collective calls in the same order. `ctx.progress(event)` reaches the coordinator's
 *    onProgress(rank, event). Config and result must be structured-cloneable. Throwing fails the run.
 * 2. In the page: `const run = await runRanks<Result, Config>(R, 'myjob', config | (rank => config), { onProgress, timeoutMs, transport })`
 *    → { results: Result[] (index = rank), stats: CollectiveStats[][] (per rank), ms, transport }.
 *    `combineStats(run.stats)` → [{ op, calls, bytes, ms }] for a report. For kill tests use
 *    `RankGroup.start(R, opts)` then `group.run(…)`, `group.kill(rank)`, `group.loseDevice(rank)`,
 *    `group.close()`; `liveRankWorkers()` counts rank workers not yet terminated.
 * 3. Without workers (Node unit tests): `localGroup(R)` gives R in-thread Collectives with the same
 *    rank-order sums; run the same job code on each with Promise.all.
 * 4. A user's Stop: `runRanks(…, { stop: signal })` (or `group.stop()`) asks every rank; a job
 *    that can stop carries `ctx.stop.vote` in a collective it makes each round or step and calls
 *    `ctx.stop.agree(votes)` with what came back, then ends where `ctx.stop.signal` is aborted —
 *    the same round on every rank (stop-vote.ts).
 *
 * Transport: a MessageChannel star — each rank posts its contribution to the coordinator's hub
 * (hub.ts), which combines in rank order and answers every rank; in a cross-origin isolated page
 * (the dev server and the CLI send COOP/COEP) allreduces up to 8 MiB per rank go through one
 * SharedArrayBuffer with Atomics barriers instead (shared-reducer.ts; same rank-order sums, so
 * the same bits; `transport: 'message'` forces the star). Stats: bytes = each rank's sent +
 * received payload, summed over ranks; ms = the slowest rank's time in the op (waiting included).
 * GBDT's rank job is src/models/gbdt/ranks.ts gbdtRankJob (a worked example). Failure of any rank (throw,
 * worker 'error', kill, device lost, a collective not joined within timeoutMs) rejects run() with
 * "rank r of R failed: cause", aborts every pending collective and terminates all workers.
 */
export type {
  Collective,
  CollectiveArray,
  CollectiveStats,
  RankContext,
  RankGroupOptions,
  RankJob,
  RankRun,
  ReduceOp,
} from './types.ts'
export { localGroup } from './local-group.ts'
export { RankGroup, runRanks, liveRankWorkers, DEFAULT_RANK_TIMEOUT_MS } from './rank-group.ts'
export { combineStats } from './stats.ts'
export { reduceArrays } from './reduce.ts'
