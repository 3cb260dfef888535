/**
 * Profile files (src/sharing/profile.ts): version 1 (bearer token, optional expiry) and version 2
 * (OAuth client credentials) parse to exactly their fields; everything else is refused before any
 * request, as a TableError('sharing') that names the profile and what is wrong with it.
 */
import { describe, expect, it } from 'vitest'
import { checkNotExpired, parseProfile } from '../../../src/sharing/profile.ts'
import { TableError } from '../../../src/table/types.ts'

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0)
const SOURCE = 'shares/team.share'

function parse(value: unknown): ReturnType<typeof parseProfile> {
  return parseProfile(typeof value === 'string' ? value : JSON.stringify(value), SOURCE, NOW)
}

/** The error `fn` throws, checked to be a sharing TableError that names the profile. */
function refusal(fn: () => unknown): TableError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(TableError)
    const e = error as TableError
    expect(e.code).toBe('sharing')
    expect(e.message.startsWith(`profile ${SOURCE} `), e.message).toBe(true)
    return e
  }
  throw new Error('expected the profile to be refused')
}

describe('parseProfile: version 1 (bearer token)', () => {
  it('keeps the fields and ends the endpoint in /', () => {
    const profile = parse({ shareCredentialsVersion: 1, endpoint: 'https://sharing.example/api/v1', bearerToken: 'tk' })
    expect(profile).toEqual({
      shareCredentialsVersion: 1,
      endpoint: 'https://sharing.example/api/v1/',
      bearerToken: 'tk',
    })
    const slash = parse({ shareCredentialsVersion: 1, endpoint: 'http://127.0.0.1:8080/ds/', bearerToken: 'tk' })
    expect(slash.endpoint).toBe('http://127.0.0.1:8080/ds/')
  })

  it('accepts an explicit bearer_token type and a future expirationTime, and ignores a null one', () => {
    const later = new Date(NOW + 60_000).toISOString()
    const profile = parse({
      shareCredentialsVersion: 1,
      type: 'bearer_token',
      endpoint: 'https://s.example/',
      bearerToken: 'tk',
      expirationTime: later,
    })
    expect(profile).toMatchObject({ shareCredentialsVersion: 1, expirationTime: later })
    const none = parse({
      shareCredentialsVersion: 1,
      endpoint: 'https://s.example/',
      bearerToken: 'tk',
      expirationTime: null,
    })
    expect('expirationTime' in none).toBe(false)
  })

  it('refuses an expired token naming its expiry, and an expiry that is not a time', () => {
    const base = { shareCredentialsVersion: 1, endpoint: 'https://s.example/', bearerToken: 'tk' }
    const expired = refusal(() => parse({ ...base, expirationTime: '2025-06-01T11:59:59Z' }))
    expect(expired.message).toContain('expired at 2025-06-01T11:59:59.000Z')
    expect(expired.message).toContain('new profile')
    // The expiry instant itself is already too late.
    refusal(() => parse({ ...base, expirationTime: new Date(NOW).toISOString() }))
    expect(refusal(() => parse({ ...base, expirationTime: 'next tuesday' })).message).toContain('not ISO-8601')
  })
})

describe('parseProfile: version 2 (OAuth client credentials)', () => {
  const oauth = {
    shareCredentialsVersion: 2,
    type: 'oauth_client_credentials',
    endpoint: 'https://s.example/delta-sharing',
    tokenEndpoint: 'https://login.example/oauth/token',
    clientId: 'app',
    clientSecret: 'secret',
  }

  it('keeps the fields, with scope only when it is a non-empty string', () => {
    expect(parse(oauth)).toEqual({ ...oauth, endpoint: 'https://s.example/delta-sharing/' })
    expect(parse({ ...oauth, scope: 'read' })).toMatchObject({ scope: 'read' })
    expect('scope' in parse({ ...oauth, scope: '' })).toBe(false)
  })

  it('refuses missing client fields and a token endpoint that is not an http(s) URL', () => {
    for (const field of ['clientId', 'clientSecret', 'tokenEndpoint']) {
      const { [field]: _gone, ...rest } = oauth as Record<string, unknown>
      expect(refusal(() => parse(rest)).message).toContain(`has no ${field}`)
    }
    expect(refusal(() => parse({ ...oauth, tokenEndpoint: '/oauth/token' })).message).toContain(
      'tokenEndpoint that is not an absolute URL',
    )
    expect(refusal(() => parse({ ...oauth, tokenEndpoint: 'ftp://login.example/t' })).message).toContain(
      'tokenEndpoint that is not http(s)',
    )
  })

  it('refuses version 2 without the oauth type', () => {
    const { type: _t, ...untyped } = oauth
    expect(refusal(() => parse(untyped)).message).toContain('shareCredentialsVersion 2 with type undefined')
    expect(refusal(() => parse({ ...oauth, type: 'oauth_jwt' })).message).toContain('type "oauth_jwt"')
  })
})

describe('parseProfile: what is refused before any request', () => {
  it('text that is not a JSON object', () => {
    expect(refusal(() => parse('{ endpoint: ')).message).toContain('is not JSON')
    for (const text of ['[]', 'null', '"profile"', '3'])
      expect(refusal(() => parse(text)).message).toContain('JSON object')
  })

  it('unknown versions, naming the ones that are read', () => {
    for (const version of [3, '1', undefined]) {
      const e = refusal(() =>
        parse({ shareCredentialsVersion: version, endpoint: 'https://s.example/', bearerToken: 't' }),
      )
      expect(e.message).toContain(`shareCredentialsVersion ${JSON.stringify(version)}`)
      expect(e.message).toContain('version 1 (bearer token) and version 2')
    }
  })

  it('missing or empty fields and endpoints that are not absolute http(s) URLs', () => {
    expect(refusal(() => parse({ shareCredentialsVersion: 1, endpoint: 'https://s.example/' })).message).toContain(
      'has no bearerToken',
    )
    expect(refusal(() => parse({ shareCredentialsVersion: 1, endpoint: '', bearerToken: 't' })).message).toContain(
      'has no endpoint',
    )
    expect(refusal(() => parse({ shareCredentialsVersion: 1, endpoint: 42, bearerToken: 't' })).message).toContain(
      'has no endpoint',
    )
    expect(
      refusal(() => parse({ shareCredentialsVersion: 1, endpoint: 'sharing/', bearerToken: 't' })).message,
    ).toContain('endpoint that is not an absolute URL: sharing/')
    expect(
      refusal(() => parse({ shareCredentialsVersion: 1, endpoint: 'file:///tmp/x', bearerToken: 't' })).message,
    ).toContain('endpoint that is not http(s)')
  })
})

describe('checkNotExpired', () => {
  const bearer = { shareCredentialsVersion: 1 as const, endpoint: 'https://s.example/', bearerToken: 't' }

  it('passes a token without expiry or before it, and other profile kinds', () => {
    checkNotExpired(bearer, SOURCE, NOW)
    checkNotExpired({ ...bearer, expirationTime: new Date(NOW + 1).toISOString() }, SOURCE, NOW)
    checkNotExpired({ shareCredentialsVersion: 0, endpoint: 'http://127.0.0.1:1/p/' }, SOURCE, NOW)
  })

  it('refuses at and after the expiry, as of the time given', () => {
    const profile = { ...bearer, expirationTime: '2025-06-01T12:00:00Z' }
    checkNotExpired(profile, SOURCE, NOW - 1)
    expect(refusal(() => checkNotExpired(profile, SOURCE, NOW)).message).toContain(
      'expired at 2025-06-01T12:00:00.000Z',
    )
  })
})
