/**
 * Pure parts of the `scaleout` suite: the runs (dataset × ranks R × lr rule), the
 * rows each run yields, and reading those rows back as points for the table and the plot
 * (scaleout-plot.ts). R = ranks; B = per-rank batch; the global batch is R × B.
 */
import type { RecsysParams } from '../src/models/recsys/types.ts'

/** One training table of the experiment. */
export interface ScaleoutDataset {
  name: string
  /** Table folder under the page server's /tables/. */
  table: string
  label: string
  features: string[]
  /** Row filter sizing the run to the software adapter. */
  filter: string
  validFraction: number
}

/** One run: R ranks, lr rule (a) 'none' = per-rank batch kept, lr unchanged; (b) scaled. */
export interface ScaleoutCase {
  ranks: number
  rule: RecsysParams['lr_scaling']
}

/** Workload of the suite. */
export interface ScaleoutSizes {
  datasets: ScaleoutDataset[]
  cases: ScaleoutCase[]
  /** Recommender parameters shared by every run (batch_size = per-rank B). */
  params: Record<string, unknown>
  /** Warmup steps of the scaled-lr runs (b). */
  warmup: number
}

/** Click columns without the 64-float 'emb' array and half the dense columns (less to decode per rank). */
const CLICKS_FEATURES = [
  'user_id',
  'item_id',
  'device',
  'country',
  'ad_format',
  'hour',
  'category',
  'publisher',
  'dense_0',
  'dense_1',
  'dense_2',
  'dense_3',
]
/** Marketing columns without nulls in string columns (the recommender refuses a null id). */
const MARKETING_FEATURES = [
  'age',
  'marital',
  'default',
  'balance',
  'housing',
  'loan',
  'day',
  'month',
  'duration',
  'campaign',
  'previous',
  'euribor3m',
]

const DATASETS: ScaleoutDataset[] = [
  {
    name: 'clicks',
    table: 'clicks',
    label: 'label',
    features: CLICKS_FEATURES,
    filter: 'hour < 2',
    validFraction: 0.2,
  },
  {
    name: 'marketing',
    table: 'marketing',
    label: 'y',
    features: MARKETING_FEATURES,
    filter: 'day <= 10',
    validFraction: 0.2,
  },
]

/** Sized for 2 cores and one software adapter shared by all ranks: ≈ 15 min in all. */
export const SCALEOUT_SIZES: ScaleoutSizes = {
  datasets: DATASETS,
  cases: [
    { ranks: 1, rule: 'none' },
    { ranks: 2, rule: 'none' },
    { ranks: 4, rule: 'none' },
    { ranks: 2, rule: 'sqrt' },
    { ranks: 4, rule: 'sqrt' },
    { ranks: 2, rule: 'linear' },
    { ranks: 4, rule: 'linear' },
  ],
  params: {
    epochs: 1,
    batch_size: 256,
    layers: [64, 32],
    embedding_dim: 8,
    lr: 0.003,
    embedding_lr: 0.05,
    eval_every: 100_000,
    seed: 1,
  },
  warmup: 5,
}

/** Smoke run (--quick): tiny filters, R ≤ 2. */
export const SCALEOUT_SIZES_QUICK: ScaleoutSizes = {
  datasets: DATASETS.map(d => ({ ...d, filter: d.name === 'clicks' ? 'hour < 1 AND category < 200' : 'day <= 2' })),
  cases: [
    { ranks: 1, rule: 'none' },
    { ranks: 2, rule: 'none' },
    { ranks: 2, rule: 'sqrt' },
  ],
  params: {
    epochs: 1,
    batch_size: 128,
    layers: [16],
    embedding_dim: 4,
    lr: 0.003,
    embedding_lr: 0.05,
    eval_every: 100_000,
    seed: 1,
  },
  warmup: 2,
}

/** The recommender parameters of one run. */
export function caseParams(z: ScaleoutSizes, c: ScaleoutCase): Record<string, unknown> {
  return c.rule === 'none' ? { ...z.params } : { ...z.params, lr_scaling: c.rule, warmup_steps: z.warmup }
}

/** Workload label of a run; parsed back by scaleoutPoints. */
export function caseLabel(d: ScaleoutDataset, c: ScaleoutCase, batch: number): string {
  const rule = c.rule === 'none' ? '(a) lr unchanged' : `(b) lr × ${c.rule === 'sqrt' ? '√R' : 'R'}`
  return `${d.name} R=${c.ranks} ${rule} B=${batch}/rank global ${batch * c.ranks}`
}

/** Metrics each run reports (BenchRow.metric, unit). */
export const SCALEOUT_METRICS = {
  wall: ['wall time', 's'],
  train: ['training time', 's'],
  throughput: ['throughput', 'samples/s'],
  auc: ['validation AUC', 'AUC'],
  steps: ['steps', 'steps'],
} as const

/** One run read back from its rows. */
export interface ScaleoutPoint {
  dataset: string
  ranks: number
  rule: 'none' | 'sqrt' | 'linear'
  batch: number
  wallS: number
  trainS: number
  samplesPerS: number
  auc: number
  steps: number
}

const LABEL = /^(\S+) R=(\d+) \((a|b)\) lr (?:unchanged|× (√R|R)) B=(\d+)\/rank/

/** Groups the suite's rows (any order) into one point per run. */
export function scaleoutPoints(rows: readonly { workload: string; metric: string; value: number }[]): ScaleoutPoint[] {
  const byRun = new Map<string, ScaleoutPoint>()
  for (const r of rows) {
    const m = LABEL.exec(r.workload)
    if (!m) continue
    const p =
      byRun.get(r.workload) ??
      ({
        dataset: m[1],
        ranks: Number(m[2]),
        rule: m[3] === 'a' ? 'none' : m[4] === 'R' ? 'linear' : 'sqrt',
        batch: Number(m[5]),
        wallS: NaN,
        trainS: NaN,
        samplesPerS: NaN,
        auc: NaN,
        steps: NaN,
      } satisfies ScaleoutPoint)
    const key = (Object.keys(SCALEOUT_METRICS) as (keyof typeof SCALEOUT_METRICS)[]).find(
      k => SCALEOUT_METRICS[k][0] === r.metric,
    )
    if (key === 'wall') p.wallS = r.value
    else if (key === 'train') p.trainS = r.value
    else if (key === 'throughput') p.samplesPerS = r.value
    else if (key === 'auc') p.auc = r.value
    else if (key === 'steps') p.steps = r.value
    byRun.set(r.workload, p)
  }
  return [...byRun.values()]
}

/** The Markdown table of bench/README.md's Scale-out section. */
export function scaleoutMarkdown(points: readonly ScaleoutPoint[]): string {
  const head =
    '| dataset | R | lr rule | global batch | steps | wall s (run) | training s | samples/s | validation AUC |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |'
  const rule = (p: ScaleoutPoint): string =>
    p.rule === 'none' ? '(a) unchanged' : `(b) × ${p.rule === 'sqrt' ? '√R' : 'R'}, warmup`
  const lines = points.map(
    p =>
      `| ${p.dataset} | ${p.ranks} | ${rule(p)} | ${p.batch * p.ranks} | ${p.steps} | ${p.wallS.toFixed(1)} | ${p.trainS.toFixed(1)} | ${Math.round(p.samplesPerS)} | ${p.auc.toFixed(3)} |`,
  )
  return [head, ...lines].join('\n')
}
