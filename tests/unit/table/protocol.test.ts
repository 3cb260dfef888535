import { describe, expect, it } from 'vitest'
import { checkReadable } from '../../../src/table/protocol.ts'
import type { TableError, Protocol } from '../../../src/table/types.ts'

const T = 'http://t.test/tbl/'

function refusal(protocol: Protocol): TableError {
  try {
    checkReadable(protocol, T)
  } catch (error) {
    return error as TableError
  }
  throw new Error('expected a refusal')
}

describe('checkReadable', () => {
  it('accepts reader versions 1 and 2 and supported v3 features', () => {
    expect(() => checkReadable({ minReaderVersion: 1, minWriterVersion: 2 }, T)).not.toThrow()
    expect(() => checkReadable({ minReaderVersion: 2, minWriterVersion: 5 }, T)).not.toThrow()
    const features = ['columnMapping', 'deletionVectors', 'timestampNtz', 'v2Checkpoint', 'vacuumProtocolCheck']
    expect(() => checkReadable({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: features }, T)).not.toThrow()
  })

  it('refuses an unknown reader version naming it', () => {
    const error = refusal({ minReaderVersion: 99, minWriterVersion: 7 })
    expect(error.code).toBe('unsupported-feature')
    expect(error.message).toContain('Unsupported Delta protocol reader version 99')
  })

  it('refuses unsupported features naming each', () => {
    const error = refusal({
      minReaderVersion: 3,
      minWriterVersion: 7,
      readerFeatures: ['deletionVectors', 'typeWidening-preview', 'variantType-preview', 'fancyNewFeature'],
    })
    expect(error.code).toBe('unsupported-feature')
    expect(error.message).toContain('variantType-preview, fancyNewFeature')
    expect(error.message).not.toContain('typeWidening')
    expect(error.message).not.toContain('deletionVectors')
  })

  it('refuses catalog-managed tables with their own code', () => {
    for (const feature of ['catalogManaged', 'catalogOwned-preview']) {
      const error = refusal({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: [feature] })
      expect(error.code).toBe('catalog-managed')
      expect(error.message).toContain(feature)
    }
  })
})
