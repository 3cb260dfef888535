/**
 * A fake S3 for the storage tests: a fetch that checks each request's SigV4 signature the way S3
 * does (written from the AWS specification, independently of the signer under test), refuses
 * expired session tokens with S3's `ExpiredToken` answer, and serves objects from a map.
 */
import { createHash, createHmac } from 'node:crypto'
import type { FetchLike } from '../../../src/table/types.ts'

/** Credentials the fake issued, by access key id. */
interface Issued {
  secretAccessKey: string
  sessionToken: string
  expiresAt: number
}

/** One request the fake answered. */
export interface SeenRequest {
  method: string
  url: string
  headers: Headers
  status: number
}

export interface FakeS3 {
  fetch: FetchLike
  /** Issue temporary credentials valid for `lifetimeMs` from now (the fake's clock). */
  issue(lifetimeMs: number): { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: number }
  requests: SeenRequest[]
}

/**
 * @param origin the bucket's origin (virtual-hosted: objects at the root)
 * @param objects key (decoded, no leading '/') → content
 * @param now the fake's clock, ms since the epoch
 */
export function fakeS3(origin: string, objects: Record<string, string>, now: () => number = Date.now): FakeS3 {
  const issued = new Map<string, Issued>()
  const requests: SeenRequest[] = []
  let counter = 0
  const answer = (req: SeenRequest, status: number, body: string | null): Response => {
    req.status = status
    requests.push(req)
    return new Response(body, { status })
  }
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(input)
    const headers = new Headers(init?.headers)
    const req: SeenRequest = { method: init?.method ?? 'GET', url: input, headers, status: 0 }
    if (url.origin !== origin) return answer(req, 404, null)
    const check = verify(req.method, url, headers, id => issued.get(id)?.secretAccessKey)
    if (check) return answer(req, 403, s3Error(check))
    const creds = issued.get(credentialOf(headers)!)!
    if (headers.get('x-amz-security-token') !== creds.sessionToken) return answer(req, 403, s3Error('InvalidToken'))
    if (now() >= creds.expiresAt) return answer(req, 400, s3Error('ExpiredToken'))
    const key = decodeURIComponent(url.pathname.slice(1))
    const body = objects[key]
    if (body === undefined) return answer(req, 404, s3Error('NoSuchKey'))
    return answer(req, 200, req.method === 'HEAD' ? null : body)
  }
  return {
    fetch,
    requests,
    issue(lifetimeMs) {
      counter++
      const c = {
        accessKeyId: `ASIAFAKE${counter}`,
        secretAccessKey: `secret-${counter}-${Math.random().toString(36).slice(2)}`,
        sessionToken: `token-${counter}-${Math.random().toString(36).slice(2)}`,
        expiration: now() + lifetimeMs,
      }
      issued.set(c.accessKeyId, { ...c, expiresAt: c.expiration })
      return c
    },
  }
}

function s3Error(code: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message></Error>`
}

function credentialOf(headers: Headers): string | undefined {
  return /Credential=([^/]+)\//.exec(headers.get('authorization') ?? '')?.[1]
}

/**
 * Checks a header-signed SigV4 request; returns S3's error code, or undefined when it is valid.
 * Canonical request per https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 * (S3 flavour: the path is the object key, encoded once).
 */
export function verify(
  method: string,
  url: URL,
  headers: Headers,
  secretOf: (accessKeyId: string) => string | undefined,
): string | undefined {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      headers.get('authorization') ?? '',
    )
  if (!auth) return 'AccessDenied'
  const [, accessKeyId, date, region, signedList, signature] = auth
  const secret = secretOf(accessKeyId)
  if (secret === undefined) return 'InvalidAccessKeyId'
  const signed = signedList.split(';')
  const amzDate = headers.get('x-amz-date') ?? ''
  const required = ['host', 'x-amz-date', 'x-amz-content-sha256']
  if (headers.has('x-amz-security-token')) required.push('x-amz-security-token')
  if (!required.every(h => signed.includes(h)) || !amzDate.startsWith(date)) return 'AccessDenied'
  const canonical = [
    method,
    url.pathname
      .split('/')
      .map(s => strict(decodeURIComponent(s)))
      .join('/'),
    canonicalQuery(url.search.slice(1)),
    signed.map(h => `${h}:${h === 'host' ? url.host : (headers.get(h) ?? '').trim().replace(/\s+/g, ' ')}\n`).join(''),
    signedList,
    headers.get('x-amz-content-sha256') ?? '',
  ].join('\n')
  const scope = `${date}/${region}/s3/aws4_request`
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n')
  let key: Buffer = hmac(`AWS4${secret}`, date)
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part)
  return createHmac('sha256', key).update(toSign).digest('hex') === signature ? undefined : 'SignatureDoesNotMatch'
}

function canonicalQuery(query: string): string {
  if (query === '') return ''
  return query
    .split('&')
    .map(p => {
      const eq = p.indexOf('=')
      const [k, v] = eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)]
      return [strict(decodeURIComponent(k)), strict(decodeURIComponent(v))]
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&')
}

/** RFC 3986 unreserved characters stay, everything else is %XX. */
function strict(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex')
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest()
}
