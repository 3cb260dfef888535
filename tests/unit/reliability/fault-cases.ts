/**
 * The fault cases shared by the fault tests: each names a fault of tests/support/fault-server.ts,
 * when it is injected, and what a run through it must do — give the fault-free result (survived)
 * or fail naming the URL and the fault (`error` matches the message).
 */
import type { FaultRule } from '../../support/fault-server.ts'

/** One fault case. */
export interface FaultCase {
  name: string
  rules: FaultRule[]
  /** undefined: the run must give the fault-free result; else its error must match. */
  error?: RegExp
}

/** Data files and log entries (plain GETs); the range faults apply to ranged reads only. */
const ANY_FILE = /\.(parquet|json)$/

/**
 * Injected on requests 1 and 3 of each file (a footer read and a column chunk read); the
 * non-retryable ones on request 2, after the footer was read.
 */
export const FAULT_CASES: FaultCase[] = [
  { name: 'status-5xx', rules: [{ kind: 'status-5xx', path: ANY_FILE, nth: [1, 3] }] },
  { name: 'status-500-twice-in-a-row', rules: [{ kind: 'status-5xx', status: 500, path: ANY_FILE, nth: [1, 2] }] },
  { name: 'reset', rules: [{ kind: 'reset', path: ANY_FILE, nth: [1, 3] }] },
  { name: 'slow-first-byte', rules: [{ kind: 'slow-first-byte', delayMs: 300, path: ANY_FILE, nth: [1, 3] }] },
  { name: 'slow-body', rules: [{ kind: 'slow-body', delayMs: 300, path: ANY_FILE, nth: [1, 3] }] },
  { name: 'truncate-length-kept', rules: [{ kind: 'truncate-length-kept', path: ANY_FILE, nth: [1, 3] }] },
  { name: 'truncate-length-wrong', rules: [{ kind: 'truncate-length-wrong', rangedOnly: true, nth: [1, 3] }] },
  { name: 'range-ignored', rules: [{ kind: 'range-ignored', nth: [1, 3] }] },
  { name: 'range-416', rules: [{ kind: 'range-416', nth: [1, 3] }] },
  {
    name: 'range-wrong-bytes',
    rules: [{ kind: 'range-wrong-bytes', nth: [2] }],
    error: /\.parquet: wrong bytes: asked for bytes=\d+-\d+, the server answered bytes/,
  },
  {
    name: 'replace-file',
    rules: [{ kind: 'replace-file', nth: [2] }],
    error: /\.parquet: file changed while reading \(ETag was/,
  },
]

/** Every 4th GET of every file faults with `kind`: spread over a whole run, page and workers included. */
export function everyFourth(kind: FaultRule['kind']): FaultRule[] {
  const nth = Array.from({ length: 64 }, (_, i) => 4 * i + 2)
  return [{ kind, path: kind.startsWith('range-') ? /\.parquet$/ : ANY_FILE, nth }]
}
