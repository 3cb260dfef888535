/**
 * The page's Runs list: single training runs kept in IndexedDB (database 'snaptrain-runs',
 * separate from the sweeps' so neither schema waits on the other). Object store 'runs' (keyPath
 * id) holds what the list and the comparison show — table, parameters, summary, metrics per
 * round, manifest, the stopped mark — and 'data' (key = run id) the large parts: the model file
 * and the validation scores. Writes resolve once their transaction completed with durability
 * 'strict', so a run put before a reload is there after it.
 */
import type { TrainSummary, ValidationScores } from './config.ts'
import type { RunManifest } from './manifest.ts'
import type { StoppedMark } from './stop.ts'
import { openDatabase, request, writeTransaction } from '../util/idb.ts'

/** Database name. */
export const RUNS_IDB_NAME = 'snaptrain-runs'
/** Schema version (1: stores 'runs' and 'data'). */
export const RUNS_IDB_VERSION = 1
const RUNS = 'runs'
const DATA = 'data'

/** A kept run, as the Runs list shows it. */
export interface StoredRun {
  id: string
  /** ISO time the run finished. */
  createdAt: string
  /** The table: its short name, URL and the version trained on. */
  table: { name: string; url: string; version?: number }
  /** The model family (src/models/registry.ts). */
  model: string
  label: string
  /** The parameters as the run used them (the manifest's `params`). */
  params: Record<string, unknown>
  summary: TrainSummary
  /** Metrics per round (GBDT) or evaluation (recommender): the learning curve, metrics.csv's rows. */
  metrics: Array<Record<string, number>>
  manifest: RunManifest
  /** The model file's name (model.json, model.bin). */
  modelFile: string
  /** Set when a user stopped the run (the manifest's mark). */
  stopped?: StoppedMark
  /** The name the page shows (runs kept before names existed have none: ui/run-names.ts runName). */
  name?: string
  /** Free-text tags the user gave the run. */
  tags?: string[]
}

/** What `RunStore.update` changes: the run's name and tags, its data's explanation. */
export interface RunUpdate {
  run?: Partial<Pick<StoredRun, 'name' | 'tags'>>
  data?: Partial<Pick<StoredRunData, 'explanation'>>
}

/**
 * A kept run's large parts. `E`: what the family's explanation is (run/ knows no family: api-types.ts
 * names it, StoredRunData there is this with the GBDT's Explanation).
 */
export interface StoredRunData<E = unknown> {
  /** The model file's contents: XGBoost JSON text, or bytes (model.bin). */
  model: string | Uint8Array<ArrayBuffer>
  /** The final model's validation scores and labels (ROC, PR, confusion): ui/result-data.ts storedValidation's rows. */
  validation?: ValidationScores
  /** The GBDT run's importance and SHAP summary, kept once computed (reopened, not recomputed). */
  explanation?: E
}

/** The Runs list over IndexedDB; open with RunStore.open(). */
export class RunStore {
  private constructor(private readonly db: IDBDatabase) {}

  /** Opens (creating on first use) database `name` from `factory` (default globalThis.indexedDB). */
  static async open(name = RUNS_IDB_NAME, factory: IDBFactory = globalThis.indexedDB): Promise<RunStore> {
    return new RunStore(
      await openDatabase(name, RUNS_IDB_VERSION, [{ name: RUNS, keyPath: 'id' }, { name: DATA }], factory, 'runs'),
    )
  }

  /** Keeps `run` and its data in one transaction; resolves once durable. */
  async put(run: StoredRun, data: StoredRunData): Promise<void> {
    await writeTransaction(this.db, [RUNS, DATA], tx => {
      tx.objectStore(RUNS).put(run)
      tx.objectStore(DATA).put(data, run.id)
    })
  }

  /**
   * Changes run `id`'s record and data in one transaction (read and written in it); resolves once
   * durable. Throws naming the run when it is not kept.
   */
  async update(id: string, change: RunUpdate): Promise<void> {
    let missing = false
    await writeTransaction(this.db, [RUNS, DATA], tx => {
      const merge = (store: string, patch: object | undefined, key?: string) => {
        if (!patch) return
        const os = tx.objectStore(store)
        const get = os.get(id)
        get.onsuccess = () => {
          if (get.result === undefined) {
            missing = true
            tx.abort()
          } else os.put({ ...get.result, ...patch }, key)
        }
      }
      merge(RUNS, change.run)
      merge(DATA, change.data, id)
    }).catch(e => {
      throw missing ? new Error(`run ${id}: not kept in this browser, nothing to update`) : e
    })
  }

  /** Every kept run, newest first. */
  async list(): Promise<StoredRun[]> {
    const all = (await request(this.db.transaction(RUNS).objectStore(RUNS).getAll(), 'list runs')) as StoredRun[]
    return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
  }

  /** Run `id`'s data, or undefined; `E`: the explanation's type as the caller kept it (put / update). */
  async data<E = unknown>(id: string): Promise<StoredRunData<E> | undefined> {
    return (await request(this.db.transaction(DATA).objectStore(DATA).get(id), `get run ${id}`)) as
      | StoredRunData<E>
      | undefined
  }

  /** Deletes run `id` and its data. */
  async delete(id: string): Promise<void> {
    await writeTransaction(this.db, [RUNS, DATA], tx => {
      tx.objectStore(RUNS).delete(id)
      tx.objectStore(DATA).delete(id)
    })
  }
}
