/**
 * AWS Signature Version 4 verification for test servers, written from the AWS specification with
 * node:crypto. The product signs with aws4fetch; this side shares no code with it, so a signing
 * bug cannot cancel itself out. Covers both S3 forms: the Authorization header and presigned
 * (query-signed) URLs, each with or without a session token.
 *
 * Spec: https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 * S3: https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html and
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
 *
 * Not covered: chunked (STREAMING-*) payloads, the Date header in place of x-amz-date, and the
 * path normalisation and double encoding that non-S3 services apply (S3 encodes each path
 * segment once, which is what this verifier does for every service).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/** The S3 error codes a verification failure maps to. */
export type SigV4ErrorCode =
  | 'SignatureDoesNotMatch'
  | 'ExpiredToken'
  | 'InvalidToken'
  | 'InvalidAccessKeyId'
  | 'AccessDenied'
  | 'RequestTimeTooSkewed'
  | 'AuthorizationHeaderMalformed'

/** Outcome of `verifySigV4`; a failure names the key it was signed with when that could be read. */
export type SigV4Result =
  | { ok: true; accessKeyId: string }
  | { ok: false; code: SigV4ErrorCode; message: string; accessKeyId?: string }

type Failure = Extract<SigV4Result, { ok: false }>

/** A request as received, before any decoding. */
export interface SigV4Request {
  method: string
  /** Path and query as sent on the request line, still %-encoded: '/a%20b?list-type=2'. */
  target: string
  /** Header (name, value) pairs in arrival order, duplicates kept (Node's rawHeaders, paired). */
  headers: Array<[string, string]>
  /** Request body; checked against a hex x-amz-content-sha256, hashed when that header is absent. */
  body?: Uint8Array
}

/** What the verifier needs to know about an access key. */
export interface SigV4Secret {
  secretAccessKey: string
  /** Temporary credentials: requests must carry exactly this X-Amz-Security-Token. */
  sessionToken?: string
  /** Temporary credentials: ms since epoch after which requests fail with ExpiredToken. */
  expiresAt?: number
}

/** Options of `verifySigV4`. */
export interface VerifyOptions {
  /** The secret of an access key id; undefined for an unknown (or revoked) key. */
  lookup(accessKeyId: string): SigV4Secret | undefined
  /** Region the credential scope must name, e.g. 'us-east-1'. */
  region: string
  /** Service the credential scope must name: 's3' turns on S3's extra rules. */
  service: string
  /** Current time, ms since epoch (default Date.now()). */
  now?: number
  /** Allowed distance between x-amz-date and now, ms (default 15 minutes, as S3). */
  maxSkewMs?: number
}

const ALGORITHM = 'AWS4-HMAC-SHA256'
const UNSIGNED = 'UNSIGNED-PAYLOAD'
/** S3 refuses presigned URLs valid for longer than seven days. */
const MAX_EXPIRES_S = 604_800
const DEFAULT_SKEW_MS = 15 * 60_000
const MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.'

/** The signature fields of a request, from its Authorization header or its query. */
interface SignedAuth {
  accessKeyId: string
  /** Credential scope: date/region/service/aws4_request. */
  scope: string
  amzDate: string
  signedHeaders: string[]
  signature: string
  presigned: boolean
  /** X-Amz-Expires, seconds (presigned only). */
  expiresS?: number
  sessionToken?: string
}

/**
 * Verifies a SigV4-signed request: parses the signature (header or query), checks the key, its
 * session token and expiry, recomputes the signature over the canonical request and finally
 * checks the request time (clock skew; presigned expiry). Synchronous: node:crypto's HMAC is.
 */
export function verifySigV4(req: SigV4Request, opts: VerifyOptions): SigV4Result {
  const auth = parseAuth(req, opts)
  if ('ok' in auth) return auth
  const fail = (code: SigV4ErrorCode, message: string): Failure => failure(code, message, auth.accessKeyId)
  const secret = opts.lookup(auth.accessKeyId)
  // A temporary key used without its token is unknown to S3, not merely unauthorised.
  if (!secret || (secret.sessionToken !== undefined && auth.sessionToken === undefined)) {
    return fail('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.')
  }
  if (auth.sessionToken !== secret.sessionToken) {
    return fail('InvalidToken', 'The provided token is malformed or otherwise invalid.')
  }
  const now = opts.now ?? Date.now()
  if (secret.expiresAt !== undefined && now >= secret.expiresAt) {
    return fail('ExpiredToken', 'The provided token has expired.')
  }
  const payloadHash = payloadHashOf(req, auth.presigned, opts.service)
  if (typeof payloadHash !== 'string') return { ...payloadHash, accessKeyId: auth.accessKeyId }
  const creq = canonicalRequest(req, { ...auth, payloadHash, service: opts.service })
  const [date, region, service] = auth.scope.split('/')
  const key = signingKey(secret.secretAccessKey, date, region, service)
  const expected = createHmac('sha256', key)
    .update(stringToSign(auth.amzDate, auth.scope, creq))
    .digest()
  const given = /^[0-9a-f]{64}$/.test(auth.signature) ? Buffer.from(auth.signature, 'hex') : Buffer.alloc(0)
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return fail('SignatureDoesNotMatch', MISMATCH)
  return checkTime(auth, now, opts.maxSkewMs ?? DEFAULT_SKEW_MS) ?? { ok: true, accessKeyId: auth.accessKeyId }
}

/** What the canonical request takes from the signature besides the request itself. */
export interface CanonicalParts {
  /** Lower-case header names, in the order the signer listed them. */
  signedHeaders: string[]
  /** Hex SHA-256 of the body, or UNSIGNED-PAYLOAD. */
  payloadHash: string
  presigned: boolean
  /** 's3' decodes '+' in the path as a space, as S3 does. */
  service: string
}

/**
 * The canonical request of the spec's step 1: method, canonical URI (each segment decoded, then
 * encoded once), canonical query (sorted; X-Amz-Signature left out when presigned), the signed
 * headers with their canonical values, the signed header list and the payload hash.
 */
export function canonicalRequest(req: SigV4Request, parts: CanonicalParts): string {
  const q = req.target.indexOf('?')
  const path = q < 0 ? req.target : req.target.slice(0, q)
  const query = q < 0 ? '' : req.target.slice(q + 1)
  const headers = parts.signedHeaders.map(h => `${h}:${headerValue(req, h) ?? ''}\n`).join('')
  const segments = parts.service === 's3' ? s3PathSegments(path) : path.split('/').map(decode)
  return [
    req.method.toUpperCase(),
    path === '' ? '/' : segments.map(uriEncode).join('/'),
    canonicalQuery(query, parts.presigned),
    headers,
    parts.signedHeaders.join(';'),
    parts.payloadHash,
  ].join('\n')
}

/**
 * The decoded segments of an S3 request path ('/a/b%20c' → ['', 'a', 'b c']). S3 reads a literal
 * '+' in the path as a space (a legacy of form encoding that aws4fetch reproduces when signing),
 * so a key containing '+' must be sent as %2B. The S3 test server maps keys with this too, so the
 * key served and the key signed never differ.
 */
export function s3PathSegments(path: string): string[] {
  return path.split('/').map(s => decode(s.replace(/\+/g, ' ')))
}

/** The signing key: HMAC chain over date (YYYYMMDD), region, service and 'aws4_request'. */
export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request')
}

function stringToSign(amzDate: string, scope: string, creq: string): string {
  return [ALGORITHM, amzDate, scope, sha256Hex(creq)].join('\n')
}

function failure(code: SigV4ErrorCode, message: string, accessKeyId?: string): Failure {
  return accessKeyId === undefined ? { ok: false, code, message } : { ok: false, code, message, accessKeyId }
}

/** The signature fields from the Authorization header or the query (exactly one must be used). */
function parseAuth(req: SigV4Request, opts: VerifyOptions): SignedAuth | Failure {
  const q = req.target.indexOf('?')
  const query = queryParams(q < 0 ? '' : req.target.slice(q + 1))
  const authorization = headerValue(req, 'authorization')
  const algorithm = query.get('X-Amz-Algorithm')
  if (authorization !== undefined && algorithm !== undefined) {
    return failure('AuthorizationHeaderMalformed', 'Only one auth mechanism allowed; use the header or the query.')
  }
  let auth: SignedAuth | Failure
  if (authorization !== undefined) auth = parseHeaderAuth(req, authorization)
  else if (algorithm !== undefined) auth = parseQueryAuth(query, algorithm)
  else return failure('AccessDenied', 'Access Denied')
  return 'ok' in auth ? auth : (checkScope(req, auth, opts) ?? auth)
}

function parseHeaderAuth(req: SigV4Request, authorization: string): SignedAuth | Failure {
  const m = /^AWS4-HMAC-SHA256 (.*)$/.exec(authorization)
  if (!m) return failure('AuthorizationHeaderMalformed', `Unsupported Authorization type; only ${ALGORITHM} is.`)
  const fields = new Map<string, string>()
  for (const part of m[1].split(',')) {
    const i = part.indexOf('=')
    if (i > 0) fields.set(part.slice(0, i).trim(), part.slice(i + 1).trim())
  }
  const credential = fields.get('Credential')
  const signedHeaders = fields.get('SignedHeaders')
  const signature = fields.get('Signature')
  if (credential === undefined || signedHeaders === undefined || signature === undefined) {
    return failure(
      'AuthorizationHeaderMalformed',
      'The authorization header needs Credential, SignedHeaders, Signature.',
    )
  }
  const amzDate = headerValue(req, 'x-amz-date')
  if (amzDate === undefined || !isAmzDate(amzDate)) {
    return failure('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header')
  }
  const sessionToken = headerValue(req, 'x-amz-security-token')
  return fromCredential(credential, { amzDate, signedHeaders, signature, presigned: false, sessionToken })
}

function parseQueryAuth(query: Map<string, string>, algorithm: string): SignedAuth | Failure {
  if (algorithm !== ALGORITHM) {
    return failure('AuthorizationHeaderMalformed', `X-Amz-Algorithm only supports "${ALGORITHM}"`)
  }
  const [credential, amzDate, expires, signedHeaders, signature] = [
    'X-Amz-Credential',
    'X-Amz-Date',
    'X-Amz-Expires',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
  ].map(k => query.get(k))
  if (!credential || !amzDate || !expires || !signedHeaders || !signature) {
    return failure(
      'AuthorizationHeaderMalformed',
      'Query-string authentication requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, ' +
        'X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    )
  }
  if (!isAmzDate(amzDate))
    return failure('AuthorizationHeaderMalformed', 'X-Amz-Date must be in the ISO8601 Long Format')
  const expiresS = /^\d+$/.test(expires) ? Number(expires) : Number.NaN
  if (!(expiresS >= 1 && expiresS <= MAX_EXPIRES_S)) {
    return failure('AuthorizationHeaderMalformed', `X-Amz-Expires must be between 1 and ${MAX_EXPIRES_S} seconds`)
  }
  const sessionToken = query.get('X-Amz-Security-Token')
  return fromCredential(credential, { amzDate, signedHeaders, signature, presigned: true, expiresS, sessionToken })
}

/** Splits `AKID/date/region/service/aws4_request` and the signed header list into the auth fields. */
function fromCredential(
  credential: string,
  rest: Omit<SignedAuth, 'accessKeyId' | 'scope' | 'signedHeaders'> & { signedHeaders: string },
): SignedAuth | Failure {
  const parts = credential.split('/')
  if (parts.length !== 5 || parts[4] !== 'aws4_request' || !parts[0]) {
    return failure(
      'AuthorizationHeaderMalformed',
      `The Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`,
    )
  }
  return {
    ...rest,
    accessKeyId: parts[0],
    scope: parts.slice(1).join('/'),
    signedHeaders: rest.signedHeaders.split(';'),
  }
}

/** Scope date, region and service must agree with the request; S3 adds rules on signed headers. */
function checkScope(req: SigV4Request, auth: SignedAuth, opts: VerifyOptions): Failure | undefined {
  const fail = (message: string) => failure('AuthorizationHeaderMalformed', message, auth.accessKeyId)
  const [date, region, service] = auth.scope.split('/')
  if (date !== auth.amzDate.slice(0, 8)) return fail('Invalid credential date. Date is not the same as X-Amz-Date.')
  if (region !== opts.region) return fail(`the region '${region}' is wrong; expecting '${opts.region}'`)
  if (service !== opts.service) return fail(`the service '${service}' is wrong; expecting '${opts.service}'`)
  if (!auth.signedHeaders.includes('host')) return fail('The host header must be signed.')
  if (opts.service !== 's3') return undefined
  // S3 refuses x-amz-* headers the signature does not cover: they change what the request means.
  const unsigned = req.headers.map(([k]) => k.toLowerCase()).filter(k => k.startsWith('x-amz-'))
  if (unsigned.some(k => !auth.signedHeaders.includes(k))) {
    return failure('AccessDenied', 'There were headers present in the request which were not signed', auth.accessKeyId)
  }
  return undefined
}

/**
 * The payload hash that goes into the canonical request. S3 takes it from x-amz-content-sha256
 * (required on header-signed requests) and presigned URLs sign UNSIGNED-PAYLOAD; other services
 * hash the body.
 */
function payloadHashOf(req: SigV4Request, presigned: boolean, service: string): string | Failure {
  const declared = headerValue(req, 'x-amz-content-sha256')
  if (declared === undefined) {
    if (service !== 's3') return sha256Hex(req.body ?? new Uint8Array())
    if (presigned) return UNSIGNED
    return failure('AuthorizationHeaderMalformed', 'Missing required header for this request: x-amz-content-sha256')
  }
  if (declared === UNSIGNED) return declared
  if (!/^[0-9a-f]{64}$/.test(declared)) {
    return failure(
      'AuthorizationHeaderMalformed',
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a SHA-256 hex digest.',
    )
  }
  if (req.body !== undefined && sha256Hex(req.body) !== declared) {
    return failure(
      'SignatureDoesNotMatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    )
  }
  return declared
}

/** Clock skew for header-signed requests; the validity window for presigned ones. */
function checkTime(auth: SignedAuth, now: number, maxSkewMs: number): Failure | undefined {
  const t = amzDateMs(auth.amzDate)
  const skewed = auth.presigned ? t - now > maxSkewMs : Math.abs(now - t) > maxSkewMs
  if (skewed) {
    return failure(
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
      auth.accessKeyId,
    )
  }
  if (auth.presigned && now > t + auth.expiresS! * 1000) {
    return failure('AccessDenied', 'Request has expired', auth.accessKeyId)
  }
  return undefined
}

/** Pairs encoded, then sorted by key and value (ASCII order); the presigned signature is not signed. */
function canonicalQuery(query: string, presigned: boolean): string {
  return queryPairs(query)
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .filter(([k]) => !(presigned && k === 'X-Amz-Signature'))
    .sort(([k1, v1], [k2, v2]) => (k1 < k2 ? -1 : k1 > k2 ? 1 : v1 < v2 ? -1 : v1 > v2 ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&')
}

/** Decoded (key, value) pairs; '+' means a space, as in the form encoding browsers and URLSearchParams use. */
function queryPairs(query: string): Array<[string, string]> {
  return query
    .split('&')
    .filter(p => p !== '')
    .map(p => {
      const i = p.indexOf('=')
      const [k, v] = i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)]
      return [decode(k.replace(/\+/g, ' ')), decode(v.replace(/\+/g, ' '))]
    })
}

/** First value of each query key. */
function queryParams(query: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of queryPairs(query)) if (!out.has(k)) out.set(k, v)
  return out
}

/** Canonical header value: each occurrence trimmed with inner runs of whitespace made one space, joined with ','. */
function headerValue(req: SigV4Request, name: string): string | undefined {
  const values = req.headers.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v.trim().replace(/\s+/g, ' '))
  return values.length ? values.join(',') : undefined
}

/** The spec's UriEncode: every byte but A-Z a-z 0-9 - _ . ~ as %XX (upper-case hex). */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** %-decoding that leaves malformed escapes as sent (they then fail the signature, not the server). */
function decode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

function isAmzDate(s: string): boolean {
  return /^\d{8}T\d{6}Z$/.test(s) && !Number.isNaN(amzDateMs(s))
}

/** '20130524T000000Z' → ms since epoch. */
function amzDateMs(s: string): number {
  return Date.parse(
    `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`,
  )
}

function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
