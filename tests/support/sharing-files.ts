/**
 * Pre-signed file URLs of the Delta Sharing test server and the route that serves them as S3
 * serves a pre-signed GET: signature and expiry checks, a single Range, and S3's XML errors.
 */
import { createHash, randomBytes } from 'node:crypto'
import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { resolve, sep } from 'node:path'
import { parseRange } from '../../src/serve/range.ts'
import {
  type Answer,
  type Context,
  escapeXml,
  FILES,
  hmac,
  isFile,
  safeDecode,
  sameText,
  tableKey,
} from './sharing-common.ts'

/** `<origin>/files/<share>.<schema>.<table>/<path, each segment %-encoded>?X-Sharing-Expires=<ms>&X-Sharing-Signature=<hex>`. */
export function presign(ctx: Context, key: string, rel: string, expires: number): string {
  const path = [key, ...prefixOf(ctx, rel), ...rel.split('/')].map(encodeURIComponent).join('/')
  return `${ctx.origin}${FILES}${path}?X-Sharing-Expires=${expires}&X-Sharing-Signature=${signature(ctx, key, rel, String(expires))}`
}

/** The folders of the `filePrefix` option before a file's path: the prefix, then a folder of the path's digest. */
function prefixOf(ctx: Context, rel: string): string[] {
  const prefix = ctx.opts.filePrefix
  return prefix ? [...prefix.split('/'), hmac(ctx.secret, `folder\n${rel}`).slice(0, 12)] : []
}

/** Signs the decoded path, so a client that re-encodes a URL differently still matches. */
function signature(ctx: Context, key: string, rel: string, expires: string): string {
  return hmac(ctx.secret, `${key}/${rel}\n${expires}`)
}

/**
 * GET of a pre-signed URL, answered as S3 answers one: no Authorization needed (and refused beside
 * the signature), single Range, XML errors. HEAD fails as on S3, where the signature covers the
 * method and a URL signed for GET does not sign HEAD.
 */
export async function serveFile(ctx: Context, req: IncomingMessage, url: URL): Promise<Answer> {
  const mismatch = 'The request signature we calculated does not match the signature you provided.'
  if (req.method === 'HEAD') return { status: 403, headers: {} }
  if (req.method !== 'GET') return s3Error(403, 'SignatureDoesNotMatch', mismatch)
  if (req.headers.authorization) {
    const message =
      'Only one auth mechanism allowed; only the X-Sharing-Signature query parameter or the Authorization ' +
      'header should be specified'
    return s3Error(400, 'InvalidArgument', message)
  }
  const [key, ...all] = url.pathname.slice(FILES.length).split('/').map(safeDecode)
  const folders = ctx.opts.filePrefix ? ctx.opts.filePrefix.split('/').length + 1 : 0
  const segments = all.slice(folders)
  const rel = segments.join('/')
  if (all.slice(0, folders).join('/') !== prefixOf(ctx, rel).join('/'))
    return s3Error(404, 'NoSuchKey', 'The specified key does not exist.')
  const expires = url.searchParams.get('X-Sharing-Expires')
  const given = url.searchParams.get('X-Sharing-Signature')
  if (!expires || !given) {
    const message = 'Query-string authentication requires the X-Sharing-Signature and X-Sharing-Expires parameters'
    return s3Error(403, 'AccessDenied', message)
  }
  if (!sameText(signature(ctx, key, rel, expires), given)) return s3Error(403, 'SignatureDoesNotMatch', mismatch)
  const now = Date.now()
  if (Number(expires) < now) {
    const times = { Expires: new Date(Number(expires)).toISOString(), ServerTime: new Date(now).toISOString() }
    return s3Error(403, 'AccessDenied', 'Request has expired', times)
  }
  const spec = ctx.opts.tables.find(t => tableKey(t) === key)
  const root = spec ? resolve(spec.dir) : ''
  const file = resolve(root, ...segments)
  if (!spec || !file.startsWith(root + sep) || !isFile(file))
    return s3Error(404, 'NoSuchKey', 'The specified key does not exist.')
  const bytes = await readFile(file)
  const headers: Record<string, string> = {
    'Content-Type': 'application/octet-stream',
    'Accept-Ranges': 'bytes',
    'Last-Modified': statSync(file).mtime.toUTCString(),
    ETag: `"${createHash('md5').update(bytes).digest('hex')}"`,
  }
  const span = parseRange(req.headers.range, bytes.length)
  if (span === 'unsatisfiable') {
    const answer = s3Error(416, 'InvalidRange', 'The requested range is not satisfiable')
    return { ...answer, headers: { ...answer.headers, 'Content-Range': `bytes */${bytes.length}` } }
  }
  if (!span) return { status: 200, headers, body: bytes }
  const [start, end] = span
  headers['Content-Range'] = `bytes ${start}-${end}/${bytes.length}`
  return { status: 206, headers, body: bytes.subarray(start, end + 1) }
}

function s3Error(status: number, code: string, message: string, extra: Record<string, string> = {}): Answer {
  const fields = Object.entries(extra)
    .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
    .join('')
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${fields}` +
    `<RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`
  return { status, headers: { 'Content-Type': 'application/xml' }, body }
}
