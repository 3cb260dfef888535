/**
 * A SweepStore over IndexedDB (the page): database 'snaptrain', object stores 'sweeps' (keyPath
 * id) and 'artifacts' (key `${sweepId}/${trialId}/${name}`, one entry per TrialArtifacts field).
 * Every write resolves only when its transaction completed with durability 'strict', so a sweep
 * put before a reload or a crash is there after it.
 */
import type { SweepState, SweepStore, TrialArtifacts } from '../tune/types.ts'
import { openDatabase, request, writeTransaction } from '../util/idb.ts'

/** Database name. */
export const IDB_NAME = 'snaptrain'
/** Schema version (1: stores 'sweeps' and 'artifacts'). */
export const IDB_VERSION = 1
const SWEEPS = 'sweeps'
const ARTIFACTS = 'artifacts'

/** IndexedDB SweepStore; open with IdbStore.open(). list() is ordered by createdAt, then id. */
export class IdbStore implements SweepStore {
  private constructor(private db: IDBDatabase) {}

  /** Opens (creating on first use) database `name` from `factory` (default globalThis.indexedDB). */
  static async open(name = IDB_NAME, factory: IDBFactory = globalThis.indexedDB): Promise<IdbStore> {
    const stores = [{ name: SWEEPS, keyPath: 'id' }, { name: ARTIFACTS }]
    return new IdbStore(await openDatabase(name, IDB_VERSION, stores, factory, 'sweeps'))
  }

  /** Closes the connection (later calls fail). */
  close(): void {
    this.db.close()
  }

  /** Stores `state` under state.id; resolves once durable. */
  async put(state: SweepState): Promise<void> {
    await this.write([SWEEPS], tx => {
      tx.objectStore(SWEEPS).put(state)
    })
  }

  /** Sweep `id`, or undefined. */
  async get(id: string): Promise<SweepState | undefined> {
    return request(this.db.transaction(SWEEPS).objectStore(SWEEPS).get(id), `get sweep ${id}`) as Promise<
      SweepState | undefined
    >
  }

  /** Every sweep, oldest first. */
  async list(): Promise<SweepState[]> {
    const all = (await request(this.db.transaction(SWEEPS).objectStore(SWEEPS).getAll(), 'list sweeps')) as SweepState[]
    return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
  }

  /** Deletes sweep `id` and all its artifacts in one transaction. */
  async delete(id: string): Promise<void> {
    await this.write([SWEEPS, ARTIFACTS], tx => {
      tx.objectStore(SWEEPS).delete(id)
      tx.objectStore(ARTIFACTS).delete(prefixRange(`${id}/`))
    })
  }

  /** Stores each field of `a` for trial `trialId` (fields given replace earlier ones); resolves once durable. */
  async putArtifacts(sweepId: string, trialId: number, a: TrialArtifacts): Promise<void> {
    await this.write([ARTIFACTS], tx => {
      const store = tx.objectStore(ARTIFACTS)
      for (const [name, value] of Object.entries(a))
        if (value !== undefined) store.put(value, `${sweepId}/${trialId}/${name}`)
    })
  }

  /** Trial `trialId`'s artifacts, or undefined when none were stored. */
  async getArtifacts(sweepId: string, trialId: number): Promise<TrialArtifacts | undefined> {
    const prefix = `${sweepId}/${trialId}/`
    const store = this.db.transaction(ARTIFACTS).objectStore(ARTIFACTS)
    const [keys, values] = await Promise.all([
      request(store.getAllKeys(prefixRange(prefix)), `get artifacts ${prefix}`),
      request(store.getAll(prefixRange(prefix)), `get artifacts ${prefix}`),
    ])
    if (keys.length === 0) return undefined
    return Object.fromEntries(keys.map((k, i) => [String(k).slice(prefix.length), values[i]])) as TrialArtifacts
  }

  private write(stores: string[], fill: (tx: IDBTransaction) => void): Promise<void> {
    return writeTransaction(this.db, stores, fill)
  }
}

/** Keys starting with `prefix` ('\uffff' sorts after every character a key here uses). */
function prefixRange(prefix: string): IDBKeyRange {
  return IDBKeyRange.bound(prefix, `${prefix}\uffff`)
}
