// Prints vitest's JSON totals as one plain line ("N passed, N failed, N skipped") so CI can
// read the count of tests that ran.
import { readFileSync } from 'node:fs'
const r = JSON.parse(readFileSync(process.argv[2] ?? 'test-results/vitest.json', 'utf8'))
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`)
