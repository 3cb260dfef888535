/**
 * Reads only the row keys (src/data/row-key.ts) of every unit of a plan, for a split that must be
 * known before the rows are read: a GBDT rank picks the units holding its share of the training
 * rows from the split's per-unit counts (src/models/gbdt/ranks.ts).
 */
import type { HttpOptions, StructField } from '../table/types.ts'
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
  const keysOnly: ScanPlan = {
    ...plan,
    columns: [],
    schema: plan.schema && { ...plan.schema, fields: [] },
    rowKey,
  }
  const out = plan.units.map(u => new Uint32Array(u.liveRows))
  if (plan.stats.rows === 0) return out
  const loader = createLoader(keysOnly, {
    assign: { epoch: 0, worldSize: 1, rank: 0 },
    batchSize: 65_536,
    workers: opts.workers,
    ids: true,
    http: opts.http,
  })
  const at = new Uint32Array(plan.units.length)
  try {
    for await (const batch of loader.batches()) {
      for (let i = 0; i < batch.size; i++) {
        const u = batch.ids!.unit[i]
        out[u][at[u]++] = batch.keys![i]
      }
    }
  } finally {
    await loader.close()
  }
  return out
}
