import { describe, expect, it } from 'vitest'
import type { Action, AddAction } from '../../../src/table/actions.ts'
import {
  applyActions,
  dvUniqueId,
  fileKey,
  liveFiles,
  newReplayState,
  resolveFileUrl,
} from '../../../src/table/replay.ts'
import { parseSchema } from '../../../src/table/schema.ts'
import type { DeletionVectorDescriptor } from '../../../src/table/types.ts'

const T = 'http://t.test/my%20table/'
const dv = (pathOrInlineDv: string, offset?: number): DeletionVectorDescriptor => ({
  storageType: 'u',
  pathOrInlineDv,
  offset,
  sizeInBytes: 10,
  cardinality: 1,
})
const add = (path: string, extra: Partial<AddAction> = {}): Action => ({
  kind: 'add',
  add: { path, partitionValues: {}, size: 1, modificationTime: 0, ...extra },
})
const remove = (path: string, deletionVector?: DeletionVectorDescriptor): Action => ({
  kind: 'remove',
  remove: { path, deletionVector },
})
const schema = parseSchema(
  JSON.stringify({
    type: 'struct',
    fields: [
      { name: 'id', type: 'long', nullable: true, metadata: { 'delta.columnMapping.physicalName': 'col-id' } },
      { name: 'part', type: 'string', nullable: true, metadata: { 'delta.columnMapping.physicalName': 'col-part' } },
    ],
  }),
)

describe('applyActions', () => {
  it('keys files by (path, DV id): a remove cancels only its own key, the newest add wins', () => {
    const state = newReplayState()
    applyActions(state, [add('a', { size: 1 }), add('b')])
    applyActions(state, [remove('a'), add('a', { size: 2, deletionVector: dv('x', 1) })])
    applyActions(state, [add('b', { size: 9 })])
    expect([...state.files.values()].map(f => [f.path, f.size]).sort()).toEqual([
      ['a', 2],
      ['b', 9],
    ])
    applyActions(state, [remove('a', dv('x', 2))]) // other DV offset: another key
    expect(state.files.size).toBe(2)
    applyActions(state, [remove('a', dv('x', 1))])
    expect([...state.files.keys()]).toEqual([fileKey('b')])
  })

  it('treats differently escaped paths as one file', () => {
    const state = newReplayState()
    applyActions(state, [add('p=a%20b/f.parquet'), remove('p=a b/f.parquet')])
    expect(state.files.size).toBe(0)
  })

  it('keeps the newest protocol and metaData', () => {
    const state = newReplayState()
    applyActions(state, [
      { kind: 'protocol', protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      { kind: 'protocol', protocol: { minReaderVersion: 3, minWriterVersion: 7 } },
    ])
    expect(state.protocol?.minReaderVersion).toBe(3)
  })

  it('builds the DV unique id as the protocol defines it', () => {
    expect(dvUniqueId(dv('abc', 4))).toBe('uabc@4')
    expect(dvUniqueId({ storageType: 'i', pathOrInlineDv: 'zz', sizeInBytes: 1, cardinality: 1 })).toBe('izz')
  })
})

describe('liveFiles', () => {
  it('resolves URLs, maps physical partition/stat keys to logical and sorts by path', () => {
    const state = newReplayState()
    applyActions(state, [
      add('p=%252F/b.parquet', {
        partitionValues: { 'col-part': '/' },
        stats: '{"numRecords":3,"minValues":{"col-id":1}}',
      }),
      add('a 😈.parquet', { partitionValues: { 'col-part': null } }),
      add('s3://bucket/x.parquet', { stats: 'not json' }),
    ])
    const files = liveFiles(state, T, schema, 'name', ['part'])
    expect(files.map(f => f.url)).toEqual([
      'http://t.test/my%20table/a%20%F0%9F%98%88.parquet',
      'http://t.test/my%20table/p=%252F/b.parquet',
      's3://bucket/x.parquet',
    ])
    expect(files[1].partitionValues).toEqual({ part: '/' })
    expect(files[0].partitionValues).toEqual({ part: null })
    expect(files[1].stats).toEqual({ numRecords: 3, minValues: { id: 1 } })
    expect(files[2].stats).toBeUndefined()
  })

  it('resolves relative and absolute paths', () => {
    expect(resolveFileUrl(T, 'x/y.parquet')).toBe('http://t.test/my%20table/x/y.parquet')
    expect(resolveFileUrl(T, 'https://cdn.test/z.parquet')).toBe('https://cdn.test/z.parquet')
  })
})
