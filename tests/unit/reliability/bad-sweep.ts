/**
 * The `snaptrain sweep` rows of the bad-input table: invalid search-space files and strategy
 * knobs. Each answers exit 2 before a browser starts, naming the space entry or the flag.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Space files by case name (contents as written). */
const SPACES: Record<string, string> = {
  notJson: '{max_depth:',
  unknown: '{"max_dept":{"type":"int","low":2,"high":8}}',
  lowHigh: '{"max_depth":{"type":"int","low":8,"high":2}}',
  logZero: '{"eta":{"type":"loguniform","low":0,"high":0.3}}',
  badType: '{"eta":{"type":"gaussian","low":0,"high":1}}',
  emptyChoices: '{"grow_policy":{"type":"categorical","choices":[]}}',
  outOfRange: '{"max_depth":{"type":"int","low":2,"high":40}}',
}

/** Writes the space files into `dir`. */
export async function writeSpaces(dir: string): Promise<void> {
  for (const [name, text] of Object.entries(SPACES)) await writeFile(join(dir, `space-${name}.json`), text)
}

/** One sweep row: extra flags and the message. */
export interface SweepRow {
  name: string
  args: (dir: string) => string[]
  message: RegExp
}

const space =
  (name: string) =>
  (dir: string): string[] => ['--space', join(dir, `space-${name}.json`)]

/** The rows (run as `sweep --table T --label y --model gbdt …`). */
export const SWEEP_ROWS: SweepRow[] = [
  { name: 'space file not JSON', args: space('notJson'), message: /--space: .*space-notJson\.json is not valid JSON/ },
  {
    name: 'space file missing',
    args: dir => ['--space', join(dir, 'nope.json')],
    message: /--space: cannot read .*nope\.json/,
  },
  { name: 'space: unknown parameter', args: space('unknown'), message: /space\.max_dept: unknown parameter for gbdt/ },
  { name: 'space: low > high', args: space('lowHigh'), message: /space\.max_depth: low 8 > high 2/ },
  { name: 'space: log scale from 0', args: space('logZero'), message: /space\.eta: log scale needs low > 0, got 0/ },
  { name: 'space: unknown domain type', args: space('badType'), message: /space\.eta: unknown type "gaussian"/ },
  {
    name: 'space: empty categorical',
    args: space('emptyChoices'),
    message: /space\.grow_policy: categorical needs a non-empty "choices" array/,
  },
  {
    name: 'space: range outside the parameter',
    args: space('outOfRange'),
    message: /space\.max_depth: max_depth: must be an integer in \[0, 16\], got 40/,
  },
  {
    name: 'sweep: unknown strategy',
    args: () => ['--strategy', 'bayes'],
    message: /--strategy: expected one of .*got 'bayes'/,
  },
  { name: 'sweep: 0 trials', args: () => ['--trials', '0'], message: /trials: must be a positive integer, got 0/ },
  { name: 'sweep: parallel 0', args: () => ['--parallel', '0'], message: /parallel: must be an integer ≥ 1, got 0/ },
  { name: 'sweep: eta 1', args: () => ['--eta', '1'], message: /eta: must be a number ≥ 2, got 1/ },
  {
    name: 'sweep: min resource above max',
    args: () => ['--min-resource', '10', '--max-resource', '5'],
    message: /minResource 10 > maxResource 5/,
  },
]
