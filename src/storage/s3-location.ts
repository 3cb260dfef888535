/**
 * `s3://bucket/prefix` locations (as catalogs and Spark write them) to the HTTP URL the reader
 * opens, and the signing region of such a URL.
 *
 * The rule:
 * - with an endpoint (`AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` style, e.g. `http://127.0.0.1:9000`),
 *   the endpoint serves the bucket at its root: `s3://b/tables/clicks` → `<endpoint>/tables/clicks/`.
 *   The bucket name is not part of the URL, so one endpoint stands for one bucket (a test server,
 *   an S3-compatible store set up with virtual-hosted buckets, a proxy).
 * - without one, AWS virtual-hosted style: `https://<bucket>.s3.<region>.amazonaws.com/tables/clicks/`
 *   (region default us-east-1).
 *
 * Why the bucket is always at the origin's root: the reader lists `_delta_log/` with ListObjectsV2
 * at the origin's root (table/listing.ts), which is where a virtual-hosted bucket answers it.
 */

/** The schemes Spark, Hadoop and catalogs use for S3 locations. */
const S3_SCHEMES = new Set(['s3:', 's3a:', 's3n:'])

/**
 * S3 bucket naming rules: lowercase letters, digits, dots and hyphens, alphanumeric at both ends, at
 * most 63. AWS also wants at least 3; shorter names are let through for test servers and
 * S3-compatible stores, which are laxer.
 */
const BUCKET = /^[a-z0-9](?:[a-z0-9.-]{0,61}[a-z0-9])?$/

const DEFAULT_REGION = 'us-east-1'

/** How to reach a bucket over HTTP. */
export interface S3LocationOptions {
  /** Endpoint that serves the bucket at its root; default AWS virtual-hosted style. */
  endpoint?: string
  /** Region of the AWS endpoint (ignored with `endpoint`); default us-east-1. */
  region?: string
}

/** Whether `location` is an `s3://` (or `s3a://`, `s3n://`) location. */
export function isS3Location(location: string): boolean {
  return /^s3[an]?:\/\//i.test(location)
}

/**
 * The table root URL for an S3 location, ending in '/'. The key prefix keeps its %-encoding
 * (characters a URL cannot hold raw, like spaces, are encoded).
 *
 * @throws RangeError naming `location` when it is not an S3 location with a valid bucket name, or
 *   (without an endpoint) when the bucket name has dots, which HTTPS virtual-hosted style cannot serve
 */
export function s3TableUrl(location: string, opts: S3LocationOptions = {}): string {
  const { bucket, key } = parseS3Location(location)
  if (opts.endpoint !== undefined) return endpointBase(opts.endpoint) + key
  // Why dots are refused: AWS's certificate is for *.s3.<region>.amazonaws.com, one label deep.
  if (bucket.includes('.')) {
    throw new RangeError(
      `${location}: bucket name '${bucket}' has dots, which HTTPS virtual-hosted S3 cannot serve; ` +
        'give an endpoint that serves the bucket at its root',
    )
  }
  return `https://${bucket}.s3.${opts.region ?? DEFAULT_REGION}.amazonaws.com/${key}`
}

/** Bucket and key prefix (no leading '/', ending in '/' unless empty) of an S3 location. */
function parseS3Location(location: string): { bucket: string; key: string } {
  let url: URL
  try {
    url = new URL(location)
  } catch {
    throw new RangeError(`${location}: not an s3:// location`)
  }
  if (!S3_SCHEMES.has(url.protocol.toLowerCase())) throw new RangeError(`${location}: not an s3:// location`)
  if (url.search || url.hash || url.username || url.password || url.port) {
    throw new RangeError(`${location}: an s3:// location has only a bucket and a key prefix`)
  }
  if (!BUCKET.test(url.hostname)) throw new RangeError(`${location}: '${url.hostname}' is not an S3 bucket name`)
  const path = url.pathname.replace(/^\/+/, '')
  return { bucket: url.hostname, key: path === '' || path.endsWith('/') ? path : `${path}/` }
}

/** `endpoint` as an origin plus a path ending in '/'. */
function endpointBase(endpoint: string): string {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new RangeError(`S3 endpoint '${endpoint}' is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`S3 endpoint '${endpoint}' is not an http(s) URL`)
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new RangeError(`S3 endpoint '${endpoint}' must be a plain origin (and path)`)
  }
  return url.origin + (url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`)
}

/**
 * The AWS region an S3 URL's host names (`<bucket>.s3.<region>.amazonaws.com`, the dualstack and
 * `s3-<region>` forms, `s3.amazonaws.com` for us-east-1), or undefined for any other host (an
 * S3-compatible store: the caller says its region).
 */
export function s3Region(url: string): string | undefined {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return undefined
  }
  const m = /(?:^|\.)s3[.-](?:dualstack\.)?([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com(?:\.cn)?$/.exec(host)
  if (m) return m[1]
  return /(?:^|\.)s3\.amazonaws\.com$/.test(host) ? DEFAULT_REGION : undefined
}

/**
 * `url` with its AWS S3 host moved to `region`, same bucket and key (`<bucket>.s3.<region>.amazonaws.com`,
 * dualstack and `.cn` kept), or undefined when `url` is not on an AWS S3 host or `region` is not a
 * region name. Why computed, never taken from the redirect: S3 names a bucket's own region with
 * `x-amz-bucket-region`, and the only endpoint a signed request may move to is this one.
 */
export function s3RegionalUrl(url: string, region: string): string | undefined {
  if (!/^[a-z]{2}(?:-[a-z]+)+-\d+$/.test(region) || s3Region(url) === undefined) return undefined
  const u = new URL(url)
  const m = /^(?:(.+)\.)?s3(?:[.-](dualstack\.)?[a-z]{2}(?:-[a-z]+)+-\d+)?\.amazonaws\.com(\.cn)?$/.exec(u.hostname)
  if (!m) return undefined
  u.hostname = `${m[1] ? `${m[1]}.` : ''}s3.${m[2] ?? ''}${region}.amazonaws.com${m[3] ?? ''}`
  return u.href
}
