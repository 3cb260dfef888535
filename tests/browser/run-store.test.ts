/**
 * The page's Runs list over IndexedDB (src/run/store-idb.ts) in Chromium: put, list order, data,
 * delete, reopen; update (name, tags, explanation) and records kept before names existed.
 */
import { describe, expect, it } from 'vitest'
import { RUNS_IDB_VERSION, RunStore, type StoredRun, type StoredRunData } from '../../src/run/store-idb.ts'
import { runName } from '../../src/ui/run-list.ts'

function run(id: string, createdAt: string): StoredRun {
  return {
    id,
    createdAt,
    table: { name: 'marketing', url: 'http://x/tables/marketing/', version: 0 },
    model: 'gbdt',
    label: 'y',
    params: { num_round: 3, max_depth: 4 },
    summary: { model: 'gbdt', auc: 0.8, logloss: 0.3, rounds: 3 } as StoredRun['summary'],
    metrics: [{ auc: 0.7 }, { auc: 0.75 }, { auc: 0.8 }],
    manifest: { kind: 'snaptrain-run' } as unknown as StoredRun['manifest'],
    modelFile: 'model.json',
    stopped: { at_round: 3, reason: 'user' },
  }
}

const data = (n: number): StoredRunData => ({
  model: new Uint8Array([1, 2, n]),
  validation: { labels: new Float32Array([0, 1]), scores: new Float32Array([0.25, n]) },
})

describe('RunStore (IndexedDB in Chromium)', () => {
  const name = `snaptrain-runs-test-${Date.now()}`

  it('keeps runs newest first with their data, deletes one with its data, and holds after reopening', async () => {
    const s = await RunStore.open(name)
    await s.put(run('a', '2026-01-02T00:00:00Z'), data(3))
    await s.put(run('b', '2026-01-03T00:00:00Z'), data(4))
    expect((await s.list()).map(r => r.id)).toEqual(['b', 'a'])
    expect(await s.list()).toEqual([run('b', '2026-01-03T00:00:00Z'), run('a', '2026-01-02T00:00:00Z')])
    expect(await s.data('a')).toEqual(data(3))
    await s.delete('b')
    expect(await s.data('b')).toBeUndefined()
    const again = await RunStore.open(name)
    expect((await again.list()).map(r => r.id)).toEqual(['a'])
    expect(await again.data('a')).toEqual(data(3))
    expect(await again.data('missing')).toBeUndefined()
  })

  it('names what cannot be kept where IndexedDB is missing', async () => {
    await expect(RunStore.open(name, null as unknown as IDBFactory)).rejects.toThrow(
      /IndexedDB is not available in this context \(runs cannot be kept\)/,
    )
  })
})

describe('RunStore.update (IndexedDB in Chromium)', () => {
  const name = `snaptrain-runs-update-${Date.now()}`

  it('renames, tags and keeps an explanation in one durable write; a missing run is named', async () => {
    const s = await RunStore.open(name)
    await s.put(run('a', '2026-01-02T00:00:00Z'), data(3))
    const explanation = {
      features: ['age'],
      shap: new Float32Array([0.5, -0.25]),
      values: new Float32Array([30, 40]),
      rows: 2,
    } as unknown as NonNullable<StoredRunData['explanation']>
    await s.update('a', { run: { name: 'baseline', tags: ['v1'] }, data: { explanation } })
    const again = await RunStore.open(name)
    expect(await again.list()).toEqual([{ ...run('a', '2026-01-02T00:00:00Z'), name: 'baseline', tags: ['v1'] }])
    expect(await again.data('a')).toEqual({ ...data(3), explanation })
    await again.update('a', { run: { tags: [] } })
    expect((await again.list())[0]).toMatchObject({ name: 'baseline', tags: [] })
    await expect(again.update('nope', { run: { name: 'x' } })).rejects.toThrow(
      /run nope: not kept in this browser, nothing to update/,
    )
    // The failed update wrote nothing.
    expect((await again.list()).map(r => r.id)).toEqual(['a'])
  })

  it('a record kept before names and tags existed (RUNS_IDB_VERSION 1) lists, opens and takes a name', async () => {
    // Written the way the first version of the store did: no name, no tags, no explanation.
    const old = run('old', '2025-06-01T00:00:00Z')
    expect(RUNS_IDB_VERSION).toBe(1)
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(`${name}-old`, 1)
      req.onupgradeneeded = () => {
        req.result.createObjectStore('runs', { keyPath: 'id' })
        req.result.createObjectStore('data')
      }
      req.onsuccess = () => resolve(req.result)
      req.onerror = () => reject(req.error)
    })
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(['runs', 'data'], 'readwrite')
      tx.objectStore('runs').put(old)
      tx.objectStore('data').put(data(1), 'old')
      tx.oncomplete = () => resolve()
      tx.onerror = () => reject(tx.error)
    })
    db.close()
    const s = await RunStore.open(`${name}-old`)
    const [listed] = await s.list()
    expect(listed).toEqual(old)
    expect(runName(listed!)).toBe('marketing-gbdt-old')
    expect(await s.data('old')).toEqual(data(1))
    await s.update('old', { run: { name: 'renamed' } })
    expect(runName((await s.list())[0]!)).toBe('renamed')
  })
})
