/**
 * Table columns → model inputs. Sparse: ids, strings, integers, booleans (hashed by the loader,
 * 'hash32'), one embedding table each, bucket = hash mod buckets. Dense: floats, normalised with
 * mean/std from one pass over the training rows (optional signed log1p first), NaN → 0 plus a
 * missing indicator when the column had nulls. Fixed-length arrays of floats: copied, NaN → 0.
 * Arrays of ids, strings, integers or booleans: bags ('hash_list'), each item hashed as a scalar,
 * one table each after the sparse tables, the items' embeddings pooled (sum or mean).
 * B = batch rows, S = sparse features, K = bag features, M = bag items, Cd = dense inputs.
 */
import { validMaskOfKeys } from '../../data/row-key.ts'
import type { Batch, DecodeSpec, DecodedColumn } from '../../data/types.ts'
import type { DeltaType, StructField } from '../../table/types.ts'
import type {
  BagFeature,
  BagPooling,
  DenseFeature,
  FeatureLayout,
  HashedType,
  ListFeature,
  ModelBatch,
  RecsysParams,
  SparseFeature,
} from './types.ts'

/** Largest default bucket count (the 2^18); distinct values are counted up to half of it. */
export const MAX_DEFAULT_BUCKETS = 2 ** 18
const CARDINALITY_CAP = MAX_DEFAULT_BUCKETS / 2

/** Feature columns by kind, and the loader's decode spec for them and the label. */
export interface ColumnKinds {
  label: string
  sparse: string[]
  dense: string[]
  lists: string[]
  bags: string[]
  spec: DecodeSpec
  /** Delta type of each sparse column and of each bag column's items (how its values hash). */
  types?: Record<string, HashedType>
}

const SPARSE_TYPES = new Set(['string', 'binary', 'boolean', 'byte', 'short', 'integer', 'long'])

/** What a column becomes: an embedding lookup, a dense input, a fixed-length dense list or a bag. */
export type ColumnKind = 'sparse' | 'dense' | 'list' | 'bag'

/**
 * The column's kind, or undefined for a type the model cannot use (struct, map, arrays of
 * anything but hashable scalars and floats). Arrays of hashable scalars (the sparse types) are
 * bags; arrays of float, double or decimal are fixed-length dense lists.
 */
export function columnKind(type: DeltaType): ColumnKind | undefined {
  if (type === 'void') return undefined // NullType: only nulls, nothing to learn from
  if (typeof type === 'string') return SPARSE_TYPES.has(type) ? 'sparse' : 'dense'
  if (type.type !== 'array' || typeof type.elementType !== 'string') return undefined
  if (SPARSE_TYPES.has(type.elementType)) return 'bag'
  const e = type.elementType
  return e === 'float' || e === 'double' || e.startsWith('decimal') ? 'list' : undefined
}

/** Why a column has no model input, for the error naming it. */
function noInputReason(name: string, type: DeltaType): string {
  if (typeof type === 'object' && type.type === 'array')
    return `feature column '${name}': an array column with an element type that cannot be hashed (${JSON.stringify(type.elementType)}); bags take arrays of ${[...SPARSE_TYPES].join(', ')}, dense lists arrays of float, double or decimal`
  return `feature column '${name}': type ${JSON.stringify(type)} has no model input`
}

const SPEC: Record<ColumnKind, 'hash32' | 'float32' | 'fixed_list' | 'hash_list'> = {
  sparse: 'hash32',
  dense: 'float32',
  list: 'fixed_list',
  bag: 'hash_list',
}

/** The loader encoding of a column kind. */
export function kindEncoding(kind: ColumnKind): 'hash32' | 'float32' | 'fixed_list' | 'hash_list' {
  return SPEC[kind]
}

/**
 * Classifies `features` (default: every usable column but the label) of `fields`. Throws
 * RangeError naming a feature or label that does not exist or has no usable type.
 */
export function classifyColumns(
  fields: readonly StructField[],
  label: string,
  features?: readonly string[],
): ColumnKinds {
  const byName = new Map(fields.map(f => [f.name, f]))
  const names = byName.size ? [...byName.keys()] : []
  if (!byName.has(label)) throw new RangeError(`label column '${label}' does not exist (columns: ${names.join(', ')})`)
  const chosen = features ?? names.filter(n => n !== label && columnKind(byName.get(n)!.type) !== undefined)
  const types: Record<string, HashedType> = {}
  const out: ColumnKinds = { label, sparse: [], dense: [], lists: [], bags: [], spec: { [label]: 'float32' }, types }
  for (const name of chosen) {
    const field = byName.get(name)
    if (!field) throw new RangeError(`feature column '${name}' does not exist (columns: ${names.join(', ')})`)
    if (name === label) throw new RangeError(`feature column '${name}' is the label`)
    const kind = columnKind(field.type)
    if (!kind) throw new RangeError(noInputReason(name, field.type))
    out[kind === 'list' ? 'lists' : kind === 'bag' ? 'bags' : kind].push(name)
    out.spec[name] = SPEC[kind]
    const hashed = typeof field.type === 'string' ? field.type : field.type.type === 'array' && field.type.elementType
    if ((kind === 'sparse' || kind === 'bag') && typeof hashed === 'string') types[name] = hashed as HashedType
  }
  return out
}

/**
 * Adds the gauc group column to `kinds.spec` so the loader decodes it for the validation rows: a
 * feature column keeps its encoding (hash32 or float32), any other column is hashed (ids,
 * strings, integers) or read as float32. Throws RangeError naming a group column that does not
 * exist or cannot group rows (arrays, structs).
 */
export function addGroupColumn(kinds: ColumnKinds, fields: readonly StructField[], group: string | undefined): void {
  if (group === undefined) return
  const field = fields.find(f => f.name === group)
  if (!field)
    throw new RangeError(
      `gauc_group: column '${group}' does not exist (columns: ${fields.map(f => f.name).join(', ')})`,
    )
  if (kinds.spec[group] === 'hash32' || kinds.spec[group] === 'float32') return
  const kind = columnKind(field.type)
  if (kind !== 'sparse' && kind !== 'dense')
    throw new RangeError(`gauc_group: column '${group}' of type ${JSON.stringify(field.type)} cannot group rows`)
  kinds.spec[group] = kind === 'sparse' ? 'hash32' : 'float32'
}

/** Running statistics of the training rows: distinct hashes (sparse values, bag items), Welford moments, list lengths. */
export class FeatureStats {
  private readonly distinct: Set<number>[]
  private readonly bagDistinct: Set<number>[]
  private readonly moments: { n: number; mean: number; m2: number; nulls: number }[]
  private readonly lengths = new Map<string, number>()

  /** Statistics for `kinds`; dense columns in `log1p` are transformed before the moments. */
  constructor(
    readonly kinds: ColumnKinds,
    private readonly log1p: ReadonlySet<string> = new Set(),
  ) {
    this.distinct = kinds.sparse.map(() => new Set<number>())
    this.bagDistinct = kinds.bags.map(() => new Set<number>())
    this.moments = kinds.dense.map(() => ({ n: 0, mean: 0, m2: 0, nulls: 0 }))
  }

  /** Adds the rows of `batch` with keep[i] ≠ 0 (all rows without `keep`). */
  observe(batch: Batch, keep?: Uint8Array): void {
    this.kinds.sparse.forEach((name, s) => {
      const values = column(batch, name).values,
        set = this.distinct[s]
      for (let i = 0; i < batch.size && set.size < CARDINALITY_CAP; i++) if (!keep || keep[i]) set.add(values[i])
    })
    this.kinds.dense.forEach((name, j) => {
      const values = column(batch, name).values,
        m = this.moments[j],
        log = this.log1p.has(name)
      for (let i = 0; i < batch.size; i++) {
        if (keep && !keep[i]) continue
        const x = values[i]
        if (Number.isNaN(x)) {
          m.nulls++
          continue
        }
        const t = log ? signedLog1p(x) : x
        m.n++
        const delta = t - m.mean
        m.mean += delta / m.n
        m.m2 += delta * (t - m.mean)
      }
    })
    for (const name of this.kinds.lists) this.lengths.set(name, column(batch, name).length ?? 0)
    this.kinds.bags.forEach((name, k) => {
      const { values, offsets } = bagColumn(batch, name),
        set = this.bagDistinct[k]
      for (let i = 0; i < batch.size && set.size < CARDINALITY_CAP; i++) {
        if (keep && !keep[i]) continue
        for (let j = offsets[i]; j < offsets[i + 1]; j++) set.add(values[j])
      }
    })
  }

  /**
   * The layout: buckets (params.buckets or min(2·cardinality, 2^18)), table offsets (sparse
   * tables, then bag tables), normalisers, bag pooling. Throws RangeError naming a `pooling`
   * column that is not a bag feature.
   */
  finish(p: Pick<RecsysParams, 'buckets' | 'embedding_dim'> & { pooling?: RecsysParams['pooling'] }): FeatureLayout {
    let offset = 0
    // One embedding table of the stack: sparse tables first, then bag tables.
    const table = (name: string, cardinality: number): SparseFeature => {
      const buckets = bucketsFor(name, cardinality, p.buckets)
      const type = this.kinds.types?.[name]
      const f = {
        name,
        ...(type ? { type } : {}),
        cardinality,
        buckets,
        tableOffset: offset,
        bytes: buckets * p.embedding_dim * 4,
      }
      offset += buckets
      return f
    }
    const sparse = this.kinds.sparse.map((name, s) => table(name, this.distinct[s].size))
    const dense: DenseFeature[] = this.kinds.dense.map((name, j) => {
      const m = this.moments[j]
      const std = m.n > 1 ? Math.sqrt(m.m2 / m.n) : 0
      return {
        name,
        log1p: this.log1p.has(name),
        mean: m.n ? m.mean : 0,
        std: std > 0 ? std : 1,
        indicator: m.nulls > 0,
      }
    })
    const lists: ListFeature[] = this.kinds.lists.map(name => ({ name, length: this.lengths.get(name) ?? 0 }))
    const denseInputs = dense.reduce((s, f) => s + (f.indicator ? 2 : 1), 0) + lists.reduce((s, f) => s + f.length, 0)
    const bags: BagFeature[] = this.kinds.bags.map((name, k) => ({
      ...table(name, this.bagDistinct[k].size),
      pooling: poolingOf(name, p.pooling),
    }))
    checkPoolingColumns(p.pooling, this.kinds.bags)
    return { label: this.kinds.label, sparse, dense, lists, bags, totalRows: offset, denseInputs }
  }
}

/** Buckets of one sparse feature: an explicit count (all features or this one) or the default. */
function bucketsFor(name: string, cardinality: number, given: RecsysParams['buckets']): number {
  if (typeof given === 'number') return given
  if (given && given[name] !== undefined) return given[name]
  return Math.max(1, Math.min(cardinality * 2, MAX_DEFAULT_BUCKETS))
}

function poolingOf(name: string, given: RecsysParams['pooling'] | undefined): BagPooling {
  if (typeof given === 'string') return given
  return given?.[name] ?? 'mean'
}

/** A per-column pooling must name bag features only (a typo would silently pool by the default). */
function checkPoolingColumns(given: RecsysParams['pooling'] | undefined, bags: readonly string[]): void {
  if (given === undefined || typeof given === 'string') return
  for (const name of Object.keys(given)) {
    if (!bags.includes(name))
      throw new RangeError(
        `pooling.${name}: column '${name}' is not a bag feature (bag features: ${bags.join(', ') || 'none'})`,
      )
  }
}

/** sign(x)·log1p(|x|): log1p for skewed non-negative columns, still defined for negatives. */
export function signedLog1p(x: number): number {
  return Math.sign(x) * Math.log1p(Math.abs(x))
}

/**
 * Model inputs of the rows of `batch` with keep[i] ≠ 0 (all without `keep`), and with `group` (a
 * validation pass with a gauc_group) that column's values as the rows' groups. Throws naming a null label.
 */
export function featurize(layout: FeatureLayout, batch: Batch, keep?: Uint8Array, group?: string): ModelBatch {
  const picked: number[] = []
  for (let i = 0; i < batch.size; i++) if (!keep || keep[i]) picked.push(i)
  const n = picked.length,
    S = layout.sparse.length,
    Cd = layout.denseInputs
  const rows = new Uint32Array(n * S),
    dense = new Float32Array(n * Cd),
    labels = new Float32Array(n)
  const y = column(batch, layout.label).values
  picked.forEach((i, b) => {
    if (!Number.isFinite(y[i]))
      throw new RangeError(
        `label column '${layout.label}': null or non-finite value at batch row ${i} (position ${batch.position + i})`,
      )
    labels[b] = y[i]
  })
  layout.sparse.forEach((f, s) => {
    const h = column(batch, f.name).values
    picked.forEach((i, b) => {
      rows[b * S + s] = f.tableOffset + ((h[i] >>> 0) % f.buckets)
    })
  })
  let k = 0
  for (const f of layout.dense) {
    const x = column(batch, f.name).values
    picked.forEach((i, b) => writeDense(dense, b * Cd + k, f, x[i]))
    k += f.indicator ? 2 : 1
  }
  for (const f of layout.lists) {
    const x = column(batch, f.name).values
    picked.forEach((i, b) => {
      for (let e = 0; e < f.length; e++) {
        const v = x[i * f.length + e]
        dense[b * Cd + k + e] = Number.isNaN(v) ? 0 : v
      }
    })
    k += f.length
  }
  const out: ModelBatch = { n, rows, dense, labels, ...featurizeBags(layout.bags ?? [], batch, picked) }
  if (group === undefined) return out
  const g = column(batch, group).values
  return { ...out, groups: Float64Array.from(picked, i => g[i]) }
}

/** bagRows (global rows of the picked rows' items, row-major: row, bag, item) and bagOffsets [n·K + 1]; none when K = 0. */
function featurizeBags(
  bags: readonly BagFeature[],
  batch: Batch,
  picked: readonly number[],
): Pick<ModelBatch, 'bagRows' | 'bagOffsets'> {
  const K = bags.length
  if (K === 0) return {}
  const cols = bags.map(f => bagColumn(batch, f.name))
  const bagOffsets = new Uint32Array(picked.length * K + 1)
  picked.forEach((i, b) => {
    for (let k = 0; k < K; k++) {
      const o = cols[k].offsets
      bagOffsets[b * K + k + 1] = bagOffsets[b * K + k] + o[i + 1] - o[i]
    }
  })
  const bagRows = new Uint32Array(bagOffsets[picked.length * K])
  picked.forEach((i, b) => {
    for (let k = 0; k < K; k++) {
      const { values, offsets } = cols[k],
        f = bags[k]
      let at = bagOffsets[b * K + k]
      for (let j = offsets[i]; j < offsets[i + 1]; j++) bagRows[at++] = f.tableOffset + ((values[j] >>> 0) % f.buckets)
    }
  })
  return { bagRows, bagOffsets }
}

function writeDense(out: Float32Array, at: number, f: DenseFeature, x: number): void {
  const missing = Number.isNaN(x)
  out[at] = missing ? 0 : ((f.log1p ? signedLog1p(x) : x) - f.mean) / f.std
  if (f.indicator) out[at + 1] = missing ? 1 : 0
}

/**
 * 1 for the rows of `batch` held out for validation (the seeded split by row key, as GBDT's), else
 * 0. Needs batch.keys: the loader's plan must carry the key columns (withSplitKey).
 */
export function validMask(batch: Batch, seed: number, fraction: number): Uint8Array {
  if (!batch.keys) throw new TypeError('validMask: the loader must deliver row keys (a plan with rowKey)')
  return validMaskOfKeys(batch.keys, seed, fraction)
}

/** One line per embedding table (sparse, then bags): "name: buckets × D = bytes". */
export function tableMemory(layout: FeatureLayout, dim: number): string[] {
  return [...layout.sparse, ...(layout.bags ?? [])].map(
    f =>
      `${f.name}: ${f.buckets} buckets (cardinality ${f.cardinality}) × ${dim} = ${(f.bytes / 2 ** 20).toFixed(2)} MiB`,
  )
}

/** A bag column: item hashes and offsets [size + 1] (the loader's 'hash_list'). */
function bagColumn(batch: Batch, name: string): { values: Uint32Array; offsets: Uint32Array } {
  const c = column(batch, name)
  if (c.encoding !== 'hash_list' || !c.offsets)
    throw new RangeError(`bag column '${name}': decoded as ${c.encoding}, expected hash_list`)
  return { values: c.values as Uint32Array, offsets: c.offsets }
}

function column(batch: Batch, name: string): DecodedColumn {
  const c = batch.columns[name]
  if (!c) throw new RangeError(`batch has no column '${name}' (columns: ${Object.keys(batch.columns).join(', ')})`)
  return c
}
