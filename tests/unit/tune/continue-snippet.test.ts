/**
 * The continue-in-Spark snippet of a finished sweep reads the best trial's manifest, which is the
 * training run's manifest: its categorical features (the manifest's `categorical` block) become
 * the snippet's string-indexed columns, the others stay numeric. A recommender's snippet pastes the
 * PyTorch module (torch-module.ts) and parses as Python.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { DataCache } from '../../../src/sweep/data-cache.ts'
import { createTrialRunner } from '../../../src/sweep/trial-runner.ts'
import { continueSnippet, snippetTable } from '../../../src/tune/snippet.ts'
import { TORCH_MODULE } from '../../../src/tune/torch-module.ts'
import { newSweepState } from '../../../src/tune/sweep-state.ts'
import type { SweepConfig } from '../../../src/tune/types.ts'

let tables: ServedDirectory
beforeAll(async () => {
  tables = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
}, 60_000)
afterAll(async () => tables?.close())

it("a sweep's snippet takes the categorical features from the best trial's run manifest", async () => {
  const config: SweepConfig = {
    model: 'gbdt',
    table: `${tables.url}marketing/`,
    label: 'y',
    features: ['age', 'job', 'balance'],
    validFraction: 0.25,
    seed: 3,
    strategy: 'grid',
    trials: 1,
    fixed: { max_depth: 2 },
  }
  const data = await new DataCache({ workers: 0 }).load(config)
  const runner = createTrialRunner({ config, data, backend: createCpuBackend })
  const { artifacts } = await runner.run(
    { id: 0, config: {}, resource: 2, bracket: 0, rung: 0 },
    () => 'continue',
    new AbortController().signal,
  )
  expect((artifacts!.manifest as { kind: string }).kind).toBe('snaptrain-sweep-trial')
  expect(Object.keys((artifacts!.manifest as { categorical: object }).categorical)).toEqual(['job'])

  // What the sweep API's continueSnippet does with the stored best trial.
  const state = {
    ...newSweepState(config, 'snip'),
    status: 'finished' as const,
    best: { trial: 0, params: {}, metric: 0.7, resource: 2 },
  }
  const table = snippetTable(state, artifacts!.manifest)
  expect(table.features).toEqual([
    { name: 'age', categorical: false },
    { name: 'job', categorical: true },
    { name: 'balance', categorical: false },
  ])
  const snippet = continueSnippet(state, table)
  expect(snippet).toContain('CATEGORICAL = ["job"]')
  // A sweep stored before trials carried the run manifest: per-feature flags still count.
  expect(snippetTable(state, { features: [{ name: 'x', categorical: true }] }).features).toEqual([
    { name: 'x', categorical: true },
  ])
}, 120_000)

it("a recommender sweep's snippet is valid Python that featurizes per features.json and warm-starts from model.safetensors", () => {
  const config: SweepConfig = {
    model: 'recsys',
    table: 'https://example.com/clicks/',
    label: 'label',
    filter: "country = 'AA'",
    strategy: 'grid',
    trials: 1,
  }
  const state = {
    ...newSweepState(config, 'rec'),
    status: 'finished' as const,
    best: { trial: 0, params: { lr: 0.01, layers: [32, 16] }, metric: 0.7 },
  }
  const snippet = continueSnippet(state, {
    url: config.table,
    version: 3,
    features: [
      { name: 'user_id', categorical: true },
      { name: 'price', categorical: false },
    ],
  })
  expect(snippet).toContain(TORCH_MODULE)
  expect(snippet).toContain('SPARSE = ["user_id"]')
  expect(snippet).toContain('layers=[32, 16]')
  expect(snippet).toMatch(/if warm:\n {4}model\.load_state_dict\(read_safetensors\(INIT\)\)/)
  expect(snippet).toContain('.query("country == \'AA\'")')
  const python = '/usr/bin/python3'
  if (!existsSync(python)) return
  const r = spawnSync(python, ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], {
    input: snippet,
    encoding: 'utf8',
  })
  expect(r.status, r.stderr).toBe(0)
})
