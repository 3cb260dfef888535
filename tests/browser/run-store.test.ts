/** The page's Runs list over IndexedDB (src/run/store-idb.ts) in Chromium: put, list order, data, delete, reopen. */
import { describe, expect, it } from 'vitest'
import { RunStore, type StoredRun, type StoredRunData } from '../../src/run/store-idb.ts'

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
