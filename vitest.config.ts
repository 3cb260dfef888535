import { defineConfig } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { requireChrome, WEBGPU_ARGS } from './src/cli/browser.ts'

// Kernel tests run in headless Chromium on its WebGPU adapter; everything else runs in Node.
// Two Node workers (unit and e2e files share them) beside the browser project's one Chromium:
// on 2 cores one worker leaves a core idle whenever a test waits on a server, a child process or
// the page. Both workers' counts must match (a project with other maxWorkers runs in a later group).
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['tests/kernels/**/*.test.ts', 'tests/ui/**/*.test.ts', 'tests/workers/**/*.test.ts', 'tests/ranks/**/*.test.ts', 'tests/browser/**/*.test.ts'],
          testTimeout: 120_000,
          browser: {
            enabled: true,
            headless: true,
            // One page at a time: the kernel and UI files share one SwiftShader adapter.
            fileParallelism: false,
            provider: playwright({
              launchOptions: { executablePath: requireChrome(), args: [...WEBGPU_ARGS] },
            }),
            instances: [{ browser: 'chromium' }],
          },
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
