/**
 * Recommender quality on `clicks`: MLP vs DCN-v2, with and without the multi-hot `history`
 * column, each trained once through runTraining (the one training run `snaptrain train` drives)
 * on the CPU reference backend in Node, seed-0 10% validation split, next to the generator's Bayes
 * AUC and learnable ceiling for that split (`_generator.json`). One row per configuration:
 * validation AUC, logloss, gauc over user_id, calibration, train seconds.
 *
 *   npx tsx bench/recsys-quality.ts [--table public/tables/clicks] [--only mlp,dcn-h] [--json]
 */
import { readFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import type { RecsysTrainResult } from '../src/models/recsys/family.ts'
import { runTraining } from '../src/run/pipeline.ts'
import { serveDirectory } from '../src/serve/server.ts'
import { CLICKS_COLUMNS } from '../tools/datagen/clicks-model.ts'

/** The parameters tuned on the old clicks table (bench/README.md, "Recommender quality on clicks"). */
const TUNED = {
  epochs: 1,
  batch_size: 1024,
  layers: [64, 32],
  embedding_dim: 16,
  lr: 3e-3,
  embedding_optimizer: 'adagrad',
  embedding_lr: 0.1,
  log1p: Array.from({ length: 8 }, (_, k) => `dense_${k}`),
  gauc_group: 'user_id',
}

/** Columns of clicks but the label and the multi-hot history (the emb list stays, as before). */
const NO_HISTORY = CLICKS_COLUMNS.map(c => c.name).filter(name => name !== 'label' && name !== 'history')

interface Config {
  name: string
  label: string
  features?: string[]
  params: Record<string, unknown>
}

const CONFIGS: Config[] = [
  { name: 'mlp', label: 'MLP, no history', features: NO_HISTORY, params: {} },
  { name: 'mlp-h', label: 'MLP + history (mean)', params: { pooling: 'mean' } },
  { name: 'mlp-hsum', label: 'MLP + history (sum)', params: { pooling: 'sum' } },
  {
    name: 'dcn',
    label: 'DCN 2 cross layers full rank, no history',
    features: NO_HISTORY,
    params: { architecture: 'dcn', cross_layers: 2 },
  },
  {
    name: 'dcn-h',
    label: 'DCN 2 cross layers full rank + history (mean)',
    params: { architecture: 'dcn', cross_layers: 2, pooling: 'mean' },
  },
  {
    name: 'dcn16',
    label: 'DCN 2 cross layers rank 16, no history',
    features: NO_HISTORY,
    params: { architecture: 'dcn', cross_layers: 2, cross_rank: 16 },
  },
  {
    name: 'dcn16-h',
    label: 'DCN 2 cross layers rank 16 + history (mean)',
    params: { architecture: 'dcn', cross_layers: 2, cross_rank: 16, pooling: 'mean' },
  },
]

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}

const table = resolve(arg('--table') ?? 'public/tables/clicks')
const only = arg('--only')?.split(',')
for (const n of only ?? [])
  if (!CONFIGS.some(c => c.name === n)) throw new RangeError(`--only: no configuration '${n}'`)
const chosen = only ? CONFIGS.filter(c => only.includes(c.name)) : CONFIGS

const gen = JSON.parse(readFileSync(resolve(table, '_generator.json'), 'utf8'))
const split = gen.learnable.splits.find((s: { seed: number; fraction: number }) => s.seed === 0 && s.fraction === 0.1)
const server = await serveDirectory(dirname(table))
const url = `${server.url}${basename(table)}/`
const rows: string[] = []
try {
  for (const c of chosen) {
    const r = (await runTraining({
      model: 'recsys',
      table: url,
      label: 'label',
      validFraction: 0.1,
      seed: 0,
      backend: 'cpu',
      workers: 0,
      ...(c.features ? { features: c.features } : {}),
      params: { ...TUNED, ...c.params },
    })) as RecsysTrainResult
    const s = r.summary
    const line = {
      name: c.name,
      auc: s.auc,
      logloss: s.logloss,
      gauc: s.gauc,
      calibration: s.calibration,
      steps: s.steps,
      train_seconds: s.train_seconds,
    }
    if (process.argv.includes('--json')) console.log(JSON.stringify(line))
    rows.push(
      `| ${c.label} | ${s.auc?.toFixed(4)} | ${s.logloss?.toFixed(4)} | ${s.gauc?.toFixed(4)} | ${s.calibration?.toFixed(3)} | ${s.train_seconds.toFixed(0)} |`,
    )
  }
} finally {
  await server.close()
}
console.log(
  `generator (seed-0 10% split, ${split.rows} rows): Bayes AUC ${split.bayesAuc.toFixed(4)}, learnable ceiling ${split.learnableAuc.toFixed(4)} (user terms → 0), ${split.learnableAucMarginal.toFixed(4)} (integrated out)`,
)
console.log('| configuration | validation AUC | logloss | gauc (user_id) | calibration | train s |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows) console.log(r)
