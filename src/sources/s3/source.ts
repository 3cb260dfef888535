/**
 * S3 (or an S3-compatible store): `s3://bucket/prefix`, signed with SigV4 (storage/s3-resolver.ts)
 * with the credentials the user's AWS tools would use (the CLI's host finds them), or with an
 * S3Access handed over as plain data (a worker, the page API).
 */
import { s3TableUrl, isS3Location } from '../../storage/s3-location.ts'
import { S3Resolver } from '../../storage/s3-resolver.ts'
import type { AwsSettings, CredentialProvider, S3Access, S3Credentials } from '../../storage/types.ts'
import type { UrlResolver } from '../../table/types.ts'
import type { AccessOptions, OpenedAccess, TableSource } from '../types.ts'
import { storagePageView } from './page-view.ts'

/** A serialisable S3 access for workers: the settings plus the credentials as of now. */
export async function s3Access(settings: AwsSettings): Promise<S3Access> {
  return { kind: 's3', region: settings.region, endpoint: settings.endpoint, credentials: await settings.provider() }
}

function resolver(tableUrl: string, access: S3Access, opts: AccessOptions): UrlResolver {
  const provider = opts.provider ?? access.refresh
  return new S3Resolver({
    tableUrl,
    region: access.region,
    provider: provider ? seeded(access, provider, opts.now ?? Date.now) : staticProvider(access),
    now: opts.now,
  })
}

/** The table root URL of `location`: an `s3://` location mapped with the access's endpoint and region, or an http(s) URL. */
function tableUrlOf(access: S3Access, location: string | undefined): string {
  if (location === undefined) throw new RangeError("an 's3' table access needs the table's location")
  if (isS3Location(location)) return s3TableUrl(location, { endpoint: access.endpoint, region: access.region })
  return location.endsWith('/') ? location : `${location}/`
}

export const s3Source: TableSource<S3Access> = {
  async open(address, { host, http }) {
    const aws = await host.aws()
    const access = await s3Access(aws)
    const url = tableUrlOf(access, address)
    // The run's resolver renews through the AWS settings (re-reading env and files), not the snapshot taken now.
    return {
      url,
      display: address,
      path: address,
      access,
      resolver: resolver(url, access, { provider: aws.provider, http }),
      localize: m => m,
      close: async () => {},
    }
  },
  resolver,
  async openAccess(access, location, opts): Promise<OpenedAccess> {
    const tableUrl = tableUrlOf(access, location)
    return { tableUrl, resolver: resolver(tableUrl, access, opts) }
  },
  pageView: storagePageView,
}

/**
 * The credentials an 's3' access carries, as a provider. Handing out the same ones again on
 * renewal lets the resolver tell "expired, and nothing newer here" (a clear error) from a fault.
 */
function staticProvider(access: S3Access): CredentialProvider {
  const credentials = { ...access.credentials }
  return async () => credentials
}

/**
 * `provider`, except that the first call answers the credentials the access carries while they
 * are valid: a worker signs its first request without a round trip to the coordinator.
 */
function seeded(access: S3Access, provider: CredentialProvider, now: () => number): CredentialProvider {
  let first: S3Credentials | undefined = { ...access.credentials }
  return async () => {
    const carried = first
    first = undefined
    return carried && (carried.expiration ?? Infinity) > now() ? carried : provider()
  }
}
