/**
 * Batch prediction of a table with a model file, page side (window.snaptrain.predict, the CLI's
 * `snaptrain predict`): XGBoost JSON (ours or XGBoost's) → the table's feature columns by the
 * model's feature names, in table order (categoricals through the model's dictionaries) →
 * margins on the GPU predict kernel, or the CPU reference predictMargins; with `contribs`, SHAP
 * values on the tree_shap kernel in the same device session, or the CPU reference treeShap.
 * N = rows, F = features.
 */
import { openSnapshot } from '../../table/index.ts'
import type { StructType } from '../../table/types.ts'
import { modelColumn, type PredictConfig, type PredictResult } from '../../eval/predict.ts'
import { readTable } from '../../eval/dataset.ts'
import { featureOf, type FeatureSpec } from '../../eval/features.ts'
import { categoriesOf } from './model-attributes.ts'
import { decodeModel } from './model-file.ts'
import { baseMargin, transform } from './objective.ts'
import { predictMargins } from './predict.ts'
import { contribsRowMajor, topFeatures, treeShap } from './shap.ts'
import type { Booster } from './types.ts'
import { fromXGBoostJson } from './xgboost-json.ts'
import { hasWebGpu, httpFor } from '../../run/config.ts'
import { checkRowValues, rowColumnsOf } from '../../eval/row-columns.ts'

/**
 * Predicts every live row of the table with an XGBoost model (models/predict.ts sends a
 * recommender's model file elsewhere). Throws naming a feature the table lacks.
 */
export async function runPrediction(config: PredictConfig): Promise<PredictResult> {
  const json = decodeModel(config.model)
  const booster = fromXGBoostJson(json)
  const categories = categoriesOf(json)
  const http = httpFor(config, config.table)
  const snapshot = await openSnapshot(config.table, { version: config.version, ...http })
  const specs = modelFeatures(booster, snapshot.schema, categories, config.table)
  const rowColumns = rowColumnsOf({ baseMargin: config.baseMargin })
  if (config.baseMargin !== undefined) checkBaseMarginColumn(config.baseMargin, booster, snapshot.schema)
  const table = await readTable(snapshot, specs, categories, { workers: config.workers, http, ...rowColumns })
  const start = checkRowValues(rowColumns, table).baseMargin
  const predicted = config.cpu
    ? {
        margins: predictMargins(booster, table.columns, undefined, start),
        contribs: config.contribs ? treeShap(booster, table.columns) : undefined,
        adapter: 'cpu (reference predictor)',
      }
    : await gpuPredict(booster, table.columns, config.contribs === true, start)
  const { margins, contribs, adapter } = predicted
  // SHAP's bias column holds the starting margin: a row's own base margin where it has one (XGBoost).
  if (contribs && start && config.cpu) shiftBias(contribs, booster, start)
  const predictions = margins.map(m => transform(booster.params.objective, m))
  const result: PredictResult = { margins, predictions, rows: margins.length, version: snapshot.version, adapter }
  if (!contribs) return result
  return {
    ...result,
    contribs,
    featureNames: booster.featureNames,
    topFeatures: topFeatures(contribs, booster.featureNames),
  }
}

/** A base margin column must be a numeric column of the table and not a model feature. Throws naming it. */
function checkBaseMarginColumn(name: string, booster: Booster, schema: StructType): void {
  const field = schema.fields.find(f => f.name === name)
  if (!field)
    throw new RangeError(
      `base margin column ${name}: not in the table (columns: ${schema.fields.map(f => f.name).join(', ')})`,
    )
  const spec = featureOf(field)
  if (typeof spec === 'string' || spec.kind !== 'numeric')
    throw new RangeError(`base margin column ${name}: must be numeric, its type is ${JSON.stringify(field.type)}`)
  if (booster.featureNames.includes(name))
    throw new RangeError(`base margin column ${name}: it is a feature of the model`)
}

/** Moves each row's bias contribution (last of F + 1) from the model's base margin to `start`. */
function shiftBias(contribs: Float32Array, booster: Booster, start: Float32Array): void {
  const stride = booster.featureNames.length + 1,
    base = baseMargin(booster.params.objective, booster.baseScore)
  for (let i = 0; i < start.length; i++) contribs[i * stride + stride - 1] += start[i] - base
}

/** Feature specs of the model's features in the table: strings need the model's dictionary. */
export function modelFeatures(
  booster: Booster,
  schema: StructType,
  categories: Record<string, string[]>,
  table: string,
): FeatureSpec[] {
  return booster.featureNames.map(name => {
    const spec = featureOf(modelColumn(schema, name, table))
    if (typeof spec === 'string') throw new RangeError(`model feature ${name}: ${spec}`)
    if (spec.kind === 'categorical' && !categories[name])
      throw new RangeError(`model feature ${name}: a string column, but the model has no dictionary for it`)
    return spec
  })
}

/**
 * Margins from the predict kernel on a fresh device (CPU reference where WebGPU is absent) and,
 * with `contribs`, SHAP values from tree_shap on the same device and uploads (the CPU reference
 * for models deeper than the kernel holds, said in `adapter`). Rows go in chunks that keep the
 * row-major feature buffer and the contribution buffer within the device's binding limit.
 */
export async function gpuPredict(
  booster: Booster,
  columns: Float32Array[],
  contribs: boolean,
  start?: Float32Array,
): Promise<{ margins: Float32Array; contribs?: Float32Array; adapter: string }> {
  if (!hasWebGpu()) {
    const out = {
      margins: predictMargins(booster, columns, undefined, start),
      contribs: contribs ? treeShap(booster, columns) : undefined,
      adapter: 'cpu (no WebGPU)',
    }
    if (out.contribs && start) shiftBias(out.contribs, booster, start)
    return out
  }
  const [
    { requestDevice, adapterSummary, adapterLabel },
    { PipelineCache },
    { uploadBuffer, createBuffer },
    { readBuffer },
    { predictCall },
    { TREE_SHAP_MAX_DEPTH, treeShapCall },
    { NODE_WORDS, packCovers, packTrees },
    { runKernel },
  ] = await Promise.all([
    import('../../gpu/device.ts'),
    import('../../gpu/pipeline-cache.ts'),
    import('../../gpu/buffers.ts'),
    import('../../gpu/readback.ts'),
    import('../../kernels/gbdt/predict.ts'),
    import('../../kernels/gbdt/tree_shap.ts'),
    import('../../kernels/gbdt/layout.ts'),
    import('../../kernels/runner.ts'),
  ])
  const { adapter, device } = await requestDevice()
  try {
    const rows = columns[0]?.length ?? 0,
      F = Math.max(1, columns.length)
    const packed = packTrees(booster.trees)
    const shapOnGpu = contribs && packed.maxDepth <= TREE_SHAP_MAX_DEPTH
    const cache = new PipelineCache(device)
    const nodes = uploadBuffer(device, packed.nodes),
      catBits = uploadBuffer(device, packed.catBits),
      treeOffsets = uploadBuffer(device, packed.treeOffsets),
      covers = shapOnGpu ? uploadBuffer(device, packCovers(booster.trees)) : undefined
    // tree_shap binds out [(F + 1) × n] and its scratch treePhi [F × n].
    const rowBytes = 4 * (shapOnGpu ? F + 1 : F)
    const chunk = Math.max(1, Math.min(rows, Math.floor(device.limits.maxStorageBufferBindingSize / rowBytes)))
    const margins = new Float32Array(rows)
    const phi = contribs ? new Float32Array(rows * (F + 1)) : undefined
    // With rows' own base margins the kernels start at 0 and each row's margin is added after the
    // trees (XGBoost adds the trees to it: the two sums may differ in the last float32 bit).
    const base = start ? 0 : baseMargin(booster.params.objective, booster.baseScore)
    const shape = { features: F, trees: booster.trees.length, maxDepth: packed.maxDepth }
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
      await runKernel(cache, predictCall(buffers, { rows: n, ...shape }, base))
      margins.set(await readBuffer(device, buffers.out, Float32Array, n), start)
      if (phi && covers) {
        const out = createBuffer(device, n * (F + 1) * 4),
          treePhi = createBuffer(device, n * F * 4)
        const nodeCount = packed.nodes.length / NODE_WORDS
        await runKernel(
          cache,
          treeShapCall({ ...buffers, covers, out, treePhi }, { rows: n, ...shape, nodes: nodeCount }, base),
        )
        contribsRowMajor(await readBuffer(device, out, Float32Array, n * (F + 1)), n, F + 1, phi, start)
        out.destroy()
        treePhi.destroy()
      }
      buffers.features.destroy()
      buffers.out.destroy()
    }
    if (start) {
      for (let i = 0; i < rows; i++) margins[i] += start[i]
      if (phi) for (let i = 0; i < rows; i++) phi[i * (F + 1) + F] += start[i]
    }
    const label = adapterLabel(adapterSummary(adapter))
    if (contribs && !shapOnGpu) {
      const cpu = treeShap(booster, columns)
      if (start) shiftBias(cpu, booster, start)
      return {
        margins,
        contribs: cpu,
        adapter: `${label}; SHAP on the CPU (trees of depth ${packed.maxDepth} exceed the kernel's ${TREE_SHAP_MAX_DEPTH})`,
      }
    }
    return { margins, contribs: phi, adapter: label }
  } finally {
    device.destroy()
  }
}
