/**
 * The OAuth token endpoint of the Delta Sharing test server (RFC 6749 §4.4, client credentials):
 * it issues bearer tokens that the API accepts until they expire.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type Answer, type Context, json, safeDecode } from './sharing-common.ts'

/** `POST /oauth/token`: a bearer token for valid client credentials, given in the form body or HTTP Basic. */
export function issueToken(ctx: Context, req: IncomingMessage, body: string): Answer {
  const oauth = ctx.opts.oauth
  const noStore = { 'Cache-Control': 'no-store' }
  if (!oauth)
    return json(404, { error: 'not_found', error_description: 'no token endpoint: the server has no oauth option' })
  if (req.method !== 'POST')
    return json(405, { error: 'invalid_request', error_description: 'use POST' }, { Allow: 'POST' })
  const form = new URLSearchParams(body)
  const basic = basicCredentials(req.headers.authorization)
  const clientId = basic ? basic[0] : form.get('client_id')
  const clientSecret = basic ? basic[1] : form.get('client_secret')
  if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' }, noStore)
  if (clientId !== oauth.clientId || clientSecret !== oauth.clientSecret) {
    // RFC 6749 §5.2: a client that authenticated with Basic gets the challenge back.
    return json(
      401,
      { error: 'invalid_client' },
      { ...noStore, ...(basic && { 'WWW-Authenticate': 'Basic realm="oauth"' }) },
    )
  }
  const scope = form.get('scope')
  if (scope && oauth.scope && scope !== oauth.scope) return json(400, { error: 'invalid_scope' }, noStore)
  const lifetime = oauth.tokenLifetimeS ?? 3600
  const token = randomBytes(24).toString('base64url')
  ctx.issued.set(token, Date.now() + lifetime * 1000)
  const answer = {
    access_token: token,
    token_type: 'bearer',
    expires_in: lifetime,
    ...(oauth.scope && { scope: oauth.scope }),
  }
  return json(200, answer, noStore)
}

function basicCredentials(header: string | undefined): [string, string] | undefined {
  const m = /^Basic\s+(\S+)\s*$/i.exec(header ?? '')
  if (!m) return undefined
  const text = Buffer.from(m[1], 'base64').toString()
  const colon = text.indexOf(':')
  if (colon < 0) return undefined
  // RFC 6749 §2.3.1 form-encodes id and secret before joining them (most clients have nothing to encode).
  return [safeDecode(text.slice(0, colon)), safeDecode(text.slice(colon + 1))]
}
