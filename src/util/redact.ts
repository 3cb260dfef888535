/**
 * Secrets out of text people see or share: signed-URL query values and URL passwords. One
 * redactor serves manifests (the table URL and file paths), progress lines and every line the CLI
 * prints (src/cli/io.ts), so a pre-signed URL that fails shows where it pointed, not its signature.
 */

/**
 * Query parameters whose values stay readable: the S3 listing's own (a listing URL in an error
 * should still say what it listed). They never carry a credential. Every other value is redacted,
 * since a signing scheme we do not know by name must not leak either.
 */
const PLAIN_PARAMS = new Set(['list-type', 'prefix', 'delimiter', 'max-keys', 'start-after', 'encoding-type'])

/**
 * Parameter names that carry secrets in the common signing schemes (AWS SigV4, Azure SAS, GCS
 * V4, generic tokens). Their values are redacted wherever they follow `?` or `&`, even in text
 * that is not an absolute URL (a relative file path from a log, say).
 */
const SECRET_PARAMS = [
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
  'sig',
  'se',
  'sp',
  'sv',
  'st',
  'spr',
  'skoid',
  'sktid',
  'skt',
  'ske',
  'sks',
  'skv',
  'signature',
  'token',
  'access_token',
  'key',
  'api_key',
  'apikey',
  'password',
  'secret',
]
const SECRET_QUERY = new RegExp(`([?&](?:${SECRET_PARAMS.join('|')})=)([^&#\\s'"\`<>]*)`, 'gi')

/** An absolute URL in running text: a scheme, `//`, then everything up to a space or quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>]+/gi

/** Punctuation that ends a sentence after a URL rather than belonging to it. */
const TRAILING = /[.,;:!)\]}]+$/

/**
 * `url` without secrets: each query parameter's value becomes 'REDACTED' (names are kept, so it
 * still reads as a signed URL; the S3 listing's parameters stay as they are) and a `user:password@`
 * part is dropped. Text that is not an absolute URL (a relative path) is returned as is, minus
 * its query values.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?')
  let out = url
  if (q >= 0) {
    const hash = url.indexOf('#', q)
    const query = url
      .slice(q + 1, hash < 0 ? undefined : hash)
      .split('&')
      .map(redactParam)
    out = `${url.slice(0, q)}?${query.join('&')}${hash < 0 ? '' : url.slice(hash)}`
  }
  return out.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, '$1')
}

function redactParam(p: string): string {
  const eq = p.indexOf('=')
  if (eq < 0) return p
  const name = p.slice(0, eq)
  return PLAIN_PARAMS.has(safeDecode(name).toLowerCase()) ? p : `${name}=REDACTED`
}

/**
 * `text` with every absolute URL in it passed through redactUrl, and the values of well-known
 * secret parameters (`?sig=`, `&X-Amz-Signature=`, …) redacted wherever else they appear.
 */
export function redactUrls(text: string): string {
  const urls = text.replace(URL_IN_TEXT, match => {
    const trail = TRAILING.exec(match)?.[0] ?? ''
    return redactUrl(match.slice(0, match.length - trail.length)) + trail
  })
  return urls.replace(SECRET_QUERY, (_all, head: string, value: string) => {
    const trail = TRAILING.exec(value)?.[0] ?? ''
    return `${head}REDACTED${trail}`
  })
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
