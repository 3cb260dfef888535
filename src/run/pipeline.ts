/**
 * The one driver, for every model family (window.snaptrain.train, the Train panel, the CLI through
 * the page, each rank of a `--ranks` run, each sweep trial): parameters → (R > 1: the same run on
 * R rank workers, ranks.ts) → the snapshot opened once at the pinned version → the family loads
 * its rows (its own device meanwhile opened and warmed: the family compiles its pipelines) →
 * trainPrepared: the family fits on the run's device session (session.ts: this rank's
 * device, a sweep slot's, or its own under the family's device-loss policy) → model file, metrics,
 * summary and one manifest. A sweep trial enters at trainPrepared with a slot session and the rows
 * its family prepared (src/sweep/trial-runner.ts).
 */
import { openSnapshot } from '../table/index.ts'
import type { Snapshot } from '../table/types.ts'
import type { RankContext } from '../ranks/types.ts'
import { httpFor, rankCount, type RunResult, type TrainConfig, type TrainProgress } from './config.ts'
import type { EvaluationListener, ModelFamily, RunHooks, RunInput, TrainInput } from './family.ts'
import { familyOfConfig } from '../models/registry.ts'
import { fitOnSession, openAhead, type DevicesAhead, type Session } from './session.ts'
import { StopRequest } from './stop.ts'
import { validationSet } from '../eval/validation.ts'

/** Options of one run: inside a rank worker, the rank; test hooks; a user's Stop; validation scores. */
export interface RunOptions {
  rank?: RankContext
  hooks?: RunHooks
  /** Aborted: the run ends after the round or step in progress, keeping what was trained (stop.ts). */
  stop?: AbortSignal
  /** Return the final model's validation scores with the result (RunResult.validation: ROC, PR). */
  validScores?: boolean
}

/**
 * Trains one model; `onProgress` hears the data stages and every evaluation. Throws naming the bad
 * input. `R`: the family's result type, for callers that know the family (a recommender's
 * RecsysTrainResult; a GBDT model is XGBoost JSON text, or UBJSON bytes with modelFormat 'ubj').
 */
export async function runTraining<R extends RunResult = RunResult<string>>(
  config: TrainConfig,
  onProgress: (p: TrainProgress) => void = () => {},
  options: RunOptions = {},
): Promise<R> {
  // `booster: "gblinear"` in the params means the same as naming that family (registry familyOfConfig).
  const family = await familyOfConfig(config).load()
  const params = family.params(config)
  if (rankCount(config) > 1 && !options.rank && family.onRankWorkers(config)) {
    return (await (await import('./ranks.ts')).runOnRanks(config, onProgress, { stop: options.stop })) as R
  }
  const loading = `planning and loading ${config.table}`
  onProgress({ kind: 'stage', message: loading })
  const input: RunInput = {
    config,
    onProgress,
    rank: options.rank,
    hooks: options.hooks ?? {},
    ...(options.stop ? { stop: new StopRequest(options.stop) } : {}),
    ...(options.validScores ? { validScores: true } : {}),
    // The share of rows read so far, as the loading stage's fraction (a terminal's progress line).
    onRead: (done, total) => {
      options.hooks?.onRead?.(done, total)
      if (total > 0 && done < total) onProgress({ kind: 'stage', message: loading, fraction: done / total })
    },
    ...(await openTables(config)),
  }
  const backend = config.backend ?? 'gpu'
  const ahead = options.rank ? undefined : warmAhead(family, params, input, backend)
  try {
    const data = await family.load(input, params)
    const session: Session = options.rank
      ? { mode: 'rank', rank: options.rank }
      : { mode: 'own', backend, hooks: input.hooks, ...(ahead ? { openDevice: d => ahead.open(d) } : {}) }
    return (await trainPrepared(family, data, params, input, session)) as R
  } finally {
    ahead?.release()
  }
}

/**
 * Mode 'own' of a family that warms: its first device opened now and its pipelines compiling
 * while the rows load (compiling them on first use took ~5 s of a marketing run's first round
 * on SwiftShader); a stage names the wait when fitting starts before they are compiled.
 */
function warmAhead<P>(
  family: ModelFamily<P>,
  params: P,
  input: RunInput,
  backend: 'gpu' | 'cpu',
): DevicesAhead | undefined {
  const warm = family.warm?.bind(family)
  if (!warm) return undefined
  return openAhead(
    backend,
    device => warm(device, params, input),
    (done, total, waitedMs) => input.onProgress(compilingStage(done, total, waitedMs)),
  )
}

/**
 * The stage of a run waiting for its shaders: "compiling GPU kernels 12 / 40" (fraction 0.3),
 * then "compiled 40 GPU kernels in 12.3 s" (fraction 1: the CLI prints it when piped).
 */
export function compilingStage(done: number, total: number, waitedMs?: number): TrainProgress {
  if (waitedMs !== undefined)
    return {
      kind: 'stage',
      message: `compiled ${total} GPU kernel${total === 1 ? '' : 's'} in ${(waitedMs / 1000).toFixed(1)} s`,
      fraction: 1,
    }
  if (total === 0) return { kind: 'stage', message: 'preparing the GPU kernels' }
  return { kind: 'stage', message: `compiling GPU kernels ${done} / ${total}`, fraction: done / total }
}

/**
 * The driver's inner part, from loaded (or sweep-prepared) rows: the family fits on `session`,
 * then exports. `seconds` = fitting's wall time, device opening included. `onEvaluation` hears
 * every evaluation and may stop training after it (a sweep trial's report).
 */
export async function trainPrepared<P, D, T>(
  family: ModelFamily<P, D, T>,
  data: D,
  params: P,
  input: TrainInput,
  session: Session,
  onEvaluation?: EvaluationListener,
): Promise<RunResult> {
  const t0 = performance.now()
  const fit = await family.fit(data, params, input, onEvaluation)
  const { trained } = await fitOnSession(fit, session, family.deviceLoss)
  const result = family.finish(data, trained, params, input, (performance.now() - t0) / 1000)
  const stopped = input.stop?.mark()
  return stopped ? { ...result, manifest: { ...result.manifest, stopped } } : result
}

/** The run's snapshots, each opened once: the training table and the validation table, if any. */
export async function openTables(config: TrainConfig): Promise<{ snapshot: Snapshot; validSnapshot?: Snapshot }> {
  const valid = validationSet(config)
  const snapshot = await openSnapshot(config.table, {
    version: config.version,
    ...(config.filter ? { filterHint: config.filter } : {}),
    ...httpFor(config, config.table),
  })
  if (valid.kind !== 'table') return { snapshot }
  const validSnapshot = await openSnapshot(valid.table, { version: valid.version, ...httpFor(config, valid.table) })
  return { snapshot, validSnapshot }
}
