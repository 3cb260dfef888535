import { describe, expect, it } from 'vitest'
import { isS3Location, s3Region, s3TableUrl } from '../../../src/storage/s3-location.ts'

describe('s3TableUrl', () => {
  it('maps to AWS virtual-hosted style without an endpoint', () => {
    expect(s3TableUrl('s3://b/tables/clicks')).toBe('https://b.s3.us-east-1.amazonaws.com/tables/clicks/')
    expect(s3TableUrl('s3://my-bucket/tables/clicks/', { region: 'eu-west-1' })).toBe(
      'https://my-bucket.s3.eu-west-1.amazonaws.com/tables/clicks/',
    )
    expect(s3TableUrl('s3a://b2/x')).toBe('https://b2.s3.us-east-1.amazonaws.com/x/')
  })

  it('maps a whole bucket to the origin root', () => {
    expect(s3TableUrl('s3://bucket')).toBe('https://bucket.s3.us-east-1.amazonaws.com/')
    expect(s3TableUrl('s3://bucket/', { endpoint: 'http://127.0.0.1:9000' })).toBe('http://127.0.0.1:9000/')
  })

  it('puts the key prefix under an endpoint that serves the bucket at its root', () => {
    expect(s3TableUrl('s3://b/tables/clicks', { endpoint: 'http://127.0.0.1:9000' })).toBe(
      'http://127.0.0.1:9000/tables/clicks/',
    )
    expect(s3TableUrl('s3://b/tables/clicks', { endpoint: 'https://proxy.example/buckets/b/' })).toBe(
      'https://proxy.example/buckets/b/tables/clicks/',
    )
    // The region only matters for AWS's own host names.
    expect(s3TableUrl('s3://b/t', { endpoint: 'http://localhost:9000/', region: 'eu-west-1' })).toBe(
      'http://localhost:9000/t/',
    )
  })

  it('keeps the key %-encoded, encoding what a URL cannot hold raw', () => {
    expect(s3TableUrl('s3://b/my tables/clicks')).toBe('https://b.s3.us-east-1.amazonaws.com/my%20tables/clicks/')
    expect(s3TableUrl('s3://b/my%20tables/clicks')).toBe('https://b.s3.us-east-1.amazonaws.com/my%20tables/clicks/')
  })

  it('refuses what is not an S3 location, naming it', () => {
    expect(() => s3TableUrl('https://b/x')).toThrow(/https:\/\/b\/x: not an s3:\/\/ location/)
    expect(() => s3TableUrl('s3://Bad_Bucket/x')).toThrow(/'bad_bucket'|'Bad_Bucket'/)
    expect(() => s3TableUrl('s3://b/x?versionId=1')).toThrow(/only a bucket and a key prefix/)
    expect(() => s3TableUrl('s3://b/x', { endpoint: 'ftp://h/' })).toThrow(/not an http\(s\) URL/)
  })

  it('refuses dotted bucket names on AWS (TLS) but not under an endpoint', () => {
    expect(() => s3TableUrl('s3://my.bucket/x')).toThrow(/has dots/)
    expect(s3TableUrl('s3://my.bucket/x', { endpoint: 'http://127.0.0.1:9000' })).toBe('http://127.0.0.1:9000/x/')
  })

  it('tells S3 locations apart', () => {
    expect(isS3Location('s3://b/x')).toBe(true)
    expect(isS3Location('S3A://b/x')).toBe(true)
    expect(isS3Location('abfss://c@a.dfs.core.windows.net/x')).toBe(false)
    expect(isS3Location('file:///tmp/x')).toBe(false)
  })
})

describe('s3Region', () => {
  it('reads the region from AWS host names', () => {
    expect(s3Region('https://b.s3.eu-central-1.amazonaws.com/x')).toBe('eu-central-1')
    expect(s3Region('https://b.s3-us-west-2.amazonaws.com/x')).toBe('us-west-2')
    expect(s3Region('https://b.s3.dualstack.ap-south-1.amazonaws.com/')).toBe('ap-south-1')
    expect(s3Region('https://b.s3.us-gov-west-1.amazonaws.com/')).toBe('us-gov-west-1')
    expect(s3Region('https://b.s3.cn-north-1.amazonaws.com.cn/')).toBe('cn-north-1')
    expect(s3Region('https://b.s3.amazonaws.com/')).toBe('us-east-1')
  })

  it('does not guess for other hosts', () => {
    expect(s3Region('http://127.0.0.1:9000/')).toBeUndefined()
    expect(s3Region('https://b.r2.example/')).toBeUndefined()
    expect(s3Region('not a url')).toBeUndefined()
  })
})
