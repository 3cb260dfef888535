/**
 * Credentials for one table's storage, fetched lazily from a CredentialProvider, cached, renewed
 * ahead of their expiration and again when storage answers that they expired. However many
 * requests need credentials at once, one renewal is in flight.
 */
import { TableError } from '../table/types.ts'
import type { CredentialProvider, S3Credentials } from './types.ts'

/** Renew at most this long (ms) before the expiration, the margin AWS SDKs use. */
const AHEAD_MS = 5 * 60_000
/**
 * A rejection of credentials renewed because of a rejection, this soon (ms) after they came, means
 * the source hands out credentials storage does not take; no real lifetime is that short.
 */
const FRESH_MS = 1_000
/** After a failed renewal ahead of expiry, wait at most this long (ms) before asking again. */
const RETRY_AHEAD_MS = 30_000

/** Secrets remembered for scrubbing messages: those of the last four generations. */
const MAX_SECRETS = 8

/** Credentials held, numbered so that a rejection can be blamed on the ones it concerns. */
export interface HeldCredentials {
  credentials: S3Credentials
  /** 1 for the first credentials, +1 for each renewal. */
  generation: number
  /** When these came from the provider, ms since the epoch. */
  obtainedAt: number
  /** When to renew them, ms since the epoch; Infinity without an expiration. */
  renewAt: number
  /** Why they were fetched: the first request, ahead of expiry, or storage's rejection. */
  cause: 'first' | 'ahead' | 'rejected'
}

/** What RenewingCredentials needs. */
export interface RenewingOptions {
  provider: CredentialProvider
  /** How error messages name the table (its URL, or a catalog name). */
  table: string
  /** The table root URL, carried by the errors. */
  tableUrl: string
  /** Clock, ms since the epoch. */
  now?: () => number
}

/**
 * The credentials of one table's storage over a run. Errors name the table and the cause, never a
 * credential: messages from the provider are scrubbed of the secrets seen.
 */
export class RenewingCredentials {
  private held?: HeldCredentials
  private pending?: Promise<HeldCredentials>
  /** Earliest time (ms) to ask again after a failed renewal ahead of expiry. */
  private retryAheadAt = 0
  /** Secrets seen, so that a provider's error message that quotes one is scrubbed. */
  private readonly secrets = new Set<string>()
  private readonly now: () => number

  constructor(private readonly opts: RenewingOptions) {
    this.now = opts.now ?? Date.now
  }

  /** Whether the credentials held now are temporary (have a session token), the only kind that expires. */
  get temporary(): boolean {
    return this.held?.credentials.sessionToken !== undefined
  }

  /** The generation of the credentials held now (0: none yet). */
  get generation(): number {
    return this.held?.generation ?? 0
  }

  /**
   * The credentials to sign with now, fetched or renewed first when there are none or they are
   * due. A renewal ahead of expiry that fails keeps the old credentials while they are valid.
   *
   * @throws TableError('access') naming the table when there are no usable credentials
   */
  async current(): Promise<HeldCredentials> {
    const held = this.held
    const now = this.now()
    if (held && now < held.renewAt) return held
    if (this.pending) return this.pending
    if (held && now < this.retryAheadAt && stillValid(held, now)) return held
    return this.renew(held ? 'ahead' : 'first')
  }

  /**
   * Storage refused credentials of `generation` as expired: renew, unless that has happened since
   * (then the request just needs signing again) or is under way (then it is shared).
   *
   * @throws TableError('access') naming the table when the provider fails, gives the same
   *   credentials again, or the credentials it just gave were refused as well
   */
  async renewRejected(generation: number): Promise<void> {
    if (this.pending) {
      await this.pending
      return
    }
    const held = this.held
    if (!held || generation < held.generation) return
    if (held.cause === 'rejected' && this.now() - held.obtainedAt < FRESH_MS) {
      throw this.error('storage refused the credentials just renewed as expired too (is this machine’s clock right?)')
    }
    await this.renew('rejected')
  }

  /** `text` with every secret these credentials have had replaced by 'REDACTED'. */
  scrub(text: string): string {
    let out = text
    for (const secret of this.secrets) out = out.split(secret).join('REDACTED')
    return out
  }

  private renew(cause: HeldCredentials['cause']): Promise<HeldCredentials> {
    const previous = this.held
    const pending = this.fetchFresh(cause, previous).finally(() => {
      if (this.pending === pending) this.pending = undefined
    })
    this.pending = pending
    return pending
  }

  private async fetchFresh(
    cause: HeldCredentials['cause'],
    previous: HeldCredentials | undefined,
  ): Promise<HeldCredentials> {
    let credentials: S3Credentials
    try {
      credentials = checked(await this.opts.provider(), this.now())
    } catch (error) {
      const now = this.now()
      // An outage of the credential source need not stop a run while the old credentials work.
      if (cause === 'ahead' && previous && stillValid(previous, now)) {
        const left = (previous.credentials.expiration ?? Infinity) - now
        this.retryAheadAt = now + Math.min(RETRY_AHEAD_MS, left / 4)
        return previous
      }
      const why = cause === 'first' ? 'cannot get storage credentials' : 'cannot renew the storage credentials'
      throw this.error(`${why}: ${this.scrub(error instanceof Error ? error.message : String(error))}`)
    }
    if (cause === 'rejected' && previous && sameCredentials(credentials, previous.credentials)) {
      throw this.error('storage refused the credentials as expired and their source has no newer ones')
    }
    for (const secret of [credentials.secretAccessKey, credentials.sessionToken]) if (secret) this.secrets.add(secret)
    // The last few generations' secrets are all a message can still quote; a long run renews often.
    for (const old of this.secrets) if (this.secrets.size > MAX_SECRETS) this.secrets.delete(old)
    const obtainedAt = this.now()
    const held: HeldCredentials = {
      credentials,
      generation: (previous?.generation ?? 0) + 1,
      obtainedAt,
      renewAt: renewalTime(obtainedAt, credentials.expiration),
      cause,
    }
    this.held = held
    return held
  }

  private error(message: string): TableError {
    return new TableError(`${this.opts.table}: ${message}`, 'access', this.opts.tableUrl)
  }
}

/**
 * When to renew credentials obtained at `obtainedAt` (ms) that expire at `expiration` (ms): 5 min
 * ahead, or halfway through their lifetime when that is shorter; never without an expiration.
 */
export function renewalTime(obtainedAt: number, expiration: number | undefined): number {
  if (expiration === undefined) return Infinity
  return expiration - Math.min(AHEAD_MS, Math.max(0, expiration - obtainedAt) / 2)
}

function stillValid(held: HeldCredentials, now: number): boolean {
  return now < (held.credentials.expiration ?? Infinity)
}

/** The provider's answer, refused (without quoting it) when it cannot sign anything. */
function checked(c: S3Credentials, now: number): S3Credentials {
  if (typeof c?.accessKeyId !== 'string' || c.accessKeyId === '') throw new Error('the answer has no accessKeyId')
  if (typeof c.secretAccessKey !== 'string' || c.secretAccessKey === '') {
    throw new Error('the answer has no secretAccessKey')
  }
  if (c.expiration !== undefined && !(c.expiration > now)) {
    const when = Number.isFinite(c.expiration) ? new Date(c.expiration).toISOString() : String(c.expiration)
    throw new Error(`the credentials it gave expired at ${when}`)
  }
  return c
}

function sameCredentials(a: S3Credentials, b: S3Credentials): boolean {
  return a.accessKeyId === b.accessKeyId && a.secretAccessKey === b.secretAccessKey && a.sessionToken === b.sessionToken
}
