/**
 * Delta Sharing profile files: what a provider hands a recipient. Version 1 carries a bearer token
 * (optionally with its expiry); version 2 (`type: oauth_client_credentials`) carries an OAuth
 * client that fetches short-lived tokens. Parsed and checked here before any request is sent.
 */
import { TableError } from '../table/types.ts'

/** A bearer-token profile (`shareCredentialsVersion` 1). */
export interface BearerProfile {
  shareCredentialsVersion: 1
  /** Sharing server URL, ending in '/'. */
  endpoint: string
  bearerToken: string
  /** ISO-8601 expiry of the token; absent: it does not expire. */
  expirationTime?: string
}

/** An OAuth client-credentials profile (`shareCredentialsVersion` 2). */
export interface OAuthProfile {
  shareCredentialsVersion: 2
  type: 'oauth_client_credentials'
  endpoint: string
  tokenEndpoint: string
  clientId: string
  clientSecret: string
  scope?: string
}

/**
 * A profile whose server is reached through the local proxy of `npm start` / the CLI: the proxy
 * holds the credentials, the page holds none (version 0 is ours, never in a file).
 */
export interface ProxiedProfile {
  shareCredentialsVersion: 0
  /** The proxy's endpoint for this profile. */
  endpoint: string
  /** The sharing server behind the proxy (what manifests record). */
  upstream?: string
}

/** Any profile the client can use. */
export type SharingProfile = BearerProfile | OAuthProfile | ProxiedProfile

/**
 * Parses a profile file's text. `source` names it in errors (a path, or "the chosen profile").
 * Refuses text that is not JSON, an unknown version or type, missing fields, and an expired token
 * (naming its expiry), all before any request.
 */
export function parseProfile(text: string, source: string, now = Date.now()): BearerProfile | OAuthProfile {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw profileError(source, `is not JSON (${(error as Error).message})`)
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw profileError(source, 'is not a JSON object')
  const o = json as Record<string, unknown>
  const version = o.shareCredentialsVersion
  if (version === 1 && (o.type === undefined || o.type === 'bearer_token')) {
    const profile: BearerProfile = {
      shareCredentialsVersion: 1,
      endpoint: endpointOf(o, source),
      bearerToken: text1(o, 'bearerToken', source),
    }
    if (o.expirationTime !== undefined && o.expirationTime !== null) {
      profile.expirationTime = text1(o, 'expirationTime', source)
    }
    checkNotExpired(profile, source, now)
    return profile
  }
  if (version === 2 && o.type === 'oauth_client_credentials') {
    const profile: OAuthProfile = {
      shareCredentialsVersion: 2,
      type: 'oauth_client_credentials',
      endpoint: endpointOf(o, source),
      tokenEndpoint: httpUrl(text1(o, 'tokenEndpoint', source), 'tokenEndpoint', source),
      clientId: text1(o, 'clientId', source),
      clientSecret: text1(o, 'clientSecret', source),
    }
    if (typeof o.scope === 'string' && o.scope) profile.scope = o.scope
    return profile
  }
  const what =
    version === 1 || version === 2
      ? `has shareCredentialsVersion ${version} with type ${JSON.stringify(o.type)}`
      : `has shareCredentialsVersion ${JSON.stringify(version)}`
  throw profileError(
    source,
    `${what}; snaptrain reads version 1 (bearer token) and version 2 with type oauth_client_credentials`,
  )
}

/** Refuses a bearer profile whose `expirationTime` has passed (or does not parse), naming it. */
export function checkNotExpired(profile: SharingProfile, source: string, now = Date.now()): void {
  if (profile.shareCredentialsVersion !== 1 || profile.expirationTime === undefined) return
  const at = Date.parse(profile.expirationTime)
  if (!Number.isFinite(at))
    throw profileError(source, `has an expirationTime that is not ISO-8601: ${profile.expirationTime}`)
  if (at <= now) {
    throw profileError(source, `expired at ${new Date(at).toISOString()}; ask the provider for a new profile`)
  }
}

function endpointOf(o: Record<string, unknown>, source: string): string {
  const url = httpUrl(text1(o, 'endpoint', source), 'endpoint', source)
  return url.endsWith('/') ? url : `${url}/`
}

function httpUrl(value: string, field: string, source: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw profileError(source, `has a ${field} that is not an absolute URL: ${value}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw profileError(source, `has a ${field} that is not http(s): ${value}`)
  }
  return url.href
}

function text1(o: Record<string, unknown>, field: string, source: string): string {
  const value = o[field]
  if (typeof value !== 'string' || value === '') throw profileError(source, `has no ${field} (a non-empty string)`)
  return value
}

function profileError(source: string, what: string): TableError {
  return new TableError(`profile ${source} ${what}`, 'sharing', source)
}
