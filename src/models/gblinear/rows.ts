/**
 * A run's rows for the linear booster: numeric feature columns (float32, NaN = null = missing) and
 * labels from the pinned snapshot, with the run's validation rows (a seeded fraction or a second
 * table). String columns are categorical, which XGBoost's gblinear does not support: named in
 * --features they are refused naming the column; by default they are skipped (and the manifest
 * says why). N = rows, F = features.
 *
 * The dense-column reading itself (plan → loader → float32 columns → validation split) is the
 * model-neutral dataset code every dense family reads with (src/eval/dataset.ts, features.ts).
 */
import { datasetRequest, loadDataset, readTable, type Dataset } from '../../eval/dataset.ts'
import { featureOf, selectFeatures, type SkippedColumn } from '../../eval/features.ts'
import type { HttpOptions, Snapshot, StructType } from '../../table/types.ts'
import type { RunInput } from '../../run/family.ts'
import { modelColumn } from '../../eval/predict.ts'
import type { LinearData } from './train.ts'

const NO_CATEGORICAL = 'a string (categorical) column: gblinear has no categorical support'

/** What a run trains on and what its manifest records. */
export interface LinearRows {
  data: LinearData
  features: { name: string; type: string; delta_type: string }[]
  skipped: SkippedColumn[]
  plan: Dataset['plan']
  validPlan?: Dataset['validPlan']
  rowsTrain: number
  rowsValid: number
}

/**
 * The numeric features of the table: `requested` (--features) must all be numeric (a string column
 * is refused naming it), by default every numeric column but the label. Throws naming the column.
 */
export function linearFeatures(
  schema: StructType,
  label: string,
  requested?: readonly string[],
): { names: string[]; skipped: SkippedColumn[] } {
  const { features, skipped } = selectFeatures(schema, label, requested)
  const strings = features.filter(f => f.kind === 'categorical')
  if (requested?.length && strings.length > 0)
    throw new RangeError(`--features: column ${strings[0].name}: ${NO_CATEGORICAL}`)
  const names = features.filter(f => f.kind === 'numeric').map(f => f.name)
  if (names.length === 0)
    throw new RangeError(`no numeric feature columns: gblinear needs numbers (label ${label}; strings are skipped)`)
  return { names, skipped: [...skipped, ...strings.map(f => ({ name: f.name, reason: NO_CATEGORICAL }))] }
}

/** Loads the run's rows (training table, validation rows). Throws naming the label, column or filter. */
export async function loadLinearRows(input: RunInput, seed: number): Promise<LinearRows> {
  const { config } = input
  const { names, skipped } = linearFeatures(input.snapshot.schema, config.label, config.features)
  const ds = await loadDataset(datasetRequest(input, seed, names))
  const d = ds.data
  return {
    data: { columns: d.columns, labels: d.labels, weights: d.weights, featureNames: names, valid: d.valid },
    features: ds.features.map(f => ({ name: f.name, type: f.xgbType, delta_type: f.deltaType })),
    skipped,
    plan: ds.plan,
    validPlan: ds.validPlan,
    rowsTrain: ds.rowsTrain,
    rowsValid: ds.rowsValid,
  }
}

/**
 * The model's feature columns of every live row of `snapshot`, in table order (prediction). Throws
 * naming a feature the table lacks or holds as strings.
 */
export async function readFeatureColumns(
  snapshot: Snapshot,
  names: readonly string[],
  table: string,
  cfg: { workers?: number; http?: HttpOptions },
): Promise<{ columns: Float32Array[]; rows: number }> {
  const specs = names.map(name => {
    const spec = featureOf(modelColumn(snapshot.schema, name, table))
    if (typeof spec === 'string') throw new RangeError(`model feature ${name}: ${spec}`)
    if (spec.kind !== 'numeric') throw new RangeError(`model feature ${name}: ${NO_CATEGORICAL}`)
    return spec
  })
  const t = await readTable(snapshot, specs, undefined, cfg)
  return { columns: t.columns, rows: t.rows.length }
}
