/**
 * The reader's hook into signed S3 storage: a UrlResolver that signs each request to one storage
 * origin with AWS Signature Version 4 (header signing, UNSIGNED-PAYLOAD), and renews the
 * credentials when they are due or storage says they expired. Requests anywhere else are refused
 * before anything is signed: credentials go only to the storage they are for.
 *
 * Reference: https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 */
import { AwsV4Signer } from 'aws4fetch'
import { TableError, type ResolvedRequest, type UrlResolver } from '../table/types.ts'
import { RenewingCredentials } from './renewing-credentials.ts'
import { s3Region, s3RegionalUrl } from './s3-location.ts'
import { SigningLedger } from './signing-ledger.ts'
import type { CredentialProvider } from './types.ts'

/** The reader only reads: objects (GET, HEAD) and listings (GET /?list-type=2). */
const READ_METHODS = new Set(['GET', 'HEAD'])

/** S3 error codes that mean "these credentials have expired; fresh ones would do". */
const EXPIRED_CODES = new Set(['ExpiredToken', 'TokenRefreshRequired'])

/** Derived signing keys kept; older ones belong to credentials no longer held. */
const MAX_SIGNING_KEYS = 16

/** What an S3Resolver signs for, and with what. */
export interface S3ResolverOptions {
  /** Table root URL (ending in '/'); its origin is the one storage origin signed for. */
  tableUrl: string
  /** Where the credentials come from; called lazily, and again to renew. */
  provider: CredentialProvider
  /** Signing region; default from the host (`*.s3.<region>.amazonaws.com`), else us-east-1. */
  region?: string
  /** How error messages name the table; default `tableUrl`. */
  table?: string
  /** Clock, ms since the epoch (tests move it). */
  now?: () => number
}

/** Signs the reader's requests to one S3 origin. Plain data in and out (a worker may hold a proxy). */
export class S3Resolver implements UrlResolver {
  private readonly origin: string
  private readonly region: string
  /** Where the bucket answers when S3 said it lives in another region (redirected); else the table's origin. */
  private target?: { origin: string; region: string }
  private readonly table: string
  private readonly credentials: RenewingCredentials
  private readonly ledger: SigningLedger
  /** Derived signing keys by secret, date, region and service (aws4fetch's cache). */
  private readonly keys = new Map<string, ArrayBuffer>()
  private readonly now: () => number

  constructor(opts: S3ResolverOptions) {
    // An s3:// location has the opaque origin 'null', which every other such URL shares.
    if (!/^https?:\/\//i.test(opts.tableUrl)) {
      throw new RangeError(`${opts.tableUrl}: storage is signed for an http(s) URL (map s3:// with s3TableUrl)`)
    }
    this.origin = new URL(opts.tableUrl).origin
    this.region = opts.region ?? s3Region(opts.tableUrl) ?? 'us-east-1'
    this.table = opts.table ?? opts.tableUrl
    this.now = opts.now ?? Date.now
    this.credentials = new RenewingCredentials({
      provider: opts.provider,
      table: this.table,
      tableUrl: opts.tableUrl,
      now: this.now,
    })
    this.ledger = new SigningLedger(30_000, this.now)
  }

  /**
   * The signed request for `url`: the same URL, plus `Authorization`, `X-Amz-Date`,
   * `X-Amz-Content-Sha256` and, for temporary credentials, `X-Amz-Security-Token`.
   *
   * @param headers the request's own headers; only its `x-amz-*` ones are signed. Why: the
   *   runtime may add or rewrite others (Accept-Encoding, a browser's own) after signing, which
   *   would break a signature over them; S3 requires signing only host and the x-amz-* headers.
   * @throws TableError('access') naming `url` for another origin or a method other than GET/HEAD
   */
  async resolve(url: string, method: string, headers: Record<string, string>): Promise<ResolvedRequest> {
    if (originOf(url) !== this.origin) {
      throw new TableError(
        `${url}: not signed: the credentials of ${this.table} are for ${this.origin} only`,
        'access',
        url,
      )
    }
    const verb = method.toUpperCase()
    if (!READ_METHODS.has(verb)) {
      throw new TableError(`${verb} ${url}: not signed: storage of ${this.table} is only read`, 'access', url)
    }
    const held = await this.credentials.current()
    this.ledger.signed(url, held.generation)
    const sent = this.target ? this.target.origin + url.slice(this.origin.length) : url
    if (this.keys.size > MAX_SIGNING_KEYS) this.keys.clear() // one key per secret and day: renewals add up
    const signer = new AwsV4Signer({
      method: verb,
      url: sent,
      headers: amzHeaders(headers),
      accessKeyId: held.credentials.accessKeyId,
      secretAccessKey: held.credentials.secretAccessKey,
      sessionToken: held.credentials.sessionToken,
      service: 's3',
      region: this.target?.region ?? this.region,
      cache: this.keys,
      datetime: amzDate(this.now()),
    })
    const signed = await signer.sign()
    const out: Record<string, string> = {}
    signed.headers.forEach((value, name) => {
      out[name] = value
    })
    return { url: sent, headers: out }
  }

  /**
   * Follows S3's answer that the bucket lives in another region (a 301 PermanentRedirect or 307
   * TemporaryRedirect with `x-amz-bucket-region`): from then on
   * every request is signed for that region and sent to the bucket's endpoint there. Only on AWS
   * hosts, and only to the endpoint computed from the table's own host (same bucket, same
   * provider): a Location or `<Endpoint>` naming anything else refuses the redirect (false).
   */
  async redirected(url: string, _status: number, headers: Record<string, string>, body: string): Promise<boolean> {
    const region = headers['x-amz-bucket-region']
    const moved = region ? s3RegionalUrl(`${this.origin}/`, region) : undefined
    if (!region || !moved || originOf(url) !== this.origin) return false
    const origin = new URL(moved).origin
    const named = headers.location ?? xmlText(body, 'Endpoint')
    if (named !== undefined && originOf(/^https?:\/\//i.test(named) ? named : `https://${named}`) !== origin)
      return false
    if (this.target?.origin === origin) return false // already there: asking again would loop
    this.target = { origin, region }
    return true
  }

  /**
   * Renews the credentials when storage refused them as expired (S3 answers `ExpiredToken` with
   * 400 or 403): resolves true when the request should be signed and sent again. Other refusals
   * (a missing grant, a bad signature) resolve false: new credentials from the same source would
   * be refused the same way.
   *
   * @throws TableError('access') naming the table when renewing fails (see RenewingCredentials)
   */
  async rejected(url: string, status: number, body: string): Promise<boolean> {
    // S3 answers a HEAD with the status only: a bare 400 to temporary credentials is read as
    // ExpiredToken (S3's other 400s to a signed HEAD, InvalidToken and a malformed Authorization,
    // fail again after one renewal, and then with a clear error).
    const bareHead400 = status === 400 && body.trim() === '' && this.credentials.temporary
    if (!isExpiredAnswer(status, body) && !bareHead400) return false
    const generation = this.ledger.rejected(url) ?? this.credentials.generation
    await this.credentials.renewRejected(generation)
    return true
  }
}

/**
 * Whether an S3 error answer says the credentials expired: 400/401/403 with `<Code>ExpiredToken</Code>`
 * or `TokenRefreshRequired`, or `AccessDenied` whose message says "expired".
 */
export function isExpiredAnswer(status: number, body: string): boolean {
  if (status !== 400 && status !== 401 && status !== 403) return false
  const code = xmlText(body, 'Code')
  if (code !== undefined && EXPIRED_CODES.has(code)) return true
  return code === 'AccessDenied' && /expired/i.test(xmlText(body, 'Message') ?? '')
}

function xmlText(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>\\s*([^<]*?)\\s*</${tag}>`).exec(xml)?.[1]
}

/** The request headers that must be signed: the x-amz-* ones. */
function amzHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (/^x-amz-/i.test(name)) out[name] = value
  return out
}

/** ISO 8601 basic format, as SigV4 wants it: 20130524T000000Z. */
function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, '')
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'null'
  }
}
