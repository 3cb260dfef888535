/**
 * The rows of `snaptrain quality`, both sides: a table read with the GBDT dataset loader on this
 * thread (the features, categorical codes and seeded 80/20 split of `snaptrain train
 * --valid-fraction 0.2`), and those rows written as little-endian files for the XGBoost peer
 * (bench/gbdt_peer.py), which trains on exactly the same values.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { rowMajor } from '../tools/datagen/synthetic.ts'
import { loadDataset, type TrainData } from '../src/eval/dataset.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'
import { serveDirectory } from '../src/serve/server.ts'

/** A loaded table: its training data and its categorical features with their level counts. */
export interface Loaded {
  data: TrainData
  categorical: Array<{ name: string; levels: number }>
}

/**
 * The table through the dataset loader (HTTP on loopback, no workers), 20% validation by `seed`'s
 * split; `weight`: the row weight column (--weight), read as `snaptrain train` reads it.
 */
export async function tableData(
  root: string,
  name: string,
  label: string,
  seed: number,
  weight?: string,
): Promise<Loaded> {
  const srv = await serveDirectory(root, { cors: true })
  try {
    const ds = await loadDataset({
      tableUrl: `${srv.url}${name}/`,
      label,
      validFraction: 0.2,
      seed,
      workers: 0,
      ...(weight !== undefined ? { weight } : {}),
    })
    const categorical = ds.features
      .filter(f => f.kind === 'categorical')
      .map(f => ({ name: f.name, levels: ds.dictionaries[f.name]?.length ?? 0 }))
    return { data: ds.data, categorical }
  } finally {
    await srv.close()
  }
}

/** Where the exported rows go (git-ignored). */
const EXPORT_DIR = join(PROJECT_ROOT, 'bench', 'tables', 'quality')

/** Writes `a` as bench/tables/quality/<stem>.<part>.<f32|u32>; returns the path. */
async function writeArray(stem: string, part: string, a: Float32Array | Uint32Array): Promise<string> {
  await mkdir(EXPORT_DIR, { recursive: true })
  const p = join(EXPORT_DIR, `${stem}.${part}.${a instanceof Uint32Array ? 'u32' : 'f32'}`)
  await writeFile(p, new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
  return p
}

/** Writes train/valid features (row-major f32) and labels as bench/tables/quality/<stem>.<part>.f32; returns the 4 paths. */
export async function exportRows(stem: string, d: TrainData): Promise<string[]> {
  const parts: Array<[string, Float32Array]> = [
    ['x', rowMajor(d.columns)],
    ['y', d.labels],
    ['vx', rowMajor(d.valid!.columns)],
    ['vy', d.valid!.labels],
  ]
  const paths: string[] = []
  for (const [part, a] of parts) paths.push(await writeArray(stem, part, a))
  return paths
}

/**
 * The peer's ROWS_JSON (bench/gbdt_peer.py): the training and validation rows' weights, base
 * margins and query group sizes, those the data has, written beside the features.
 */
export async function exportRowInfo(stem: string, d: TrainData): Promise<Record<string, [string, string]>> {
  const out: Record<string, [string, string]> = {}
  const v = d.valid!
  const pair = async (field: string, a: Float32Array | Uint32Array, b: Float32Array | Uint32Array) => {
    out[field] = [await writeArray(stem, `${field}`, a), await writeArray(stem, `v${field}`, b)]
  }
  if (d.weights && v.weights) await pair('weight', d.weights, v.weights)
  if (d.baseMargin && v.baseMargin) await pair('base_margin', d.baseMargin, v.baseMargin)
  if (d.groups && v.groups) await pair('group', groupSizes(d.groups), groupSizes(v.groups))
  return out
}

/** Group sizes (XGBoost's set_group) of a group pointer. */
export function groupSizes(ptr: Uint32Array): Uint32Array {
  return ptr.subarray(1).map((end, g) => end - ptr[g])
}
