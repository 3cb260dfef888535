/**
 * Recommender training parameters (`--params`): names, defaults and validation. A bad value is a
 * RangeError naming the parameter and what it must be; an unknown name is refused (a typo would
 * otherwise silently train with the default).
 */
import { CALIBRATION_NOT_A_TARGET } from './metrics.ts'
import type { RecsysParams } from './types.ts'

/**
 * Defaults: the issue's (dim 16, layers 256-128, lr 1e-3, batch 4096), and Adagrad embedding_lr
 * 0.05: on clicks (1 epoch, B 1024, 64-32) 0.01 → 0.05 raised validation AUC 0.688 → 0.698, the
 * largest effect of the tuning in bench/README.md ("Recommender quality on clicks"); 0.1 gained
 * no more (0.6998 → 0.7002 at lr 3e-3) and a second epoch over-fits at either rate.
 */
export const DEFAULT_RECSYS_PARAMS: Readonly<RecsysParams> = {
  epochs: 1,
  batch_size: 4096,
  embedding_dim: 16,
  layers: [256, 128],
  architecture: 'mlp',
  cross_layers: 2,
  cross_rank: 0,
  lr: 1e-3,
  optimizer: 'adam',
  embedding_optimizer: 'adagrad',
  embedding_lr: 0.05,
  weight_decay: 0,
  buckets: undefined,
  pooling: 'mean',
  warmup_steps: 0,
  schedule: 'constant',
  seed: 0,
  eval_every: 100,
  early_stopping_rounds: 0,
  early_stopping_metric: 'auc',
  gauc_group: undefined,
  lr_scaling: 'none',
  restore_best: false,
  log1p: [],
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
}

/** Integer parameters: [name, min, max]. */
const INTS: ReadonlyArray<[keyof RecsysParams, number, number]> = [
  ['epochs', 1, 1e6],
  ['batch_size', 1, 2 ** 24],
  ['embedding_dim', 1, 1024],
  ['warmup_steps', 0, 1e9],
  ['seed', 0, 2 ** 32 - 1],
  ['eval_every', 1, 1e9],
  ['early_stopping_rounds', 0, 1e6],
  ['cross_layers', 1, 64],
  // The upper bound C0 is the model's input width, known once the features are: layout.ts checkShape.
  ['cross_rank', 0, 2 ** 20],
]
/** Real parameters: [name, lower bound, lower open]. */
const NUMS: ReadonlyArray<[keyof RecsysParams, number, boolean]> = [
  ['lr', 0, true],
  ['embedding_lr', 0, true],
  ['weight_decay', 0, false],
]
const CHOICES: Partial<Record<keyof RecsysParams, readonly string[]>> = {
  optimizer: ['adam', 'adamw'],
  embedding_optimizer: ['adagrad', 'rowwise_adam'],
  schedule: ['constant', 'cosine', 'step'],
  lr_scaling: ['none', 'linear', 'sqrt'],
  early_stopping_metric: ['auc', 'logloss', 'gauc'],
  architecture: ['mlp', 'dcn'],
}
/** Settable names (beta1/beta2/eps are fixed). */
const KNOWN = new Set([
  'epochs',
  'batch_size',
  'embedding_dim',
  'layers',
  'architecture',
  'cross_layers',
  'cross_rank',
  'lr',
  'optimizer',
  'embedding_optimizer',
  'embedding_lr',
  'weight_decay',
  'buckets',
  'pooling',
  'warmup_steps',
  'schedule',
  'seed',
  'eval_every',
  'early_stopping_rounds',
  'early_stopping_metric',
  'gauc_group',
  'restore_best',
  'log1p',
  'lr_scaling',
])
/** Parameter names `--params` accepts (for sweep space validation). */
export const RECSYS_PARAM_NAMES: readonly string[] = [...KNOWN]

/**
 * Validates `raw` (parsed `--params` JSON) over the defaults. `embedding_lr` defaults to 0.05
 * for adagrad and to `lr` for rowwise_adam; `restore_best` to early_stopping_rounds > 0;
 * `weight_decay` needs optimizer 'adamw'; `cross_layers` and `cross_rank` other than the defaults need architecture 'dcn'.
 */
export function parseRecsysParams(raw: unknown = {}): RecsysParams {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new RangeError('recsys params must be a JSON object')
  const given = raw as Record<string, unknown>
  for (const name of Object.keys(given)) {
    if (!KNOWN.has(name)) throw new RangeError(`unknown recsys parameter '${name}' (known: ${[...KNOWN].join(', ')})`)
  }
  const p = { ...DEFAULT_RECSYS_PARAMS, ...given } as RecsysParams
  if (given.embedding_lr === undefined)
    p.embedding_lr = p.embedding_optimizer === 'rowwise_adam' ? p.lr : DEFAULT_RECSYS_PARAMS.embedding_lr
  if (given.restore_best === undefined) p.restore_best = p.early_stopping_rounds > 0
  if (typeof p.restore_best !== 'boolean')
    throw new RangeError(`restore_best must be true or false, got ${JSON.stringify(p.restore_best)}`)
  if (p.early_stopping_metric === ('calibration' as string))
    throw new RangeError(`early_stopping_metric: ${CALIBRATION_NOT_A_TARGET}`)
  checkScalars(p)
  checkGroup(p)
  p.layers = checkLayers(p.layers)
  p.log1p = checkNames('log1p', p.log1p)
  checkBuckets(p.buckets)
  checkPooling(p.pooling)
  if (p.weight_decay > 0 && p.optimizer !== 'adamw')
    throw new RangeError(`weight_decay ${p.weight_decay} needs optimizer 'adamw' (got '${p.optimizer}')`)
  // Like weight_decay, only a value other than the default is refused: parsed params (a run
  // manifest's) parse again unchanged.
  for (const name of ['cross_layers', 'cross_rank'] as const) {
    if (p[name] !== DEFAULT_RECSYS_PARAMS[name] && p.architecture !== 'dcn')
      throw new RangeError(`${name} ${p[name]} needs architecture 'dcn' (got '${p.architecture}')`)
  }
  return p
}

function checkScalars(p: RecsysParams): void {
  const rec = p as unknown as Record<string, unknown>
  for (const [name, min, max] of INTS) {
    const v = rec[name]
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`)
  }
  for (const [name, lo, open] of NUMS) {
    const v = rec[name]
    const ok = typeof v === 'number' && Number.isFinite(v) && (open ? v > lo : v >= lo)
    if (!ok) throw new RangeError(`${name} must be a finite number ${open ? '>' : '≥'} ${lo}, got ${JSON.stringify(v)}`)
  }
  for (const [name, allowed] of Object.entries(CHOICES)) {
    if (!allowed!.includes(rec[name] as string))
      throw new RangeError(
        `${name} must be one of ${allowed!.map(a => `'${a}'`).join(', ')}, got ${JSON.stringify(rec[name])}`,
      )
  }
}

/** gauc_group names a column (its existence is checked against the table: family precheck, data.ts); 'gauc' needs it. */
function checkGroup(p: RecsysParams): void {
  if (p.gauc_group !== undefined && (typeof p.gauc_group !== 'string' || p.gauc_group === ''))
    throw new RangeError(`gauc_group must be a column name, got ${JSON.stringify(p.gauc_group)}`)
  if (p.early_stopping_metric === 'gauc' && p.gauc_group === undefined)
    throw new RangeError(
      "early_stopping_metric 'gauc' needs gauc_group, the column that groups the validation rows (e.g. a user id)",
    )
}

function checkLayers(v: unknown): number[] {
  const ok = Array.isArray(v) && v.every(x => Number.isInteger(x) && x >= 1 && x <= 65536)
  if (!ok)
    throw new RangeError(`layers must be an array of integers in [1, 65536] (hidden widths), got ${JSON.stringify(v)}`)
  return [...(v as number[])]
}

function checkNames(name: string, v: unknown): string[] {
  if (!Array.isArray(v) || !v.every(x => typeof x === 'string'))
    throw new RangeError(`${name} must be an array of column names, got ${JSON.stringify(v)}`)
  return [...v]
}

const POOLINGS = ['sum', 'mean']

/** 'sum' | 'mean', or { column: 'sum' | 'mean' } (that the columns are bags is checked against the table, features.ts). */
function checkPooling(v: unknown): void {
  const choices = POOLINGS.map(a => `'${a}'`).join(', ')
  if (typeof v === 'string') {
    if (!POOLINGS.includes(v)) throw new RangeError(`pooling must be one of ${choices}, got ${JSON.stringify(v)}`)
    return
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new RangeError(`pooling must be ${choices} or an object { column: ${choices} }, got ${JSON.stringify(v)}`)
  for (const [col, x] of Object.entries(v)) {
    if (!POOLINGS.includes(x as string))
      throw new RangeError(`pooling.${col} must be one of ${choices}, got ${JSON.stringify(x)}`)
  }
}

function checkBuckets(v: unknown): void {
  if (v === undefined) return
  const isCount = (x: unknown): boolean => Number.isInteger(x) && (x as number) >= 1 && (x as number) <= 2 ** 31
  if (typeof v === 'number') {
    if (!isCount(v)) throw new RangeError(`buckets must be an integer in [1, 2^31], got ${v}`)
    return
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new RangeError(`buckets must be a number or an object { column: count }, got ${JSON.stringify(v)}`)
  for (const [col, n] of Object.entries(v)) {
    if (!isCount(n)) throw new RangeError(`buckets.${col} must be an integer in [1, 2^31], got ${JSON.stringify(n)}`)
  }
}

/**
 * Optimizer steps of one epoch: every row of the plan is batched (validation rows ride along,
 * masked), each of `worldSize` ranks taking an even share; what the loop runs and the page's
 * estimate counts.
 */
export function stepsPerEpoch(rows: number, batch: number, worldSize = 1): number {
  return rows > 0 && batch > 0 ? Math.ceil(Math.floor(rows / worldSize) / batch) : 0
}
