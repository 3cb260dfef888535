/**
 * The `marketing` sample table: a direct-marketing binary classification set shaped like the
 * UCI bank-marketing data (numeric + string categorical columns, missing values, ~10% `y`).
 * The hidden logit has thresholds and interactions (housing loan × negative balance, long
 * call × cellular, age × balance) so that trees beat a linear model. One WRITE version.
 */
import { Rng } from '../../src/util/rng.ts'
import { auc } from '../../src/eval/metrics.ts'
import { interceptFor, sigmoid } from './logistic.ts'
import { DeltaTableWriter } from './delta-writer.ts'
import { splitRange, sliceRows } from './frame.ts'
import { rowGroupRowsFor } from './clicks.ts'
import type { ColumnSpec, Frame, GeneratorInfo } from './types.ts'

/** Generator id in `_generator.json`; bump when the output changes so `ifMissing` regenerates. */
export const MARKETING_GENERATOR = 'snaptrain datagen marketing 3'
const TARGET_RATE = 0.11
const FILES = 2
const JOBS = [
  'admin.',
  'blue-collar',
  'entrepreneur',
  'housemaid',
  'management',
  'retired',
  'self-employed',
  'services',
  'student',
  'technician',
  'unemployed',
]
const JOB_W = [11.4, 21.5, 3.3, 2.7, 20.9, 5, 3.5, 9.2, 2.1, 16.8, 2.9]
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const MONTH_W = [3, 6, 1, 6.5, 30, 12, 15, 14, 1.3, 1.6, 9, 0.5]
const MONTH_EFFECT = [0, 0, 1.2, 0.2, -0.5, 0, -0.2, 0, 1.2, 1.2, 0, 1.2]
const EURIBOR = [4.1, 4.0, 1.4, 1.3, 1.3, 4.9, 4.9, 4.9, 0.9, 0.8, 4.1, 0.7]

/** Columns of the marketing table, in schema order. */
export const MARKETING_COLUMNS: ColumnSpec[] = [
  { name: 'age', type: 'integer', nullable: false },
  { name: 'job', type: 'string', nullable: true },
  { name: 'marital', type: 'string', nullable: false },
  { name: 'education', type: 'string', nullable: true },
  { name: 'default', type: 'string', nullable: false },
  { name: 'balance', type: 'integer', nullable: false },
  { name: 'housing', type: 'string', nullable: false },
  { name: 'loan', type: 'string', nullable: false },
  { name: 'contact', type: 'string', nullable: true },
  { name: 'day', type: 'integer', nullable: false },
  { name: 'month', type: 'string', nullable: false },
  { name: 'duration', type: 'integer', nullable: false },
  { name: 'campaign', type: 'integer', nullable: false },
  { name: 'pdays', type: 'integer', nullable: true },
  { name: 'previous', type: 'integer', nullable: false },
  { name: 'poutcome', type: 'string', nullable: true },
  { name: 'euribor3m', type: 'double', nullable: false },
  { name: 'y', type: 'integer', nullable: false },
]

type Value = number | string | null
type Customer = Record<string, Value>

/** Options for the marketing table. */
export interface MarketingOptions {
  dir: string
  rows: number
  seed: number
  log?: (s: string) => void
}

/** Generates the marketing table under `dir`; returns its generator info. */
export async function writeMarketing(opts: MarketingOptions): Promise<GeneratorInfo> {
  const { frame, prob } = drawMarketing(opts.rows, opts.seed)
  const writer = new DeltaTableWriter(opts.dir, MARKETING_COLUMNS, opts.seed, 'marketing', `rows=${opts.rows}`)
  const files = []
  for (const [s, e] of splitRange(frame.numRows, FILES))
    files.push(await writer.writeDataFile(sliceRows(frame, s, e), rowGroupRowsFor(e - s)))
  await writer.commit(
    {
      operation: 'WRITE',
      operationParameters: { mode: 'Overwrite', partitionBy: '[]' },
      operationMetrics: {
        numFiles: String(files.length),
        numOutputRows: String(frame.numRows),
        numOutputBytes: String(files.reduce((s, f) => s + f.add.size, 0)),
      },
    },
    files.map(f => f.add),
    [],
  )
  opts.log?.(`marketing v0: ${frame.numRows} rows in ${files.length} files`)
  const y = frame.columns.y as Int32Array
  return {
    table: 'marketing',
    generator: MARKETING_GENERATOR,
    seed: opts.seed,
    rows: opts.rows,
    versions: [
      {
        version: 0,
        operation: 'WRITE',
        rows: frame.numRows,
        addedFiles: files.length,
        removedFiles: 0,
        changedRows: frame.numRows,
      },
    ],
    rowsAppended: 0,
    rowsDeleted: 0,
    finalRows: frame.numRows,
    baseRate: y.reduce((s, v) => s + v, 0) / y.length,
    bayesAuc: auc(prob, y),
    labelColumn: 'y',
    distinct: { job: new Set(frame.columns.job as string[]).size },
    files: files.map(f => f.layout),
  }
}

/** Draws `n` customers: the table frame plus each row's true probability of `y = 1`. */
export function drawMarketing(n: number, seed: number): { frame: Frame; prob: Float64Array } {
  const rng = new Rng(seed ^ 0x5bd1e995)
  const rows: Customer[] = Array.from({ length: n }, () => drawCustomer(rng))
  const logits = Float64Array.from(rows, hiddenLogit)
  const b = interceptFor(logits, TARGET_RATE)
  const prob = logits.map(l => sigmoid(l + b))
  const y = Int32Array.from(prob, p => (rng.next() < p ? 1 : 0))
  const columns: Frame['columns'] = { y }
  for (const spec of MARKETING_COLUMNS) {
    if (spec.name !== 'y') columns[spec.name] = rows.map(r => r[spec.name]) as (number | null)[] | (string | null)[]
  }
  return { frame: { numRows: n, columns }, prob }
}

function drawCustomer(rng: Rng): Customer {
  const age = Math.round(Math.min(95, Math.max(18, 41 + 10.6 * rng.normal())))
  let job: string | null = rng.next() < 0.006 ? null : pick(JOBS, JOB_W, rng)
  if (age >= 60 && rng.next() < 0.6) job = 'retired'
  if (age <= 24 && rng.next() < 0.4) job = 'student'
  const month = pick(MONTHS, MONTH_W, rng)
  const previous = rng.next() < 0.82 ? 0 : 1 + geometric(0.5, rng)
  return {
    age,
    job,
    marital: age < 30 && rng.next() < 0.6 ? 'single' : pick(['married', 'single', 'divorced'], [65, 20, 15], rng),
    education: pick(['primary', 'secondary', 'tertiary', null], [15, 51, 30, 4], rng),
    default: rng.next() < 0.018 ? 'yes' : 'no',
    balance: Math.round(Math.min(100_000, Math.exp(6.5 + 1.3 * rng.normal()) - 300)),
    housing: rng.next() < 0.55 ? 'yes' : 'no',
    loan: rng.next() < 0.16 ? 'yes' : 'no',
    contact: pick(['cellular', 'telephone', null], [65, 6, 29], rng),
    day: 1 + rng.int(31),
    month,
    duration: Math.max(1, Math.round(Math.exp(5.2 + 0.9 * rng.normal()))),
    campaign: Math.min(63, 1 + geometric(0.4, rng)),
    pdays: previous === 0 ? null : 1 + rng.int(800),
    previous,
    poutcome: previous === 0 ? null : pick(['failure', 'other', 'success'], [55, 20, 25], rng),
    euribor3m: Math.round(1000 * Math.max(0.6, EURIBOR[MONTHS.indexOf(month)] + 0.2 * rng.normal())) / 1000,
  }
}

/** The hidden logit (intercept excluded): main effects plus deliberate interactions. */
function hiddenLogit(r: Customer): number {
  const num = (k: string) => r[k] as number
  let t = 1.2 * Math.log(num('duration') / 180) + MONTH_EFFECT[MONTHS.indexOf(r.month as string)]
  t += r.poutcome === 'success' ? 2 : r.poutcome === 'failure' ? -0.2 : 0
  t += r.contact === null ? -0.9 : 0
  t += (r.housing === 'yes' ? -0.5 : 0) + (r.loan === 'yes' ? -0.4 : 0)
  t += r.job === 'student' || r.job === 'retired' ? 0.5 : 0
  t += num('age') < 25 || num('age') > 60 ? 0.4 : 0
  t += num('age') > 60 && num('balance') > 2000 ? 0.6 : 0
  t += r.housing === 'yes' && num('balance') < 0 ? -0.7 : 0
  t += num('duration') > 300 && r.contact === 'cellular' ? 0.5 : 0
  t -= 0.1 * Math.min(10, num('campaign') - 1) + 0.3 * (num('euribor3m') - 3)
  return t
}

function pick<T>(values: T[], weights: number[], rng: Rng): T {
  let u = rng.next() * weights.reduce((s, w) => s + w, 0)
  for (let i = 0; i < values.length; i++) if ((u -= weights[i]) < 0) return values[i]
  return values[values.length - 1]
}

/** Failures before the first success with success probability p. */
function geometric(p: number, rng: Rng): number {
  return Math.floor(Math.log(1 - rng.next()) / Math.log(1 - p))
}
