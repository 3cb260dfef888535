/**
 * The sweep part of window.snaptrain: start, resume, stop, list, export/import, artifacts, plan
 * and the best trial's continue bundle, over one IndexedDB store per page and one data cache.
 * Sweeps running in this page are tracked so stopSweep can abort them; a sweep stored as
 * 'running' by a page that is gone is simply marked stopped.
 */
import { DataCache, type ReadOptions } from './data-cache.ts'
import { defaultSpace } from '../tune/defaults.ts'
import { exportSweep as exportJson, importSweep as importJson } from '../tune/export.ts'
import { sweepImportance, type ParamImportance } from '../tune/importance.ts'
import { familyOf, FAMILY_NAMES } from '../models/registry.ts'
import { replaySweep } from '../tune/replay.ts'
import { sweepBundleFiles } from '../continue/sweep-bundle.ts'
import type { RunFile } from '../run/artifacts.ts'
import { IdbStore } from './store-idb.ts'
import { newSweepId } from '../tune/sweep-state.ts'
import { planSweep, prepareSweep, sweepMetric, type SweepPlan } from './plan.ts'
import { runPageSweep, type SweepRunOptions } from './run.ts'
import type { SweepConfig, SweepEvent, SweepModel, SweepState, SweepStore, TrialArtifacts } from '../tune/types.ts'

/** The sweep methods of SnaptrainApi (window.snaptrain). */
export interface SweepApi {
  /**
   * Runs a hyperparameter sweep in this page (src/tune): validates the config (RangeError naming
   * the field: space, trials, parallel…) before anything runs, loads the table once, runs the
   * strategy's trials on `parallel` GPU devices (default from the adapter), persists every trial
   * change in IndexedDB and resolves with the final state. `onEvent` hears stages, trials, states.
   */
  sweep(config: SweepConfig, onEvent?: (e: SweepEvent) => void, opts?: { id?: string }): Promise<SweepState>
  /** Resumes a stored sweep: finished trials are kept, unfinished ones run again. */
  /**
   * Resumes a stored sweep. `credentials`: the bearer headers or governed access of its table
   * again (they were never stored: a share's profile is read anew, a token given anew).
   */
  resumeSweep(
    id: string,
    onEvent?: (e: SweepEvent) => void,
    credentials?: Pick<SweepConfig, 'headers' | 'access'>,
  ): Promise<SweepState>
  /** Stops a sweep running in this page (finished trials kept; resolves once it stopped). */
  stopSweep(id: string): Promise<void>
  /** Every stored sweep, oldest first. */
  listSweeps(): Promise<SweepState[]>
  getSweep(id: string): Promise<SweepState | undefined>
  deleteSweep(id: string): Promise<void>
  /** The stored sweep as a JSON document (importSweep reads it back). */
  exportSweep(id: string): Promise<string>
  importSweep(json: string): Promise<SweepState>
  /** A trial's artifacts: model (gbdt: XGBoost JSON; recsys: base64 model file, kept for improving trials) and manifest. */
  sweepArtifacts(id: string, trial: number): Promise<TrialArtifacts | undefined>
  /** The default search space JSON of model family `model` (its registry description's; RangeError for an unknown one). */
  defaultSpace(model: SweepModel): Record<string, unknown>
  /** What `config` would run (trials, brackets, resource units vs full budget) and every error in it; runs nothing. */
  planSweep(config: SweepConfig): SweepPlan
  /**
   * The continue bundle of the best trial (src/continue/bundle.ts): the files `snaptrain sweep`
   * writes into DIR/continue/, named `continue/<name>` — continue.json, the runtime, the model and
   * the jobs (XGBoost on Dask and Spark, or PyTorch DDP). Throws naming the sweep when no trial
   * finished or the bundle cannot be made.
   */
  sweepContinueFiles(id: string): Promise<RunFile[]>
  /**
   * Importance of each searched parameter of `state` (fANOVA main effects on a small seeded forest,
   * importance.ts: share of the metric's variance in [0, 1]), highest first; undefined until 8
   * trials finished with a metric. Pure: reads only `state`.
   */
  sweepImportance(state: SweepState): ParamImportance[] | undefined
}

/** Test hooks of createSweepApi. */
export interface SweepApiOptions {
  /** Store (default: IdbStore.open() on first use). */
  store?: () => Promise<SweepStore>
  /** Table URLs of a config → absolute (the page API resolves them against the page). */
  resolve?: (config: SweepConfig) => SweepConfig
  onSlot?: SweepRunOptions['onSlot']
  /** How tables are read (tests: no workers, a fetch that maps the dev server's HTML fallback to 404). */
  read?: ReadOptions
}

/** The sweep API of one page. */
export function createSweepApi(o: SweepApiOptions = {}): SweepApi {
  let storeP: Promise<SweepStore> | undefined
  const store = (): Promise<SweepStore> => (storeP ??= (o.store ?? (() => IdbStore.open()))())
  const cache = new DataCache(o.read)
  const active = new Map<string, { abort: AbortController; done: Promise<unknown> }>()
  const resolve = o.resolve ?? (c => c)

  async function track(id: string, run: (signal: AbortSignal) => Promise<SweepState>): Promise<SweepState> {
    if (active.has(id)) throw new Error(`sweep ${id} is already running in this page`)
    const abort = new AbortController()
    const done = run(abort.signal)
    active.set(id, { abort, done: done.catch(() => undefined) })
    try {
      return await done
    } finally {
      active.delete(id)
    }
  }

  async function stored(id: string): Promise<SweepState> {
    const s = await (await store()).get(id)
    if (!s) throw new Error(`sweep ${id}: not found in this page's store`)
    return s
  }

  return {
    async sweep(config, onEvent = () => {}, opts = {}) {
      // Why headers and access leave the config here: the config is stored (IndexedDB) and
      // exported; a token must not be. They reach the reader through a cache of this sweep's own.
      const { headers, access, ...given } = resolve(config)
      // The metric is stored resolved (the objective's default when none is given: plan.ts sweepMetric).
      const c = { ...given, metric: sweepMetric(given) }
      prepareSweep(c)
      const id = opts.id ?? newSweepId()
      const st = await store()
      if (await st.get(id)) throw new Error(`sweep ${id} already exists (resume it or pick another id)`)
      const reader =
        headers || access ? new DataCache({ ...o.read, http: { ...o.read?.http, headers }, access }) : cache
      return track(id, signal => runPageSweep(c, onEvent, { store: st, cache: reader, signal, id, onSlot: o.onSlot }))
    },
    async resumeSweep(id, onEvent = () => {}, credentials = {}) {
      const s = await stored(id)
      // Replaying into a throwaway strategy first refuses a diverging sweep before any data loads.
      replaySweep(prepareSweep(s.config).strategy, s)
      const st = await store()
      const { headers, access } = credentials
      const reader =
        headers || access ? new DataCache({ ...o.read, http: { ...o.read?.http, headers }, access }) : cache
      return track(id, signal => runPageSweep(s, onEvent, { store: st, cache: reader, signal, onSlot: o.onSlot }))
    },
    async stopSweep(id) {
      const run = active.get(id)
      if (run) {
        run.abort.abort()
        await run.done
        return
      }
      const s = await stored(id)
      if (s.status === 'running')
        await (await store()).put({ ...s, status: 'stopped', updatedAt: new Date().toISOString() })
    },
    async listSweeps() {
      return (await (await store()).list()).map(strip)
    },
    async getSweep(id) {
      const s = await (await store()).get(id)
      return s && strip(s)
    },
    async deleteSweep(id) {
      if (active.has(id)) throw new Error(`sweep ${id} is running: stop it first`)
      await (await store()).delete(id)
    },
    async exportSweep(id) {
      return exportJson(await stored(id))
    },
    async importSweep(json) {
      const s = importJson(json, FAMILY_NAMES)
      const st = await store()
      if (await st.get(s.id)) throw new Error(`sweep ${s.id} already exists in this page's store (delete it first)`)
      // An imported sweep that was running elsewhere is stopped here until resumed.
      await st.put(s.status === 'running' ? { ...s, status: 'stopped' } : s)
      return strip((await st.get(s.id))!)
    },
    async sweepArtifacts(id, trial) {
      return (await store()).getArtifacts(id, trial)
    },
    defaultSpace: model => defaultSpace(familyOf(model)),
    planSweep: config => planSweep(resolve(config)),
    sweepImportance: state => sweepImportance(state, familyOf(state.config.model)),
    async sweepContinueFiles(id) {
      const s = await stored(id)
      const a = s.best && (await (await store()).getArtifacts(id, s.best.trial))
      return sweepBundleFiles(s, a)
    },
  }
}

/** The state without the scheduler's log (callers and the UI never need it). */
function strip(s: SweepState): SweepState {
  const { log: _log, ...rest } = s as SweepState & { log?: unknown }
  return rest
}
