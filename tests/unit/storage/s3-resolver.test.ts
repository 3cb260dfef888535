import { describe, expect, it } from 'vitest'
import { isExpiredAnswer, S3Resolver } from '../../../src/storage/s3-resolver.ts'
import type { S3Credentials } from '../../../src/storage/types.ts'
import { TableError } from '../../../src/table/types.ts'
import { verify } from './fake-s3.ts'

const EXAMPLE: S3Credentials = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
}
const TABLE = 'https://bucket.s3.eu-west-1.amazonaws.com/tables/clicks/'
const TEMP: S3Credentials = {
  accessKeyId: 'ASIATEMP',
  secretAccessKey: 'temp/secret+key',
  sessionToken: 'session-token-xyz',
}

function resolver(credentials: S3Credentials = TEMP, tableUrl = TABLE): S3Resolver {
  return new S3Resolver({ tableUrl, provider: async () => credentials })
}

async function refusal(p: Promise<unknown>): Promise<TableError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TableError)
  return error as TableError
}

describe('S3Resolver signing', () => {
  it('reproduces the AWS documentation example (GET Bucket, List Objects)', async () => {
    const r = new S3Resolver({
      tableUrl: 'https://examplebucket.s3.amazonaws.com/',
      provider: async () => EXAMPLE,
      now: () => Date.UTC(2013, 4, 24),
    })
    const emptyHash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    const out = await r.resolve('https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J', 'GET', {
      'x-amz-content-sha256': emptyHash,
    })
    expect(out.url).toBe('https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J')
    expect(out.headers?.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;x-amz-content-sha256;x-amz-date, ' +
        'Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
    )
  })

  it('signs objects, ranges and listings with UNSIGNED-PAYLOAD and the session token', async () => {
    const r = resolver()
    const cases: [string, string, Record<string, string>][] = [
      [`${TABLE}_delta_log/00000000000000000000.json`, 'GET', {}],
      [`${TABLE}part-00000%20(1).snappy.parquet`, 'GET', { range: 'bytes=4-99' }],
      [`${TABLE}_delta_log/_last_checkpoint`, 'HEAD', {}],
      [
        'https://bucket.s3.eu-west-1.amazonaws.com/?list-type=2&delimiter=%2F&prefix=tables%2Fclicks%2F_delta_log%2F',
        'GET',
        {},
      ],
    ]
    for (const [url, method, own] of cases) {
      const out = await r.resolve(url, method, own)
      const headers = new Headers({ ...own, ...out.headers })
      expect(out.url).toBe(url)
      expect(headers.get('x-amz-content-sha256')).toBe('UNSIGNED-PAYLOAD')
      expect(headers.get('x-amz-security-token')).toBe(TEMP.sessionToken)
      expect(headers.get('authorization')).toContain('/eu-west-1/s3/aws4_request')
      // The Range header travels unsigned, so the runtime may not break the signature by touching it.
      expect(headers.get('authorization')).not.toContain('range')
      expect(
        verify(method, new URL(url), headers, id => (id === TEMP.accessKeyId ? TEMP.secretAccessKey : undefined)),
      ).toBe(undefined)
    }
  })

  it('uses the given region, else the host’s, else us-east-1', async () => {
    const scope = async (r: S3Resolver, url: string) =>
      /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec((await r.resolve(url, 'GET', {})).headers!.authorization)?.[1]
    expect(await scope(resolver(), `${TABLE}x`)).toBe('eu-west-1')
    const local = 'http://127.0.0.1:9000/t/'
    expect(await scope(resolver(TEMP, local), `${local}x`)).toBe('us-east-1')
    const given = new S3Resolver({ tableUrl: local, region: 'auto', provider: async () => TEMP })
    expect(await scope(given, `${local}x`)).toBe('auto')
  })

  it('signs the request’s own x-amz-* headers, and no others', async () => {
    const out = await resolver().resolve(`${TABLE}x`, 'GET', { 'x-amz-checksum-mode': 'ENABLED', accept: '*/*' })
    expect(out.headers?.authorization).toContain('SignedHeaders=host;x-amz-checksum-mode;x-amz-content-sha256;')
    expect(out.headers?.accept).toBeUndefined()
  })

  it('refuses another origin before asking for credentials, naming the URL', async () => {
    let asked = 0
    const r = new S3Resolver({
      tableUrl: TABLE,
      provider: async () => {
        asked++
        return TEMP
      },
    })
    for (const url of [
      'https://other.s3.eu-west-1.amazonaws.com/tables/clicks/x.parquet',
      'http://bucket.s3.eu-west-1.amazonaws.com/tables/clicks/x.parquet',
      'https://bucket.s3.eu-west-1.amazonaws.com:8443/x',
      'http://127.0.0.1:9000/x',
    ]) {
      const error = await refusal(r.resolve(url, 'GET', {}))
      expect(error.url).toBe(url)
      expect(error.message).toContain(url)
      expect(error.message).not.toContain(TEMP.secretAccessKey)
    }
    expect(asked).toBe(0)
  })

  it('refuses methods that write', async () => {
    const error = await refusal(resolver().resolve(`${TABLE}x`, 'PUT', {}))
    expect(error.message).toMatch(/^PUT .*only read/)
  })

  it('needs an http(s) table URL (an s3:// one has no origin to hold requests to)', () => {
    expect(() => resolver(TEMP, 's3://bucket/tables/clicks/')).toThrow(/s3TableUrl/)
  })
})

describe('isExpiredAnswer', () => {
  const body = (code: string, message = '') => `<Error><Code>${code}</Code><Message>${message}</Message></Error>`

  it('knows S3’s expired-credential answers', () => {
    expect(isExpiredAnswer(400, body('ExpiredToken', 'The provided token has expired.'))).toBe(true)
    expect(isExpiredAnswer(403, body('ExpiredToken'))).toBe(true)
    expect(isExpiredAnswer(400, body('TokenRefreshRequired'))).toBe(true)
    expect(isExpiredAnswer(403, body('AccessDenied', 'Request has expired'))).toBe(true)
    expect(isExpiredAnswer(403, `<?xml version="1.0"?>\n<Error>\n  <Code> ExpiredToken </Code>\n</Error>`)).toBe(true)
  })

  it('leaves other refusals alone', () => {
    expect(isExpiredAnswer(403, body('AccessDenied', 'Access Denied'))).toBe(false)
    expect(isExpiredAnswer(403, body('SignatureDoesNotMatch'))).toBe(false)
    expect(isExpiredAnswer(404, body('ExpiredToken'))).toBe(false)
    expect(isExpiredAnswer(403, '')).toBe(false)
  })
})
