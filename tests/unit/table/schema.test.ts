import { describe, expect, it } from 'vitest'
import { columnMappingMode, decimalParams, parseSchema, toLogicalKeys } from '../../../src/table/schema.ts'
import type { Metadata } from '../../../src/table/types.ts'

const field = (name: string, type: unknown, metadata = {}) => ({ name, type, nullable: true, metadata })

describe('parseSchema', () => {
  it('parses primitives, decimal, nested types and keeps metadata', () => {
    const json = JSON.stringify({
      type: 'struct',
      fields: [
        field('a', 'long', { 'delta.columnMapping.id': 1, 'delta.columnMapping.physicalName': 'col-a' }),
        field('d', 'decimal(10,2)'),
        field('t', 'timestamp_ntz'),
        field('day', 'date'),
        field('s', { type: 'struct', fields: [field('x', 'string')] }),
        field('arr', { type: 'array', elementType: 'integer', containsNull: false }),
        field('m', {
          type: 'map',
          keyType: 'string',
          valueType: { type: 'array', elementType: 'double', containsNull: true },
          valueContainsNull: true,
        }),
      ],
    })
    const schema = parseSchema(json)
    expect(schema.fields.map(f => f.name)).toEqual(['a', 'd', 't', 'day', 's', 'arr', 'm'])
    expect(schema.fields[0].metadata['delta.columnMapping.physicalName']).toBe('col-a')
    expect(schema.fields[4].type).toEqual({
      type: 'struct',
      fields: [{ name: 'x', type: 'string', nullable: true, metadata: {} }],
    })
    expect(schema.fields[5].type).toEqual({ type: 'array', elementType: 'integer', containsNull: false })
    expect(schema.fields[6].type).toMatchObject({
      type: 'map',
      keyType: 'string',
      valueType: { type: 'array', elementType: 'double' },
    })
    expect(decimalParams(schema.fields[1].type)).toEqual({ precision: 10, scale: 2 })
  })

  it('rejects bad schemas naming the place', () => {
    expect(() => parseSchema('{', 'x.json')).toThrow(/x.json: schema is not JSON/)
    expect(() => parseSchema(JSON.stringify({ type: 'struct', fields: [field('a', 'int128')] }))).toThrow(
      /a: unsupported data type "int128"/,
    )
    expect(() => parseSchema('"long"')).toThrow(/not a struct/)
  })
})

describe('column mapping', () => {
  const meta = (mode?: string) =>
    ({ configuration: mode ? { 'delta.columnMapping.mode': mode } : {} }) as unknown as Metadata

  it('reads the mode', () => {
    expect(columnMappingMode(meta())).toBe('none')
    expect(columnMappingMode(meta('name'))).toBe('name')
    expect(columnMappingMode(meta('id'))).toBe('id')
    expect(() => columnMappingMode(meta('weird'))).toThrow(/"weird"/)
  })

  it('maps physical keys back to logical names, nested too', () => {
    const schema = parseSchema(
      JSON.stringify({
        type: 'struct',
        fields: [
          field('a', 'long', { 'delta.columnMapping.physicalName': 'col-1' }),
          field(
            's',
            { type: 'struct', fields: [field('x', 'long', { 'delta.columnMapping.physicalName': 'col-3' })] },
            { 'delta.columnMapping.physicalName': 'col-2' },
          ),
        ],
      }),
    )
    expect(toLogicalKeys({ 'col-1': 1, 'col-2': { 'col-3': 2 } }, schema, 'name')).toEqual({ a: 1, s: { x: 2 } })
    expect(toLogicalKeys({ 'col-1': 1 }, schema, 'none')).toEqual({ 'col-1': 1 })
  })
})
