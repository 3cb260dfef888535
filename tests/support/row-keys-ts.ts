/**
 * snaptrain's own row keys of a local table, for comparing another engine's split with ours: the
 * scan plan of the key columns read by the loader (src/data/row-keys-read.ts, what a GBDT run's
 * split uses), in table order, with the held-out mask of (seed, fraction).
 */
import { openTableLocation } from '../../src/cli/table-url.ts'
import { planScan } from '../../src/data/plan.ts'
import { rowKeyFields, validMaskOfKeys } from '../../src/data/row-key.ts'
import { readUnitKeys } from '../../src/data/row-keys-read.ts'
import { openSnapshot } from '../../src/table/index.ts'

/** Row keys (table order) of the folder `dir` at `version` over the columns `key`, and the split's mask. */
export async function tableRowKeys(
  dir: string,
  key: string[],
  split?: { seed: number; fraction: number },
  version?: number,
): Promise<{ keys: Uint32Array; valid?: Uint8Array }> {
  const location = await openTableLocation(dir)
  try {
    const snapshot = await openSnapshot(location.url, { version })
    const plan = await planScan(snapshot, { columns: [] })
    const units = await readUnitKeys(plan, rowKeyFields(snapshot.schema, [], key))
    const n = units.reduce((s, u) => s + u.length, 0)
    const keys = new Uint32Array(n)
    let at = 0
    for (const u of units) {
      keys.set(u, at)
      at += u.length
    }
    return { keys, ...(split ? { valid: validMaskOfKeys(keys, split.seed, split.fraction) } : {}) }
  } finally {
    await location.close()
  }
}
