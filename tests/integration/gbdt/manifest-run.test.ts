/**
 * A whole CPU training run in Node (runTraining over a loopback server, marketing) whose manifest
 * records table, digest, files, features, params, seed and per-round metrics; the manifest's parts
 * alone: tests/unit/gbdt/manifest.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { categoriesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import type { TrainProgress } from '../../../src/run/config.ts'
import { fromXGBoostJson } from '../../../src/models/gbdt/xgboost-json.ts'

let server: ServedDirectory
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
})
afterAll(async () => {
  await server?.close()
})

describe('runTraining (CPU backend, in Node)', () => {
  it('returns a loadable model with dictionaries, a complete manifest and one progress event per round', async () => {
    const events: TrainProgress[] = []
    const r = await runTraining(
      {
        table: `${server.url}marketing/`,
        tablePath: '/x/marketing',
        label: 'y',
        validFraction: 0.2,
        seed: 5,
        params: { num_round: 3, max_depth: 3 },
        backend: 'cpu',
        workers: 0,
      },
      p => events.push(p),
    )
    expect(events.filter(e => e.kind === 'round')).toHaveLength(3)
    const m = r.manifest
    expect(m.table).toMatchObject({ path: '/x/marketing', version: 0, rows: 45_000 })
    expect(m.table.digest).toMatch(/^[0-9a-f]+$/)
    expect(m.table.files).toHaveLength(2)
    // The default row key: the label and every (scalar) feature, by name.
    const key = [...m.features.map(f => f.name), 'y'].sort()
    expect(m.validation).toEqual({ kind: 'fraction', fraction: 0.2, rows: r.summary.rows_valid, key })
    expect(m.seed).toBe(5)
    expect(m.params).toMatchObject({ num_round: 3, max_depth: 3, seed: 5 })
    expect(m.metrics).toHaveLength(3)
    expect(m.columns).toContain('y')
    expect(m.features.find(f => f.name === 'job')?.type).toBe('c')
    expect(m.categorical.job.codes).toBe(11)
    expect(r.summary.rows_train + r.summary.rows_valid).toBe(45_000)
    expect(r.summary.auc).toBeGreaterThan(0.7)
    const json = JSON.parse(r.model)
    expect(fromXGBoostJson(json).trees).toHaveLength(3)
    expect(categoriesOf(json).job).toHaveLength(11)
  })
  it('refuses unknown model families and bad labels', async () => {
    await expect(runTraining({ model: 'forest', table: 'x', label: 'y' })).rejects.toThrow(
      /model forest: unknown model family \(known: gbdt, recsys, gblinear\)/,
    )
    await expect(
      runTraining({
        table: `${server.url}marketing/`,
        label: 'age',
        params: { num_round: 1 },
        backend: 'cpu',
        workers: 0,
      }),
    ).rejects.toThrow(/label column age: binary:logistic needs labels 0 or 1/)
  })
})
