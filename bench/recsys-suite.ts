import { planScan } from '../src/data/plan.ts'
import { openSnapshot } from '../src/table/index.ts'
import { auc } from '../src/eval/metrics.ts'
import { openRecsysData, sliceBatch, type EpochStream } from '../src/models/recsys/data.ts'
import { initOptimizerState, initWeights } from '../src/models/recsys/init.ts'
import { modelShapeOf } from '../src/models/recsys/layout.ts'
import { GpuModel } from '../src/models/recsys/model-gpu.ts'
import { parseRecsysParams } from '../src/models/recsys/params.ts'
import { stepLr } from '../src/models/recsys/optimizer.ts'
import type { ModelBatch, ModelShape, ModelWeights, RecsysParams, StepLr } from '../src/models/recsys/types.ts'
import { valueRow } from './loader-rows.ts'
import { runPipelined, type PipelinedResult } from './recsys-pipelined.ts'
import {
  RECSYS_SIZES,
  RECSYS_SIZES_QUICK,
  loopShares,
  samplesPerSecond,
  trainFlopsPerSample,
  splitShares,
  stepTotal,
  type RecsysSizes,
  type StepSplit,
} from './recsys-rows.ts'
import { bestRow, withoutPeer, withPeer } from './rows.ts'
import { DEVICE_SIZES } from './device-suite.ts'
import { matmulRows } from './device-matmul.ts'
import { runEndToEnd, type EndToEndResult } from './recsys-e2e.ts'
import type { BenchRow, SuiteContext } from './types.ts'

/**
 * Optimizers of both sides: Adam on the dense weights, Adagrad on the embeddings (lazy in ours,
 * dense in TF.js — the same update, see recsys-tf.ts), at the rates tuned on clicks (bench/README.md,
 * "Recommender quality on clicks"); log1p on clicks' lognormal dense columns.
 */
const LR = 3e-3
const EMBEDDING_LR = 0.1
const LOG1P = Array.from({ length: 8 }, (_, k) => `dense_${k}`)
/** Loss readback period of our side, steps (the loop's eval_every in miniature). */
const METRICS_EVERY = 10

/** Runs the suite on the page server's clicks table. */
export async function runRecsysSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const z = ctx.quick ? RECSYS_SIZES_QUICK : RECSYS_SIZES
  const tableUrl = new URL('/tables/clicks/', location.href).href
  const raw = {
    batch_size: z.batch,
    layers: z.layers,
    embedding_dim: z.dim,
    lr: LR,
    embedding_optimizer: 'adagrad',
    embedding_lr: EMBEDDING_LR,
    log1p: LOG1P,
    seed: 1,
  }
  const params = parseRecsysParams(raw)
  ctx.progress(`feature statistics over ${tableUrl}`)
  const plan = await planScan(await openSnapshot(tableUrl))
  const data = await openRecsysData({ plan, label: 'label', validFraction: 0.1, workers: 2 }, params)
  const shape = modelShapeOf(data.source.layout, params)
  // Sliced with the model's shape, bags included (clicks' `history` is a bag feature).
  const valid = sliceBatch(data.valid, 0, Math.min(z.validRows, data.valid.n), shape)
  const init = initWeights(shape, params.seed)
  ctx.progress(
    `ours: ${z.warmup}+${z.steps} steps, B=${z.batch}, R=${shape.totalRows}, S=${shape.sparse}, K=${shape.bags ?? 0}, Cd=${shape.dense}`,
  )
  const ours = await runOurs(ctx, shape, params, init, data.source.open(0), z, valid)
  ctx.progress(`TF.js: same ${ours.batches.length} batches`)
  const peer = await runTf(shape, init, ours.batches, z, valid)
  ctx.progress(`ours pipelined: ${z.warmup}+${z.steps} steps, loss read-back every ${METRICS_EVERY}`)
  const piped = await runPipelined({
    cache: ctx.cache,
    shape,
    params,
    init,
    stream: data.source.open(0),
    warmup: z.warmup,
    steps: z.steps,
    readEvery: METRICS_EVERY,
  })
  ctx.progress(`snaptrain train end to end: ${z.e2eFilter ?? 'whole table'}, 1 epoch, default eval_every`)
  const e2e = await runEndToEnd({
    tableUrl,
    params: { ...raw, epochs: 1 },
    validFraction: 0.1,
    workers: 2,
    filter: z.e2eFilter,
    progress: ctx.progress,
  })
  ctx.progress(`device matmul rate (the device suite's matmul workloads) for the roofline`)
  // The best of the device suite's matmul rows; a tiled winner's peer (the naive kernel) is a
  // device row, not a recsys one, so the copy goes without it.
  const matmul = withoutPeer(bestRow(await matmulRows(ctx, { ...DEVICE_SIZES, matmulSizes: z.matmulSizes })))
  const gen = await generatorAucs(tableUrl)
  const rows = buildRows(ctx, z, ours, peer, gen.bayes, valid.n)
  // The pipelined row's peer is the TF.js per-step row, the one our per-step row names.
  const tfRow = rows.find(r => r.workload === rows[0].peer)!
  return [
    ...rows,
    ...pipelinedRows(ctx, z, piped, tfRow),
    ...endToEndRows(ctx, z, e2e, rows[0], shape, matmul),
    ...ceilingRows(ctx, gen),
  ]
}

interface SideResult {
  stepMs: number[]
  stepRows: number[]
  auc: number
  batches: ModelBatch[]
  split?: StepSplit[]
  backend?: string
}

async function runOurs(
  ctx: SuiteContext,
  shape: ModelShape,
  params: RecsysParams,
  init: ModelWeights,
  stream: EpochStream,
  z: RecsysSizes,
  valid: ModelBatch,
): Promise<SideResult> {
  const state = {
    weights: { embeddings: init.embeddings.slice(), dense: init.dense.map(d => d.slice()) },
    opt: initOptimizerState(shape, params),
  }
  // Created as `train` creates it (src/models/recsys/train-run.ts): the trainer's default kernels.
  const model = await GpuModel.create(ctx.cache, shape, params, state)
  const it = stream.batches()[Symbol.asyncIterator]()
  const batches: ModelBatch[] = [],
    split: StepSplit[] = []
  try {
    for (let i = 0; i < z.warmup + z.steps; i++) {
      const s = await oneStep(ctx, model, it, i, batches, stepLr(i, params, z.warmup + z.steps))
      if (i >= z.warmup) split.push(s)
    }
    await model.takeLosses()
    const stepRows = batches.slice(z.warmup).map(b => b.n)
    return {
      stepMs: split.map(stepTotal),
      stepRows,
      auc: await validAuc(b => model.predict(b), valid, z.batch, shape),
      batches,
      split,
    }
  } finally {
    await stream.close()
    model.destroy()
  }
}

/** One synchronised step of ours, timed in parts; pushes the batch it used. */
async function oneStep(
  ctx: SuiteContext,
  model: GpuModel,
  it: AsyncIterator<ModelBatch>,
  i: number,
  batches: ModelBatch[],
  lr: StepLr,
): Promise<StepSplit> {
  const t0 = performance.now()
  const next = await it.next()
  if (next.done) throw new RangeError(`recsys bench: the clicks epoch ended after ${i} batches`)
  const t1 = performance.now()
  await model.step(next.value, lr)
  const t2 = performance.now()
  await ctx.device.queue.onSubmittedWorkDone()
  const t3 = performance.now()
  if ((i + 1) % METRICS_EVERY === 0) await model.takeLosses()
  batches.push(next.value)
  return { inputMs: t1 - t0, submitMs: t2 - t1, gpuMs: t3 - t2, metricsMs: performance.now() - t3 }
}

async function runTf(
  shape: ModelShape,
  init: ModelWeights,
  batches: ModelBatch[],
  z: RecsysSizes,
  valid: ModelBatch,
): Promise<SideResult> {
  const { createTfRecsys } = await import('./recsys-tf.ts')
  const tfm = await createTfRecsys(shape, init, { lr: LR, embedding: 'adagrad', embeddingLr: EMBEDDING_LR })
  try {
    const stepMs: number[] = []
    for (let i = 0; i < batches.length; i++) {
      const t0 = performance.now()
      await tfm.step(batches[i])
      if (i >= z.warmup) stepMs.push(performance.now() - t0)
    }
    const stepRows = batches.slice(z.warmup).map(b => b.n)
    return {
      stepMs,
      stepRows,
      auc: await validAuc(b => tfm.predict(b), valid, z.batch, shape),
      batches,
      backend: tfm.backend,
    }
  } finally {
    tfm.dispose()
  }
}

/** AUC of `predict` over `valid`, scored in chunks of `batch` rows. */
async function validAuc(
  predict: (b: ModelBatch) => Promise<Float32Array>,
  valid: ModelBatch,
  batch: number,
  shape: ModelShape,
): Promise<number> {
  const probs = new Float32Array(valid.n)
  for (let s = 0; s < valid.n; s += batch) {
    probs.set(await predict(sliceBatch(valid, s, Math.min(valid.n, s + batch), shape)), s)
  }
  return auc(probs, valid.labels)
}

/** The generator's AUCs (_generator.json): Bayes-optimal, and the learnable ceiling of the 10% split (NaN when absent). */
interface GeneratorAucs {
  bayes: number
  learnable: number
  marginal: number
  splitRows: number
}

async function generatorAucs(tableUrl: string): Promise<GeneratorAucs> {
  const res = await fetch(new URL('_generator.json', tableUrl), { signal: AbortSignal.timeout(10_000) })
  const none = { bayes: NaN, learnable: NaN, marginal: NaN, splitRows: 0 }
  if (!res.ok) return none
  const g = (await res.json()) as {
    bayesAuc?: number
    learnable?: {
      splits: Array<{
        seed: number
        fraction: number
        rows: number
        learnableAuc: number
        learnableAucMarginal: number
      }>
    }
  }
  // The CLI's default split (fraction 0.1, seed 0); the suite's own rows (seed 1) differ but are drawn the same way.
  const s = g.learnable?.splits.find(x => x.fraction === 0.1)
  return {
    bayes: g.bayesAuc ?? NaN,
    learnable: s?.learnableAuc ?? NaN,
    marginal: s?.learnableAucMarginal ?? NaN,
    splitRows: s?.rows ?? 0,
  }
}

/** Throughput of the pipelined run (the TF.js per-step row as peer) and its input-wait share. */
function pipelinedRows(ctx: SuiteContext, z: RecsysSizes, p: PipelinedResult, tfRow: BenchRow): BenchRow[] {
  const label = `ours pipelined (back-to-back steps, loss read-back every ${METRICS_EVERY}), B=${z.batch} ${z.layers.join('-')} D=${z.dim}, ${p.steps} steps after ${z.warmup}`
  return [
    withPeer(valueRow(ctx, label, 'throughput', 'samples/s', [p.rows / (p.wallMs / 1000)]), tfRow),
    valueRow(ctx, 'ours pipelined: input wait (awaiting the loader) in wall time', 'share of wall time', '%', [
      (100 * p.inputMs) / p.wallMs,
    ]),
  ]
}

/**
 * The end-to-end run against the per-step rate of the same shape and batch (`perStep`: the
 * synchronised per-step row of this run), its loop split, and the roofline: training FLOPs per
 * sample (3 × forward matmul FLOPs) × samples/s against the device's best matmul rate, same run.
 */
function endToEndRows(
  ctx: SuiteContext,
  z: RecsysSizes,
  e: EndToEndResult,
  perStep: BenchRow,
  shape: ModelShape,
  matmul: BenchRow,
): BenchRow[] {
  const s = e.summary,
    t = s.timing
  const what = `B=${z.batch} ${z.layers.join('-')} D=${z.dim}, ${s.steps} steps, ${s.rounds} evaluations of ${s.rows_valid} rows`
  const e2e = valueRow(
    ctx,
    `snaptrain train end to end (runTraining: setup, steps, evaluations at the default eval_every, export; statistics pass excluded), ${what}`,
    'throughput',
    'samples/s',
    [s.samples_per_second],
  )
  const loop = valueRow(ctx, `snaptrain train, the training loop alone (loop_s), ${what}`, 'throughput', 'samples/s', [
    e.samples / t.loop_s,
  ])
  const secs = (name: string, v: number): BenchRow => valueRow(ctx, `end to end: ${name}`, 'time', 's', [v])
  const stepTime = t.loop_s - t.eval_s
  const flops = trainFlopsPerSample(shape)
  const gflops = (sps: number): number => (flops * sps) / 1e9
  const roof = (who: string, sps: number): BenchRow =>
    withPeer(
      valueRow(
        ctx,
        `roofline: ${who} × ${flops} training FLOPs/sample (3 × forward matmul FLOPs)`,
        'throughput',
        'GFLOP/s',
        [gflops(sps)],
      ),
      matmul,
    )
  return [
    withPeer(e2e, perStep),
    withPeer(loop, perStep),
    ...loopShares(t).map(([part, share]) =>
      valueRow(ctx, `end to end split: ${part}`, 'share of loop time', '%', [100 * share]),
    ),
    valueRow(ctx, 'end to end: input wait in training-step time (loop minus evaluation)', 'share of step time', '%', [
      stepTime > 0 ? (100 * t.input_wait_s) / stepTime : 0,
    ]),
    secs('statistics pass (excluded above)', t.stats_s),
    secs('setup (device, model, weight upload)', t.setup_s),
    secs('train_seconds', s.train_seconds),
    secs('export (final weights read back, model file)', t.export_s),
    valueRow(ctx, `end to end validation AUC (${s.rows_valid} held-out rows)`, 'AUC', 'AUC', [s.auc ?? NaN]),
    roof('per-step samples/s', perStep.value),
    roof('end-to-end samples/s', s.samples_per_second),
    matmul,
  ]
}

/** The generator's learnable ceiling (per-user terms removed) for the 10% split, beside the Bayes row. */
function ceilingRows(ctx: SuiteContext, g: GeneratorAucs): BenchRow[] {
  return [
    valueRow(
      ctx,
      `generator learnable ceiling AUC, user terms → 0 (_generator.json, seed-0 10% split, ${g.splitRows} rows)`,
      'AUC',
      'AUC',
      [g.learnable],
    ),
    valueRow(ctx, `generator learnable ceiling AUC, user terms integrated out (same rows)`, 'AUC', 'AUC', [g.marginal]),
  ]
}

function buildRows(
  ctx: SuiteContext,
  z: RecsysSizes,
  ours: SideResult,
  peer: SideResult,
  bayes: number,
  nValid: number,
): BenchRow[] {
  const rows = Math.round(ours.stepRows.reduce((x, y) => x + y, 0) / ours.stepRows.length)
  const arch = `B=${z.batch} (mean ${rows} training rows) ${z.layers.join('-')} D=${z.dim}, ${z.steps} timed steps after ${z.warmup}`
  // Training batches hold ~90% of B rows: the loader's batch minus the validation rows masked out.
  const sps = (r: SideResult): number[] => r.stepMs.map((ms, i) => samplesPerSecond(r.stepRows[i], ms))
  const tfRow = valueRow(
    ctx,
    `TF.js ${peer.backend} Adam + Adagrad (dense over all rows), ${arch}`,
    'throughput',
    'samples/s',
    sps(peer),
  )
  const ourRow = withPeer(
    valueRow(
      ctx,
      `ours GpuModel (trainer's kernels), Adam + lazy Adagrad, ${arch}`,
      'throughput',
      'samples/s',
      sps(ours),
    ),
    tfRow,
  )
  const shares = splitShares(ours.split!)
  const share = (name: string, v: number): BenchRow =>
    valueRow(ctx, `ours step split: ${name}`, 'share of step time', '%', [v * 100])
  const aucRow = (who: string, v: number): BenchRow =>
    valueRow(ctx, `${who} validation AUC after ${z.warmup + z.steps} steps (${nValid} held-out rows)`, 'AUC', 'AUC', [
      v,
    ])
  return [
    ourRow,
    tfRow,
    share('input wait (loader + featurize)', shares.inputMs),
    share('CPU submit (segments, upload, encode)', shares.submitMs),
    share('GPU (submit → done)', shares.gpuMs),
    share(`metrics readback (every ${METRICS_EVERY} steps)`, shares.metricsMs),
    aucRow('ours', ours.auc),
    aucRow('TF.js', peer.auc),
    valueRow(ctx, 'generator Bayes-optimal AUC (_generator.json)', 'AUC', 'AUC', [bayes]),
  ]
}
