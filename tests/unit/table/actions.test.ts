import { describe, expect, it } from 'vitest'
import { parseCommit } from '../../../src/table/actions.ts'
import { TableError } from '../../../src/table/types.ts'

const URL_C = 'http://t.test/tbl/_delta_log/00000000000000000003.json'

describe('parseCommit', () => {
  it('parses every action kind, in file order', () => {
    const text = [
      '{"commitInfo":{"timestamp":1700000000000,"inCommitTimestamp":1700000000001,"operation":"WRITE","operationMetrics":{"numFiles":"1"}}}',
      '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}}',
      '{"metaData":{"id":"m","format":{"provider":"parquet","options":{}},"schemaString":"{\\"type\\":\\"struct\\",\\"fields\\":[]}","partitionColumns":["p"],"configuration":{"a":"1"},"createdTime":5}}',
      '{"add":{"path":"p=1/f.parquet","partitionValues":{"p":"1","q":null},"size":10,"modificationTime":7,"dataChange":true,"stats":"{\\"numRecords\\":2}","deletionVector":{"storageType":"u","pathOrInlineDv":"ab","offset":1,"sizeInBytes":34,"cardinality":2}}}',
      '{"remove":{"path":"old.parquet","deletionTimestamp":9,"dataChange":true}}',
      '{"txn":{"appId":"app","version":4}}',
      '{"domainMetadata":{"domain":"d","configuration":"{}","removed":false}}',
      '{"checkpointMetadata":{"version":3}}',
      '{"sidecar":{"path":"s.parquet","sizeInBytes":100,"modificationTime":1}}',
      '{"cdc":{"path":"c.parquet"}}',
      '',
    ].join('\n')
    const actions = parseCommit(text, URL_C)
    expect(actions.map(a => a.kind)).toEqual([
      'commitInfo',
      'protocol',
      'metaData',
      'add',
      'remove',
      'txn',
      'domainMetadata',
      'checkpointMetadata',
      'sidecar',
      'other',
    ])
    const add = actions[3]
    expect(add.kind === 'add' && add.add).toMatchObject({
      path: 'p=1/f.parquet',
      size: 10,
      partitionValues: { p: '1', q: null },
      deletionVector: { storageType: 'u', pathOrInlineDv: 'ab', offset: 1, sizeInBytes: 34, cardinality: 2 },
    })
    const info = actions[0]
    expect(info.kind === 'commitInfo' && info.commitInfo.inCommitTimestamp).toBe(1700000000001)
    const meta = actions[2]
    expect(meta.kind === 'metaData' && meta.metaData.partitionColumns).toEqual(['p'])
  })

  it('names the file and line of a line that is not JSON', () => {
    const error = (() => {
      try {
        parseCommit('{"commitInfo":{}}\n{"add":', URL_C)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(TableError)
    expect((error as TableError).code).toBe('malformed-log')
    expect((error as TableError).message).toMatch(new RegExp(`^${URL_C} line 2: not JSON`))
  })

  it('names the field of an action missing a required one', () => {
    expect(() => parseCommit('{"add":{"partitionValues":{},"size":1}}', URL_C)).toThrow(
      `${URL_C} line 1: add.path is missing`,
    )
    expect(() => parseCommit('{"add":{"path":"a","size":1,"deletionVector":{"storageType":"x"}}}', URL_C)).toThrow(
      /storageType "x" is not u, p or i/,
    )
    expect(() => parseCommit('[1]', URL_C)).toThrow(/line 1: not a JSON object/)
  })
})
