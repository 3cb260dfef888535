/**
 * The Authorization header a sharing server gets: the profile's bearer token, or an OAuth access
 * token from the profile's token endpoint (client-credentials grant, client authenticated with
 * HTTP Basic as the reference Python client does), fetched on first use and renewed before it
 * expires. The header goes only to the sharing endpoint (rest.ts); file URLs never see it.
 */
import { explainedStatusError, send } from '../table/http.ts'
import { TableError, type HttpOptions } from '../table/types.ts'
import { checkNotExpired, type SharingProfile } from './profile.ts'

/** Renew an OAuth token this long before it expires, or at half its life when that is sooner. */
const RENEW_AHEAD_MS = 60_000

/** Hands out the Authorization header for the sharing endpoint. */
export class SharingAuth {
  private token?: { value: string; renewAt: number }
  private pending?: Promise<string>

  /**
   * @param profile the parsed profile (a proxied one sends no header: the proxy adds it)
   * @param source the profile's name in errors
   * @param http timeouts and the injected fetch for the token endpoint
   */
  constructor(
    readonly profile: SharingProfile,
    private readonly source: string,
    private readonly http: HttpOptions = {},
  ) {}

  /** The header value, or undefined for a proxied profile. */
  async header(now = Date.now()): Promise<string | undefined> {
    const p = this.profile
    if (p.shareCredentialsVersion === 0) return undefined
    if (p.shareCredentialsVersion === 1) {
      checkNotExpired(p, this.source, now)
      return `Bearer ${p.bearerToken}`
    }
    if (this.token && now < this.token.renewAt) return `Bearer ${this.token.value}`
    this.pending ??= this.fetchToken(now).finally(() => {
      this.pending = undefined
    })
    return `Bearer ${await this.pending}`
  }

  /** Forget the OAuth token (after a 401): the next header fetches a new one. False for a fixed token. */
  invalidate(): boolean {
    if (this.profile.shareCredentialsVersion !== 2) return false
    this.token = undefined
    return true
  }

  private async fetchToken(now: number): Promise<string> {
    const p = this.profile
    if (p.shareCredentialsVersion !== 2) throw new Error('unreachable: not an OAuth profile')
    const body = new URLSearchParams({ grant_type: 'client_credentials' })
    if (p.scope) body.set('scope', p.scope)
    const res = await send(
      p.tokenEndpoint,
      {
        method: 'POST',
        headers: {
          Accept: 'application/json',
          Authorization: `Basic ${btoa(`${p.clientId}:${p.clientSecret}`)}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: body.toString(),
      },
      { ...this.http, resolver: undefined, headers: undefined },
      // The profile names the token endpoint as it names the sharing endpoint: an allow-list need not repeat it.
      p.tokenEndpoint,
    )
    if (!res.ok) {
      const error = await explainedStatusError('POST', p.tokenEndpoint, res)
      throw new TableError(
        `profile ${this.source}: the token endpoint refused the client: ${error.message}`,
        'sharing',
        p.tokenEndpoint,
      )
    }
    const json = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown }
    const expiresIn = Number(json.expires_in)
    if (typeof json.access_token !== 'string' || !json.access_token || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw new TableError(
        `profile ${this.source}: the token endpoint ${p.tokenEndpoint} did not answer an access_token with a positive expires_in`,
        'sharing',
        p.tokenEndpoint,
      )
    }
    const lifeMs = expiresIn * 1000
    this.token = { value: json.access_token, renewAt: now + lifeMs - Math.min(RENEW_AHEAD_MS, lifeMs / 2) }
    return json.access_token
  }
}
