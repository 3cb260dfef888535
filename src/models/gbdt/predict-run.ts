/**
 * Batch prediction of a table with a model file, page side (window.snaptrain.predict, the CLI's
 * `snaptrain predict`): XGBoost JSON (ours or XGBoost's) → the table's feature columns by the
 * model's feature names, in table order (categoricals through the model's dictionaries) →
 * margins on the GPU predict kernel, or the CPU reference predictMargins; with `contribs`, SHAP
 * values on the tree_shap kernel in the same device session, or the CPU reference treeShap.
 * A multiclass model (K classes) predicts K margins per row (N × K row-major), their softmax
 * probabilities and the class (argmax), and K × (F + 1) SHAP values per row (XGBoost's
 * (N, K, F + 1)); on the GPU each class's trees run as one ensemble of the predict and tree_shap
 * kernels. N = rows, F = features, K = outputs per row (1 but for multiclass).
 */
import { openSnapshot } from '../../table/index.ts'
import type { StructType } from '../../table/types.ts'
import { modelColumn, type PredictConfig, type PredictProgress, type PredictResult } from '../../eval/predict.ts'
import { readTable } from '../../eval/dataset.ts'
import { featureOf, type FeatureSpec } from '../../eval/features.ts'
import { categoriesOf } from './model-attributes.ts'
import { decodeModel } from './model-file.ts'
import { baseMargin, transformRows } from './objective.ts'
import { argmaxRows, predictMargins } from './predict.ts'
import { classTrees, contribsRowMajor, topFeatures, treeShap } from './shap.ts'
import type { Booster } from './types.ts'
import { fromXGBoostJson } from './xgboost-json.ts'
import { hasWebGpu, httpFor } from '../../run/config.ts'
import { checkRowValues, rowColumnsOf } from '../../eval/row-columns.ts'

/**
 * Predicts every live row of the table with an XGBoost model (models/predict.ts sends a
 * recommender's model file elsewhere). Throws naming a feature the table lacks.
 */
export async function runPrediction(
  config: PredictConfig,
  onProgress: (p: PredictProgress) => void = () => {},
): Promise<PredictResult> {
  const json = decodeModel(config.model)
  const booster = fromXGBoostJson(json)
  const categories = categoriesOf(json)
  const http = httpFor(config, config.table)
  const snapshot = await openSnapshot(config.table, { version: config.version, ...http })
  const specs = modelFeatures(booster, snapshot.schema, categories, config.table)
  const rowColumns = rowColumnsOf({ baseMargin: config.baseMargin })
  if (config.baseMargin !== undefined) checkBaseMarginColumn(config.baseMargin, booster, snapshot.schema)
  onProgress({ message: `reading ${specs.length} feature columns of version ${snapshot.version}` })
  const table = await readTable(snapshot, specs, categories, { workers: config.workers, http, ...rowColumns })
  const start = checkRowValues(rowColumns, table).baseMargin
  const total = table.columns[0]?.length ?? 0
  const scoring = `scoring ${total} rows with ${booster.trees.length} trees${config.contribs ? ' and their SHAP values' : ''}`
  onProgress({ message: scoring, done: 0, total })
  const predicted = config.cpu
    ? {
        margins: predictMargins(booster, table.columns, undefined, start),
        contribs: config.contribs ? treeShap(booster, table.columns) : undefined,
        adapter: 'cpu (reference predictor)',
      }
    : await gpuPredict(booster, table.columns, config.contribs === true, start)
  const { margins, contribs, adapter } = predicted
  onProgress({ message: scoring, done: total, total })
  // SHAP's bias column holds the starting margin: a row's own base margin where it has one (XGBoost).
  if (contribs && start && config.cpu) shiftBias(contribs, booster, start)
  const K = booster.numClass ?? 1
  const rows = margins.length / K
  const result: PredictResult = {
    margins,
    ...classPredictions(booster, margins),
    rows,
    version: snapshot.version,
    adapter,
  }
  if (!contribs) return result
  return {
    ...result,
    contribs,
    featureNames: booster.featureNames,
    topFeatures: topFeatures(contribs, booster.featureNames, 10, K),
  }
}

/**
 * A prediction's outputs from its margins: one output per row, the objective's transform; a
 * multiclass model's softmax probabilities (N × K), the class per row (argmax, ties to the lowest
 * class as XGBoost) and the label values the classes mean (when the model has them).
 */
export function classPredictions(
  booster: Booster,
  margins: Float32Array,
): Pick<PredictResult, 'predictions' | 'classes' | 'probabilities' | 'labelValues'> {
  const K = booster.numClass
  if (K === undefined) return { predictions: transformRows(booster.params.objective, margins, 1) }
  const probabilities = transformRows(booster.params.objective, margins, K)
  return {
    predictions: argmaxRows(margins, K),
    classes: K,
    probabilities,
    ...(booster.labelValues ? { labelValues: booster.labelValues } : {}),
  }
}

/**
 * A base margin column must be a numeric column of the table and not a model feature, and the
 * model one output per row (a multiclass model needs K margins a row). Throws naming it.
 */
function checkBaseMarginColumn(name: string, booster: Booster, schema: StructType): void {
  if (booster.numClass !== undefined)
    throw new RangeError(
      `base margin column ${name}: the model has ${booster.numClass} classes, and one column gives one margin a row, not ${booster.numClass}`,
    )
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

/** Moves each row's (and class's) bias contribution (last of F + 1) from the model's base margin to `start` (N × K). */
function shiftBias(contribs: Float32Array, booster: Booster, start: Float32Array): void {
  const stride = booster.featureNames.length + 1,
    base = baseMargin(booster.params.objective, booster.baseScore)
  for (let j = 0; j < start.length; j++) contribs[j * stride + stride - 1] += start[j] - base
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
 * margins are N × K and contribs N × K × (F + 1), row-major; `start` (rows' own base margins) N × K.
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
      F = Math.max(1, columns.length),
      K = booster.numClass ?? 1
    // One ensemble per output: a multiclass model's class k is its trees t with t % K = k.
    const packs = Array.from({ length: K }, (_, k) => {
      const trees = K === 1 ? booster.trees : classTrees(booster.trees, K, k)
      return { trees, packed: packTrees(trees) }
    })
    const maxDepth = Math.max(...packs.map(p => p.packed.maxDepth))
    const shapOnGpu = contribs && maxDepth <= TREE_SHAP_MAX_DEPTH
    const cache = new PipelineCache(device)
    const uploads = packs.map(({ trees, packed }) => ({
      nodes: uploadBuffer(device, packed.nodes),
      catBits: uploadBuffer(device, packed.catBits),
      treeOffsets: uploadBuffer(device, packed.treeOffsets),
      covers: shapOnGpu ? uploadBuffer(device, packCovers(trees)) : undefined,
      shape: { features: F, trees: trees.length, maxDepth: packed.maxDepth },
      nodeCount: packed.nodes.length / NODE_WORDS,
    }))
    // tree_shap binds out [(F + 1) × n] and its scratch treePhi [F × n].
    const rowBytes = 4 * (shapOnGpu ? F + 1 : F)
    const chunk = Math.max(1, Math.min(rows, Math.floor(device.limits.maxStorageBufferBindingSize / rowBytes)))
    const margins = new Float32Array(rows * K)
    const phi = contribs ? new Float32Array(rows * K * (F + 1)) : undefined
    // With rows' own base margins the kernels start at 0 and each row's margin is added after the
    // trees (XGBoost adds the trees to it: the two sums may differ in the last float32 bit).
    const base = start ? 0 : baseMargin(booster.params.objective, booster.baseScore)
    for (let first = 0; first < rows; first += chunk) {
      const n = Math.min(chunk, rows - first)
      const features = new Float32Array(n * F)
      columns.forEach((c, f) => {
        for (let i = 0; i < n; i++) features[i * F + f] = c[first + i]
      })
      const featureBuffer = uploadBuffer(device, features),
        out = createBuffer(device, n * 4)
      for (let k = 0; k < K; k++) {
        const u = uploads[k]
        const buffers = { features: featureBuffer, nodes: u.nodes, catBits: u.catBits, treeOffsets: u.treeOffsets, out }
        await runKernel(cache, predictCall(buffers, { rows: n, ...u.shape }, base))
        const m = await readBuffer(device, out, Float32Array, n)
        for (let i = 0; i < n; i++) margins[(first + i) * K + k] = m[i]
        if (phi && u.covers) {
          const shapOut = createBuffer(device, n * (F + 1) * 4),
            treePhi = createBuffer(device, n * F * 4)
          await runKernel(
            cache,
            treeShapCall(
              { ...buffers, covers: u.covers, out: shapOut, treePhi },
              { rows: n, ...u.shape, nodes: u.nodeCount },
              base,
            ),
          )
          contribsRowMajor(await readBuffer(device, shapOut, Float32Array, n * (F + 1)), n, F + 1, phi, first, K, k)
          shapOut.destroy()
          treePhi.destroy()
        }
      }
      featureBuffer.destroy()
      out.destroy()
    }
    if (start) {
      for (let j = 0; j < rows * K; j++) margins[j] += start[j]
      if (phi) for (let j = 0; j < rows * K; j++) phi[j * (F + 1) + F] += start[j]
    }
    const label = adapterLabel(adapterSummary(adapter))
    if (contribs && !shapOnGpu) {
      const cpu = treeShap(booster, columns)
      if (start) shiftBias(cpu, booster, start)
      return {
        margins,
        contribs: cpu,
        adapter: `${label}; SHAP on the CPU (trees of depth ${maxDepth} exceed the kernel's ${TREE_SHAP_MAX_DEPTH})`,
      }
    }
    return { margins, contribs: phi, adapter: label }
  } finally {
    device.destroy()
  }
}
