import { defineConfig } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { requireChrome, WEBGPU_ARGS } from './src/cli/browser.ts'

// Kernel tests run in headless Chromium on its WebGPU adapter; everything else runs in Node.
// The e2e files share the unit files' workers, so they run while the browser project does
// instead of after everything (fileParallelism: false put them in a later group). Three workers
// even on 2 cores: most Node files wait on a child process or Chromium, not on their own CPU
// (on 2 cores the whole run took 575 s with vitest's default of cores − 1 = 1 worker, 411 s with
// 2 and 346 s with 3).
// `npm run test:fast` passes --maxWorkers=2: the unit files wait on no child process, so on 2 cores
// a third worker only adds a third load of the module graph (vitest refuses per-project maxWorkers
// for projects run together in one group).
export default defineConfig({
  test: {
    maxWorkers: 3,
    // The page server serves dist/app and the CLI runs dist/cli: built first when stale.
    globalSetup: ['tests/support/build-setup.ts'],
    projects: [
      {
        test: {
          // Node only: no child process, Chromium, CLI or Python (tests/unit/test-tiers.test.ts reads
          // for them; tests/support/node-only.ts makes a spawn throw). `npm run test:fast`.
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['tests/support/node-only.ts'],
          // One module graph per worker instead of one per file: on 2 cores the tier's wall time fell
          // from 531 s to 162 s and its CPU from 321 s to 146 s (tests restore what they change).
          isolate: false,
          // Transformed modules cached on disk between runs (node_modules/.experimental-vitest-cache):
          // on a rerun vitest's transform fell from 14 s to 3 s, import from 23 s to 10 s.
          experimental: { fsModuleCache: true },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          // Node only too (the same guard), for whole flows in-process: CLI commands through `main`
          // with a captured io, training runs, loopback, sharing and fault-injecting servers.
          // `npm run test:integration`; moved out of `unit` so `npm run test:fast` stays under a minute.
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['tests/support/node-only.ts'],
          isolate: false,
          experimental: { fsModuleCache: true },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: [
            'tests/kernels/**/*.test.ts',
            'tests/ui/**/*.test.ts',
            'tests/workers/**/*.test.ts',
            'tests/ranks/**/*.test.ts',
            'tests/browser/**/*.test.ts',
          ],
          testTimeout: 120_000,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: { executablePath: requireChrome(), args: [...WEBGPU_ARGS] },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        test: {
          // Tests that run a Python peer (XGBoost, Dask, PyTorch, Optuna) in a child process.
          name: 'peer',
          include: ['tests/peer/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
