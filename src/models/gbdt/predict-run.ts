/**
 * Batch prediction of a table with a model file, page side (window.snaptrain.predict, the CLI's
 * `snaptrain predict`): XGBoost JSON (ours or XGBoost's) → the table's feature columns by the
 * model's feature names, in table order (categoricals through the model's dictionaries) →
 * margins on the GPU predict kernel, or the CPU reference predictMargins. N = rows, F = features.
 */
import type { TableAccess } from '../../storage/types.ts'
import { openSnapshot } from '../../table/index.ts'
import type { StructType } from '../../table/types.ts'
import { readTable } from './dataset.ts'
import { featureOf, type FeatureSpec } from './features.ts'
import { categoriesOf } from './model-attributes.ts'
import { baseMargin, transform } from './objective.ts'
import { predictMargins } from './predict.ts'
import type { Booster } from './types.ts'
import { fromXGBoostJson } from './xgboost-json.ts'
import { hasWebGpu, httpFor } from '../../run/config.ts'

/** What to predict (structured-cloneable). */
export interface PredictConfig {
  /** The model file's text (XGBoost JSON). */
  model: string
  /** Table root URL. */
  table: string
  version?: number
  /** CPU reference predictor instead of the GPU kernel. */
  cpu?: boolean
  workers?: number
  /** Extra request headers (e.g. a bearer token), sent only to the origin of `table`; never returned. */
  headers?: Record<string, string>
  /** Origins besides the table's own that its files may come from (HttpOptions.allowOrigins); default any. */
  allowOrigins?: string[]
  /** A governed table's access (run/config.ts TrainConfig.access); never returned. */
  access?: TableAccess
}

/** Margins and predictions, one per table row in table order. */
export interface PredictResult {
  /** Float32Array, length N: raw scores (XGBoost output_margin). */
  margins: Float32Array
  /** Float32Array, length N: after the objective's transform. */
  predictions: Float32Array
  rows: number
  version: number
  adapter: string
}

/** Predicts every live row of the table. Throws naming a feature the table lacks. */
export async function runPrediction(config: PredictConfig): Promise<PredictResult> {
  const json = JSON.parse(config.model) as unknown
  const booster = fromXGBoostJson(json)
  const categories = categoriesOf(json)
  const http = httpFor(config, config.table)
  const snapshot = await openSnapshot(config.table, { version: config.version, ...http })
  const specs = modelFeatures(booster, snapshot.schema, categories, config.table)
  const table = await readTable(snapshot, specs, categories, { workers: config.workers, http })
  const { margins, adapter } = config.cpu
    ? { margins: predictMargins(booster, table.columns), adapter: 'cpu (reference predictor)' }
    : await gpuMargins(booster, table.columns)
  const predictions = margins.map(m => transform(booster.params.objective, m))
  return { margins, predictions, rows: margins.length, version: snapshot.version, adapter }
}

/** Feature specs of the model's features in the table: strings need the model's dictionary. */
export function modelFeatures(
  booster: Booster,
  schema: StructType,
  categories: Record<string, string[]>,
  table: string,
): FeatureSpec[] {
  return booster.featureNames.map(name => {
    const field = schema.fields.find(f => f.name === name)
    if (!field)
      throw new RangeError(
        `model feature ${name}: no such column in ${table} (columns: ${schema.fields.map(f => f.name).join(', ')})`,
      )
    const spec = featureOf(field)
    if (typeof spec === 'string') throw new RangeError(`model feature ${name}: ${spec}`)
    if (spec.kind === 'categorical' && !categories[name])
      throw new RangeError(`model feature ${name}: a string column, but the model has no dictionary for it`)
    return spec
  })
}

/**
 * Margins from the predict kernel on a fresh device (CPU reference where WebGPU is absent). Rows
 * go in chunks that keep the row-major feature buffer within the device's binding limit.
 */
async function gpuMargins(
  booster: Booster,
  columns: Float32Array[],
): Promise<{ margins: Float32Array; adapter: string }> {
  if (!hasWebGpu()) return { margins: predictMargins(booster, columns), adapter: 'cpu (no WebGPU)' }
  const [
    { requestDevice, adapterSummary, adapterLabel },
    { PipelineCache },
    { uploadBuffer, createBuffer },
    { readBuffer },
    { predictCall },
    { packTrees },
    { runKernel },
  ] = await Promise.all([
    import('../../gpu/device.ts'),
    import('../../gpu/pipeline-cache.ts'),
    import('../../gpu/buffers.ts'),
    import('../../gpu/readback.ts'),
    import('../../kernels/gbdt/predict.ts'),
    import('../../kernels/gbdt/layout.ts'),
    import('../../kernels/runner.ts'),
  ])
  const { adapter, device } = await requestDevice()
  try {
    const rows = columns[0]?.length ?? 0,
      F = Math.max(1, columns.length)
    const packed = packTrees(booster.trees)
    const cache = new PipelineCache(device)
    const nodes = uploadBuffer(device, packed.nodes),
      catBits = uploadBuffer(device, packed.catBits),
      treeOffsets = uploadBuffer(device, packed.treeOffsets)
    const chunk = Math.max(1, Math.min(rows, Math.floor(device.limits.maxStorageBufferBindingSize / (4 * F))))
    const margins = new Float32Array(rows)
    const base = baseMargin(booster.params.objective, booster.baseScore)
    for (let start = 0; start < rows; start += chunk) {
      const n = Math.min(chunk, rows - start)
      const features = new Float32Array(n * F)
      columns.forEach((c, f) => {
        for (let i = 0; i < n; i++) features[i * F + f] = c[start + i]
      })
      const buffers = {
        features: uploadBuffer(device, features),
        nodes,
        catBits,
        treeOffsets,
        out: createBuffer(device, n * 4),
      }
      await runKernel(
        cache,
        predictCall(buffers, { rows: n, features: F, trees: booster.trees.length, maxDepth: packed.maxDepth }, base),
      )
      margins.set(await readBuffer(device, buffers.out, Float32Array, n), start)
      buffers.features.destroy()
      buffers.out.destroy()
    }
    return { margins, adapter: adapterLabel(adapterSummary(adapter)) }
  } finally {
    device.destroy()
  }
}
