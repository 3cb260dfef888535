/**
 * A governed table's access (types.ts: TableAccess) turned into what the reader needs: the table
 * root URL and the UrlResolver for `HttpOptions.resolver`. The coordinator opens the table with
 * openTableAccess; a rank or loader worker is handed the same plain-data TableAccess and the
 * snapshot's table URL, and builds its own resolver with accessResolver.
 */
import type { HttpOptions, UrlResolver } from '../table/types.ts'
import { isS3Location, s3TableUrl } from './s3-location.ts'
import { S3Resolver } from './s3-resolver.ts'
import { shareSession } from '../sharing/access.ts'
import type { CredentialProvider, S3Access, S3Credentials, TableAccess, UnityCatalogAccess } from './types.ts'
import { openUnityCatalogTable, unityCatalogProvider, type UnityCatalogOptions } from './unity-catalog.ts'

/** Options of accessResolver and openTableAccess. */
export interface AccessOptions {
  /**
   * Where renewed credentials come from, instead of the access's own way. For 's3' the resolver
   * signs with `access.credentials` first and asks this for newer ones (a worker may pass a proxy
   * of the coordinator's provider); without it, it cannot renew them. For 'unity-catalog',
   * default: vend from the catalog.
   */
  provider?: CredentialProvider
  /** fetch and timeouts (ms) for the catalog's own requests. */
  http?: Pick<HttpOptions, 'fetch' | 'timeoutMs' | 'attempts' | 'backoffMs' | 'allowOrigins' | 'allowInsecureHttp'>
  /** Clock, ms since the epoch. */
  now?: () => number
}

/** A governed table, opened: the URL the reader opens and the resolver its requests pass. */
export interface OpenedAccess {
  /** Table root URL, ending in '/'. */
  tableUrl: string
  resolver: UrlResolver
}

/**
 * The resolver for the table at `tableUrl` (http(s), ending in '/', as in the Snapshot) reached
 * through `access`. Nothing is fetched until the first request is signed.
 */
export function accessResolver(tableUrl: string, access: TableAccess, opts: AccessOptions = {}): UrlResolver {
  switch (access.kind) {
    case 's3':
      return new S3Resolver({
        tableUrl,
        region: access.region,
        provider:
          (opts.provider ?? access.refresh)
            ? seeded(access, (opts.provider ?? access.refresh)!, opts.now ?? Date.now)
            : staticProvider(access),
        now: opts.now,
      })
    case 'unity-catalog':
      return new S3Resolver({
        tableUrl,
        region: access.region,
        table: access.table,
        provider: opts.provider ?? unityCatalogProvider(catalogOptions(access, opts)),
        now: opts.now,
      })
    case 'share':
      return shareSession(access, tableUrl, opts.http)
    default:
      return unknownKind(access)
  }
}

const cached = new WeakMap<TableAccess, Map<string, UrlResolver>>()

/**
 * accessResolver, once per access object and table in this thread: the snapshot a run opens and
 * every reader after it share one resolver (its URLs, credentials and renewals).
 */
export function tableResolver(tableUrl: string, access: TableAccess, opts: AccessOptions = {}): UrlResolver {
  let byTable = cached.get(access)
  if (!byTable) cached.set(access, (byTable = new Map()))
  const root = withSlash(tableUrl)
  let resolver = byTable.get(root)
  if (!resolver) byTable.set(root, (resolver = accessResolver(root, access, opts)))
  return resolver
}

/**
 * Opens a governed table. `location` is the table's root for 's3' (`s3://bucket/prefix`, mapped
 * with `access.endpoint` and `access.region`, or an http(s) URL); for 'unity-catalog' the catalog
 * says where the table is and `location` is not used.
 *
 * @throws TableError from the catalog (unity-catalog.ts); RangeError for a location that is not one
 */
export async function openTableAccess(
  access: TableAccess,
  location?: string,
  opts: AccessOptions = {},
): Promise<OpenedAccess> {
  switch (access.kind) {
    case 's3': {
      if (location === undefined) throw new RangeError("an 's3' table access needs the table's location")
      const tableUrl = isS3Location(location)
        ? s3TableUrl(location, { endpoint: access.endpoint, region: access.region })
        : withSlash(location)
      return { tableUrl, resolver: accessResolver(tableUrl, access, opts) }
    }
    case 'unity-catalog': {
      const table = await openUnityCatalogTable(catalogOptions(access, opts))
      const resolver = new S3Resolver({
        tableUrl: table.tableUrl,
        region: access.region,
        table: access.table,
        provider: opts.provider ?? table.provider,
        now: opts.now,
      })
      return { tableUrl: table.tableUrl, resolver }
    }
    case 'share': {
      if (location === undefined) throw new RangeError("a 'share' table access needs the table's URL")
      const tableUrl = withSlash(location)
      return { tableUrl, resolver: tableResolver(tableUrl, access, opts) }
    }
    default:
      return unknownKind(access)
  }
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

function catalogOptions(access: UnityCatalogAccess, opts: AccessOptions): UnityCatalogOptions {
  return {
    endpoint: access.endpoint,
    token: access.token,
    table: access.table,
    s3Endpoint: access.s3Endpoint,
    region: access.region,
    http: opts.http,
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

/** A kind this build does not know (a newer coordinator's access, say): refused by name. */
function unknownKind(access: never): never {
  throw new RangeError(`table access of kind '${(access as { kind?: unknown }).kind}' is not supported`)
}
