import type { SchemaTree } from 'hyparquet'
import { describe, expect, test } from 'vitest'
import { fieldId, findParquetChild, partitionValueFor, physicalName } from '../../../src/table/column-mapping.ts'
import type { StructField } from '../../../src/table/types.ts'

function leaf(name: string, field_id?: number): SchemaTree {
  return { element: { name, field_id }, children: [], count: 1, path: [name] }
}

const mapped: StructField = {
  name: 'price',
  type: 'double',
  nullable: true,
  metadata: { 'delta.columnMapping.physicalName': 'col-9', 'delta.columnMapping.id': 7 },
}
const plain: StructField = { name: 'price', type: 'double', nullable: true, metadata: {} }

describe('column mapping', () => {
  test('physical names and ids per mode', () => {
    expect(physicalName(mapped, 'none')).toBe('price')
    expect(physicalName(mapped, 'name')).toBe('col-9')
    expect(physicalName(plain, 'name')).toBe('price')
    expect(fieldId(mapped, 'id')).toBe(7)
    expect(fieldId(mapped, 'name')).toBeUndefined()
  })

  test("mode 'id' matches the parquet field id before the name", () => {
    const children = [leaf('col-9', 3), leaf('old-name', 7)]
    expect(findParquetChild(children, mapped, 'id')?.element.name).toBe('old-name')
    expect(findParquetChild(children, mapped, 'name')?.element.name).toBe('col-9')
    expect(findParquetChild([leaf('col-9')], mapped, 'id')?.element.name).toBe('col-9')
    expect(findParquetChild([leaf('other')], mapped, 'name')).toBeUndefined()
  })

  test('partition values keyed by logical or physical name', () => {
    expect(partitionValueFor({ price: '1' }, mapped, 'name')).toBe('1')
    expect(partitionValueFor({ 'col-9': '2' }, mapped, 'name')).toBe('2')
    expect(partitionValueFor({}, mapped, 'name')).toBeNull()
  })
})
