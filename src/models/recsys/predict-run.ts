/**
 * Batch prediction of a table with a recommender's model.bin, page side: the GBDT predict path
 * (models/predict.ts runPrediction) hands a file with the checkpoint magic here. The checkpoint's
 * feature layout → the table's feature columns in table order → the same featurize (hashing mod
 * buckets, normalisation, missing indicators) and the same forward pass as training's evaluation
 * (train-loop.ts predictAll over modelOn's GPU model, or the CPU reference with `cpu`).
 * N = rows.
 */
import { createLoader } from '../../data/loader.ts'
import { planScan } from '../../data/plan.ts'
import type { Batch } from '../../data/types.ts'
import { openSnapshot } from '../../table/index.ts'
import type { StructType } from '../../table/types.ts'
import { httpFor } from '../../run/config.ts'
import { modelColumn, type PredictConfig, type PredictProgress, type PredictResult } from '../../eval/predict.ts'
import { concatTensors } from './ranks.ts'
import { decodeCheckpoint } from './checkpoint.ts'
import { modelOn } from './family.ts'
import { CPU_ADAPTER, openOwnDevice } from '../../run/session.ts'
import { columnKind, featurize, kindEncoding, type ColumnKind } from './features.ts'
import { predictAll } from './train-loop.ts'
import type { FeatureLayout } from './types.ts'

/**
 * Scores every live row of the table: `predictions` are the click probabilities evaluation reads
 * back, `margins` their logits, σ⁻¹ taken in f64 of the f32 probability (the backends hand back
 * only σ(logit)): close to the output layer's value while p is away from 1, ±Infinity where p
 * rounds to 0 or 1. Throws naming a feature column the table lacks or holds with another kind of values.
 */
export async function runRecsysPrediction(
  config: PredictConfig,
  onProgress: (p: PredictProgress) => void = () => {},
): Promise<PredictResult> {
  if (config.contribs) throw new RangeError('--contribs: SHAP values are for GBDT models, not the recommender')
  const ck = decodeCheckpoint(config.model as Uint8Array, 'model')
  const { layout, shape, params } = ck
  const http = httpFor(config, config.table)
  const snapshot = await openSnapshot(config.table, { version: config.version, ...http })
  const spec = layoutSpec(layout, snapshot.schema, config.table)
  const plan = await planScan(snapshot, { columns: Object.keys(spec), ...http })
  const device = await openOwnDevice(config.cpu ? 'cpu' : 'gpu')
  const model = await modelOn(device, shape, params, ck.state).catch(e => {
    device?.device.destroy()
    throw e
  })
  const parts: Float32Array[] = []
  const loader = createLoader(plan, {
    assign: { epoch: 0, worldSize: 1, rank: 0 }, // no seed: table order
    batchSize: params.batch_size,
    spec,
    workers: config.workers,
    http,
  })
  const total = plan.stats.rows
  let done = 0
  onProgress({ message: `scoring ${total} rows`, done, total })
  try {
    for await (const b of loader.batches()) {
      checkLists(layout, b)
      const scored = await predictAll(model.backend, featurize(layout, withZeroLabel(layout, b)))
      parts.push(scored)
      done += scored.length
      onProgress({ message: `scoring ${total} rows`, done, total })
    }
  } finally {
    await loader.close()
    model.dispose?.()
    device?.device.destroy()
  }
  const predictions = concatTensors(parts)
  const margins = predictions.map(p => Math.log(p) - Math.log1p(-p))
  return {
    margins,
    predictions,
    rows: predictions.length,
    version: snapshot.version,
    adapter: device?.adapter ?? CPU_ADAPTER,
  }
}

/** The loader's decode spec of the model's feature columns; throws naming a column that is missing or of another kind. */
function layoutSpec(
  layout: FeatureLayout,
  schema: StructType,
  table: string,
): Record<string, ReturnType<typeof kindEncoding>> {
  const wanted: [string, ColumnKind][] = [
    ...layout.sparse.map(f => [f.name, 'sparse'] as [string, 'sparse']),
    ...layout.dense.map(f => [f.name, 'dense'] as [string, 'dense']),
    ...layout.lists.map(f => [f.name, 'list'] as [string, 'list']),
    ...(layout.bags ?? []).map(f => [f.name, 'bag'] as [string, 'bag']),
  ]
  const spec: Record<string, ReturnType<typeof kindEncoding>> = {}
  for (const [name, kind] of wanted) {
    const field = modelColumn(schema, name, table)
    const has = columnKind(field.type)
    if (has !== kind)
      throw new RangeError(
        `model feature ${name}: the model reads it as a ${kind} feature, the table's column is ${JSON.stringify(field.type)}`,
      )
    spec[name] = kindEncoding(kind)
  }
  return spec
}

/** Fixed-length list columns must have the length the model was trained with. */
function checkLists(layout: FeatureLayout, b: Batch): void {
  for (const f of layout.lists) {
    const length = b.columns[f.name]?.length ?? 0
    if (b.size > 0 && length !== f.length)
      throw new RangeError(`model feature ${f.name}: lists of ${length} values, the model expects ${f.length}`)
  }
}

/**
 * The batch with a zero label column: featurize reads the label as training does, and a table to
 * predict need not have one (nor non-null values in it); the forward pass never uses it.
 */
function withZeroLabel(layout: FeatureLayout, b: Batch): Batch {
  const label = { name: layout.label, encoding: 'float32' as const, values: new Float32Array(b.size) }
  return { ...b, columns: { ...b.columns, [layout.label]: label } }
}
