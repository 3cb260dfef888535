/**
 * Reads only the row keys (src/data/row-key.ts) of every unit of a plan — and, when asked, one
 * column — for a split that must be known before the rows are read: a GBDT rank picks the units
 * holding its share of the training rows from the split's per-unit counts, and a ranking run's
 * rank the units holding its query groups from every row's query id (src/models/gbdt/ranks.ts).
 */
import type { HttpOptions, StructField } from '../table/types.ts'
import { utf8Strings } from './decode.ts'
import { createLoader } from './loader.ts'
import type { ScanPlan } from './types.ts'

/**
 * The keys of each unit's live rows (index = unit id), read in table order with `rowKey` as the
 * key columns and no other column. Throws naming the file and column as the loader does.
 */
export async function readUnitKeys(
  plan: ScanPlan,
  rowKey: StructField[],
  opts: { workers?: number; http?: HttpOptions } = {},
): Promise<Uint32Array[]> {
  return (await readUnitRows(plan, { rowKey }, opts)).keys!
}

/** One column of every unit's live rows: float32 (NaN = null) or strings (null kept), with each row's file row. */
export interface UnitColumn {
  /** Per unit (index = unit id): its rows' values. */
  values: (Float32Array | (string | null)[])[]
  /** Per unit: each row's file-relative index (for error messages). */
  rows: Uint32Array[]
}

/**
 * Per unit (index = unit id), in table order: the row keys (with `rowKey`) and the values of
 * `column` (as float32, or as strings when `text`), and no other column. Throws naming the file
 * and column as the loader does.
 */
export async function readUnitRows(
  plan: ScanPlan,
  want: { rowKey?: StructField[]; column?: { name: string; text: boolean } },
  opts: { workers?: number; http?: HttpOptions } = {},
): Promise<{ keys?: Uint32Array[]; column?: UnitColumn }> {
  const { rowKey, column } = want
  const only: ScanPlan = {
    ...plan,
    columns: column ? [column.name] : [],
    schema: plan.schema && { ...plan.schema, fields: plan.schema.fields.filter(f => f.name === column?.name) },
    ...(rowKey ? { rowKey } : {}),
  }
  if (!rowKey) delete only.rowKey
  const keys = rowKey ? plan.units.map(u => new Uint32Array(u.liveRows)) : undefined
  const values = column
    ? plan.units.map(u => (column.text ? new Array<string | null>(u.liveRows) : new Float32Array(u.liveRows)))
    : undefined
  const rows = column ? plan.units.map(u => new Uint32Array(u.liveRows)) : undefined
  const out = { ...(keys ? { keys } : {}), ...(values ? { column: { values, rows: rows! } } : {}) }
  if (plan.stats.rows === 0 || (!keys && !values)) return out
  const loader = createLoader(only, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 65_536,
    ...(column ? { spec: { [column.name]: column.text ? ('utf8' as const) : ('float32' as const) } } : {}),
    workers: opts.workers,
    ids: true,
    http: opts.http,
  })
  const at = new Uint32Array(plan.units.length)
  try {
    for await (const batch of loader.batches()) {
      const got = column && (column.text ? utf8Strings(batch.columns[column.name]) : batch.columns[column.name].values)
      for (let i = 0; i < batch.size; i++) {
        const u = batch.ids!.unit[i],
          k = at[u]++
        if (keys) keys[u][k] = batch.keys![i]
        if (!values) continue
        const v = values[u]
        if (Array.isArray(v)) v[k] = (got as (string | null)[])[i]
        else v[k] = (got as Float32Array)[i]
        rows![u][k] = batch.ids!.row[i]
      }
    }
  } finally {
    await loader.close()
  }
  return out
}
