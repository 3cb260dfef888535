import { describe, expect, it } from 'vitest'
import { IdbStore } from '../../src/sweep/store-idb.ts'
import type { SweepState } from '../../src/tune/types.ts'

function sweep(id: string, createdAt: string): SweepState {
  return {
    id,
    createdAt,
    updatedAt: createdAt,
    status: 'running',
    stoppedEarly: 0,
    gpuSeconds: 1,
    gpuSecondsFullBudget: 3,
    wallSeconds: 2,
    config: { model: 'gbdt', table: 'http://x/t', label: 'y', strategy: 'asha', trials: 2 },
    trials: [
      {
        id: 0,
        config: { eta: 0.1, layers: [8] },
        status: 'running',
        bracket: 0,
        rung: 0,
        resource: 9,
        curve: [{ resource: 1, metric: 0.6, elapsedMs: 3 }],
        metric: 0.6,
        gpuSeconds: 1,
        wallSeconds: 2,
      },
    ],
  }
}

describe('IdbStore (IndexedDB in Chromium)', () => {
  const name = `snaptrain-test-${Date.now()}`

  it('puts, gets, lists, deletes sweeps and their artifacts', async () => {
    const s = await IdbStore.open(name)
    await s.put(sweep('b', '2026-01-02T00:00:00Z'))
    await s.put(sweep('a', '2026-01-03T00:00:00Z'))
    expect(await s.get('b')).toEqual(sweep('b', '2026-01-02T00:00:00Z'))
    expect(await s.get('zz')).toBeUndefined()
    expect((await s.list()).map(x => x.id)).toEqual(['b', 'a'])
    await s.putArtifacts('b', 0, { model: '{"learner":{}}' })
    await s.putArtifacts('b', 0, { manifest: { version: 3 } })
    await s.putArtifacts('b', 10, { model: 'other' })
    expect(await s.getArtifacts('b', 0)).toEqual({ model: '{"learner":{}}', manifest: { version: 3 } })
    expect(await s.getArtifacts('b', 1)).toBeUndefined()
    await s.delete('b')
    expect(await s.get('b')).toBeUndefined()
    expect(await s.getArtifacts('b', 0)).toBeUndefined()
    expect(await s.getArtifacts('b', 10)).toBeUndefined()
    expect((await s.list()).map(x => x.id)).toEqual(['a'])
    s.close()
  })

  it('keeps what was put after the database is closed and reopened', async () => {
    const s = await IdbStore.open(name)
    const updated = { ...sweep('a', '2026-01-03T00:00:00Z'), status: 'finished' as const }
    await s.put(updated)
    await s.putArtifacts('a', 0, { model: 'm' })
    s.close()
    const again = await IdbStore.open(name)
    expect(await again.get('a')).toEqual(updated)
    expect(await again.getArtifacts('a', 0)).toEqual({ model: 'm' })
    again.close()
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase(name)
      req.onsuccess = () => resolve()
      req.onerror = () => reject(req.error)
    })
  })
})
