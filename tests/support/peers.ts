/**
 * Test peers outside Node: Debian's python3-xgboost behind /usr/bin/python3 (never a product
 * dependency). Where it is missing the interop tests skip on a developer's machine, but under
 * CI=true they run and fail: `.ci/run` installs the peer, so a skip there would hide a promise the
 * README makes ("real XGBoost loads our model").
 */
import { spawnSync } from 'node:child_process'

/** The interpreter the interop tests call. */
export const PYTHON = '/usr/bin/python3'

/** Whether PYTHON imports xgboost. */
export const hasXgboost = spawnSync(PYTHON, ['-c', 'import xgboost'], { timeout: 20_000 }).status === 0

/** Whether the XGBoost interop tests run: the peer is there, or this is CI (where its absence is a failure). */
export const runXgboostTests = hasXgboost || process.env.CI === 'true'

/** Throws the reason when the peer is missing (first line of each interop test, so CI fails saying why). */
export function requireXgboost(): void {
  if (!hasXgboost) throw new Error(`${PYTHON} cannot import xgboost: install Debian's python3-xgboost (.ci/run does)`)
}

/**
 * A Python peer by the modules it imports (e.g. ['xgboost', 'dask', 'distributed'] for XGBoost on
 * Dask, ['torch'], ['optuna']): `run` is true where it is there or under CI=true (where its absence
 * is a failure), `require()` throws the reason as the first line of each test.
 */
export function pythonPeer(modules: readonly string[]): { available: boolean; run: boolean; require(): void } {
  const available = spawnSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { timeout: 60_000 }).status === 0
  return {
    available,
    run: available || process.env.CI === 'true',
    require() {
      if (!available)
        throw new Error(
          `${PYTHON} cannot import ${modules.join(', ')}: install Debian's python3-xgboost python3-distributed python3-dask python3-torch python3-optuna (.ci/run does)`,
        )
    },
  }
}
