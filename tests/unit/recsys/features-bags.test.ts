import { describe, expect, test } from 'vitest'
import { decodeColumn } from '../../../src/data/decode.ts'
import type { Batch } from '../../../src/data/types.ts'
import { classifyColumns, columnKind, featurize, FeatureStats } from '../../../src/models/recsys/features.ts'
import { modelShapeOf } from '../../../src/models/recsys/layout.ts'
import { parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { StructField } from '../../../src/table/types.ts'
import { hashInteger, hashString } from '../../../src/util/hash.ts'

const field = (name: string, type: StructField['type']): StructField => ({ name, type, nullable: true, metadata: {} })
const array = (elementType: StructField['type']): StructField['type'] =>
  ({ type: 'array', elementType, containsNull: true }) as StructField['type']
const FIELDS: StructField[] = [
  field('user', 'string'),
  field('history', array('long')),
  field('tags', array('string')),
  field('emb', array('double')),
  field('when', array('date')),
  field('nested', array(array('long'))),
  field('label', 'integer'),
]

/** 4 rows: user, history (ids; row 2 null), tags (strings with a null item), labels. */
function batch(): Batch {
  const ctx = (column: string) => ({ column, url: 'mem://t' })
  const sel = { start: 0, end: 4 }
  const hist = decodeColumn([{ rowStart: 0, data: [[1n, 2n, 1n], [3n], null, []] }], sel, 'hash_list', ctx('history'))
  const tags = decodeColumn(
    [{ rowStart: 0, data: [['a'], ['b', null, 'a'], ['c'], null] }],
    sel,
    'hash_list',
    ctx('tags'),
  )
  return {
    size: 4,
    position: 0,
    epoch: 0,
    columns: {
      user: { name: 'user', encoding: 'hash32', values: Uint32Array.from(['u', 'v', 'u', 'w'], hashString) },
      history: hist,
      tags,
      label: { name: 'label', encoding: 'float32', values: Float32Array.of(1, 0, 1, 0) },
    },
  }
}

describe('bag features', () => {
  test('arrays of hashable scalars are bags (hash_list); float arrays stay dense lists; others have no input', () => {
    expect(columnKind(array('integer'))).toBe('bag')
    expect(columnKind(array('boolean'))).toBe('bag')
    expect(columnKind(array('float'))).toBe('list')
    expect(columnKind(array('date'))).toBeUndefined()
    const k = classifyColumns(FIELDS, 'label')
    expect([k.sparse, k.bags, k.lists]).toEqual([['user'], ['history', 'tags'], ['emb']])
    expect(k.spec).toMatchObject({ history: 'hash_list', tags: 'hash_list', emb: 'fixed_list' })
  })

  test.each([
    ['when', /feature column 'when': an array column with an element type that cannot be hashed \("date"\)/],
    ['nested', /feature column 'nested': an array column with an element type that cannot be hashed/],
  ])('an array column %s whose elements cannot be hashed is refused, naming it', (name, message) => {
    expect(() => classifyColumns(FIELDS, 'label', [name])).toThrow(message)
  })

  test('stats count distinct items; tables follow the sparse tables; featurize fills bagRows / bagOffsets', () => {
    const kinds = classifyColumns(FIELDS, 'label', ['user', 'history', 'tags'])
    const stats = new FeatureStats(kinds)
    stats.observe(batch())
    const p = parseRecsysParams({ buckets: { history: 7 }, pooling: { tags: 'sum' } })
    const layout = stats.finish(p)
    expect(layout.sparse.map(f => [f.name, f.cardinality, f.buckets, f.tableOffset])).toEqual([['user', 3, 6, 0]])
    expect(layout.bags!.map(f => [f.name, f.cardinality, f.buckets, f.tableOffset, f.pooling])).toEqual([
      ['history', 3, 7, 6, 'mean'],
      ['tags', 3, 6, 13, 'sum'],
    ])
    expect(layout.totalRows).toBe(19)
    const shape = modelShapeOf(layout, p)
    expect([shape.bags, shape.pooling]).toEqual([2, ['mean', 'sum']])
    const mb = featurize(layout, batch(), Uint8Array.of(1, 1, 1, 0))
    const h = (x: number) => 6 + (hashInteger(x) % 7),
      t = (s: string) => 13 + (hashString(s) % 6)
    // Rows 0–2 (row 3 not kept); (row, bag): (0,h) [1,2,1] (0,t) [a] (1,h) [3] (1,t) [b,a] (2,h) [] (2,t) [c].
    expect([...mb.bagOffsets!]).toEqual([0, 3, 4, 5, 7, 7, 8])
    expect([...mb.bagRows!]).toEqual([h(1), h(2), h(1), t('a'), h(3), t('b'), t('a'), t('c')])
  })

  test('a pooling that does not exist, or one for a column that is not a bag, is refused naming it', () => {
    expect(() => parseRecsysParams({ pooling: 'max' })).toThrow(/pooling must be one of 'sum', 'mean', got "max"/)
    expect(() => parseRecsysParams({ pooling: { tags: 'max' } })).toThrow(/pooling\.tags must be one of/)
    const stats = new FeatureStats(classifyColumns(FIELDS, 'label', ['user', 'tags']))
    stats.observe(batch())
    expect(() => stats.finish(parseRecsysParams({ pooling: { user: 'sum' } }))).toThrow(
      /pooling\.user: column 'user' is not a bag feature \(bag features: tags\)/,
    )
  })
})
