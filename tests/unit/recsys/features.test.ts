import { describe, expect, test } from 'vitest'
import { decodeColumn } from '../../../src/data/decode.ts'
import type { Batch, DecodedColumn } from '../../../src/data/types.ts'
import {
  classifyColumns,
  featurize,
  FeatureStats,
  MAX_DEFAULT_BUCKETS,
  signedLog1p,
  tableMemory,
} from '../../../src/models/recsys/features.ts'
import type { StructField } from '../../../src/table/types.ts'

const field = (name: string, type: StructField['type']): StructField => ({ name, type, nullable: true, metadata: {} })
const FIELDS: StructField[] = [
  field('user_id', 'long'),
  field('device', 'string'),
  field('hour', 'integer'),
  field('price', 'double'),
  field('emb', { type: 'array', elementType: 'float', containsNull: false }),
  field('meta', { type: 'struct', fields: [] }),
  field('label', 'integer'),
]

function col(
  name: string,
  encoding: DecodedColumn['encoding'],
  values: DecodedColumn['values'],
  length?: number,
): DecodedColumn {
  return { name, encoding, values, length }
}

/** 4 rows: user ids (hashes), price with a null, a 2-float list with a NaN, labels. */
function batch(): Batch {
  return {
    size: 4,
    position: 0,
    epoch: 0,
    columns: {
      user_id: col('user_id', 'hash32', new Uint32Array([10, 11, 10, 4_000_000_000])),
      price: col('price', 'float32', new Float32Array([1, 3, NaN, 8])),
      emb: col('emb', 'fixed_list', new Float32Array([1, 2, NaN, 4, 5, 6, 7, 8]), 2),
      label: col('label', 'float32', new Float32Array([0, 1, 1, 0])),
    },
  }
}

describe('column classification', () => {
  test('ids, strings, ints → sparse (hash32); floats → dense; numeric arrays → lists; structs skipped', () => {
    const k = classifyColumns(FIELDS, 'label')
    expect([k.sparse, k.dense, k.lists]).toEqual([['user_id', 'device', 'hour'], ['price'], ['emb']])
    expect(k.spec).toEqual({
      label: 'float32',
      user_id: 'hash32',
      device: 'hash32',
      hour: 'hash32',
      price: 'float32',
      emb: 'fixed_list',
    })
  })

  test.each([
    [['user_id', 'nope'], "feature column 'nope' does not exist"],
    [['label'], "feature column 'label' is the label"],
    [['meta'], "feature column 'meta': type"],
  ])('features %j → error naming the column', (features, message) => {
    expect(() => classifyColumns(FIELDS, 'label', features)).toThrow(message)
  })

  test('a missing label column is named', () => {
    expect(() => classifyColumns(FIELDS, 'clicked')).toThrow("label column 'clicked' does not exist")
  })

  test('an id column with a null is refused by the decoder, naming the column', () => {
    expect(() =>
      decodeColumn([{ rowStart: 0, data: [5n, null, 7n] }], { start: 0, end: 3 }, 'hash32', {
        column: 'user_id',
        url: 'http://t/part-0.parquet',
      }),
    ).toThrow(/column 'user_id'.*null.*file row 1/)
  })
})

describe('statistics and featurize', () => {
  const kinds = classifyColumns(FIELDS, 'label', ['user_id', 'price', 'emb'])

  test('default buckets min(2·cardinality, 2^18), normalisation, indicators, lists', () => {
    const stats = new FeatureStats(kinds)
    stats.observe(batch())
    const layout = stats.finish({ embedding_dim: 4, buckets: undefined })
    expect(layout.sparse).toEqual([
      { name: 'user_id', type: 'long', cardinality: 3, buckets: 6, tableOffset: 0, bytes: 96 },
    ])
    const mean = 4,
      std = Math.sqrt(((1 - 4) ** 2 + (3 - 4) ** 2 + (8 - 4) ** 2) / 3)
    expect(layout.dense[0]).toMatchObject({ name: 'price', indicator: true, log1p: false })
    expect(layout.dense[0].mean).toBeCloseTo(mean, 12)
    expect(layout.dense[0].std).toBeCloseTo(std, 12)
    expect([layout.totalRows, layout.denseInputs]).toEqual([6, 4])
    const f = featurize(layout, batch())
    expect([...f.rows]).toEqual([10 % 6, 11 % 6, 10 % 6, 4_000_000_000 % 6])
    const z = (x: number): number => Math.fround((x - mean) / std)
    // per row: price (normalised, NaN → 0), missing indicator, emb[0], emb[1] (NaN → 0)
    expect([...f.dense]).toEqual([z(1), 0, 1, 2, z(3), 0, 0, 4, 0, 1, 5, 6, z(8), 0, 7, 8])
    expect([...f.labels]).toEqual([0, 1, 1, 0])
  })

  test('keep mask: statistics and batches use only the kept rows', () => {
    const keep = new Uint8Array([1, 0, 1, 1])
    const stats = new FeatureStats(kinds, new Set(['price']))
    stats.observe(batch(), keep)
    const layout = stats.finish({ embedding_dim: 2, buckets: { user_id: 1000 } })
    expect(layout.sparse[0]).toMatchObject({ cardinality: 2, buckets: 1000 })
    expect(layout.dense[0].mean).toBeCloseTo((signedLog1p(1) + signedLog1p(8)) / 2, 12)
    const f = featurize(layout, batch(), keep)
    expect(f.n).toBe(3)
    expect([...f.rows]).toEqual([10, 10, 4_000_000_000 % 1000])
    expect([...f.labels]).toEqual([0, 1, 0])
  })

  test('table offsets stack the features; bucket count caps at 2^18; memory per table reported', () => {
    const two = classifyColumns(FIELDS, 'label', ['user_id', 'hour'])
    const stats = new FeatureStats(two)
    const n = 200_000
    stats.observe({
      size: n,
      position: 0,
      epoch: 0,
      columns: {
        user_id: col(
          'user_id',
          'hash32',
          Uint32Array.from({ length: n }, (_, i) => i),
        ),
        hour: col(
          'hour',
          'hash32',
          Uint32Array.from({ length: n }, (_, i) => i % 24),
        ),
        label: col('label', 'float32', new Float32Array(n)),
      },
    })
    const layout = stats.finish({ embedding_dim: 16, buckets: { hour: 24 } })
    expect(layout.sparse.map(f => [f.buckets, f.tableOffset])).toEqual([
      [MAX_DEFAULT_BUCKETS, 0],
      [24, MAX_DEFAULT_BUCKETS],
    ])
    expect(layout.totalRows).toBe(MAX_DEFAULT_BUCKETS + 24)
    expect(tableMemory(layout, 16)[0]).toBe('user_id: 262144 buckets (cardinality 131072) × 16 = 16.00 MiB')
  })

  test('a null label is refused naming the label column', () => {
    const stats = new FeatureStats(kinds)
    const b = batch()
    ;(b.columns.label.values as Float32Array)[2] = NaN
    expect(() => featurize(stats.finish({ embedding_dim: 2, buckets: undefined }), b)).toThrow(
      /label column 'label': null.*batch row 2/,
    )
  })
})
