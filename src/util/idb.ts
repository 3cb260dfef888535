/**
 * The IndexedDB plumbing of the page's stores (sweeps: src/sweep/store-idb.ts; runs:
 * src/run/store-idb.ts): opening a database with its object stores, a request as a promise, and
 * a durable read-write transaction that fails with the stores' names.
 */

/** An object store a database is opened with: its name, and its key path when keys are in the values. */
export interface StoreSpec {
  name: string
  keyPath?: string
}

/**
 * Opens (creating on first use) database `name` at `version` from `factory`, with `stores`;
 * `what` says what the database keeps, for the error where IndexedDB is missing.
 */
export async function openDatabase(
  name: string,
  version: number,
  stores: readonly StoreSpec[],
  factory: IDBFactory | undefined,
  what: string,
): Promise<IDBDatabase> {
  if (!factory) throw new Error(`IndexedDB is not available in this context (${what} cannot be kept)`)
  const req = factory.open(name, version)
  req.onupgradeneeded = () => {
    const db = req.result
    for (const s of stores)
      if (!db.objectStoreNames.contains(s.name))
        db.createObjectStore(s.name, s.keyPath === undefined ? undefined : { keyPath: s.keyPath })
  }
  const db = await request(req, `open IndexedDB '${name}'`)
  // Another tab upgrading the schema must not be blocked by this connection.
  db.onversionchange = () => db.close()
  return db
}

/** `req`'s result; rejects with `what` and IndexedDB's message. */
export function request<T>(req: IDBRequest<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(new Error(`${what}: ${req.error?.message ?? 'IndexedDB error'}`))
  })
}

/** Runs `fill` in one durable read-write transaction over `stores`; resolves once it is committed. */
export function writeTransaction(db: IDBDatabase, stores: string[], fill: (tx: IDBTransaction) => void): Promise<void> {
  const tx = db.transaction(stores, 'readwrite', { durability: 'strict' })
  const done = new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve()
    tx.onerror = () =>
      reject(new Error(`IndexedDB write to ${stores.join(', ')} failed: ${tx.error?.message ?? 'unknown error'}`))
    tx.onabort = () =>
      reject(new Error(`IndexedDB write to ${stores.join(', ')} aborted: ${tx.error?.message ?? 'no reason given'}`))
  })
  fill(tx)
  return done
}
