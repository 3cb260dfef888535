/**
 * Governed tables on the command line, wherever `--table` is taken:
 * - `<profile-file>#<share>.<schema>.<table>`: a Delta Sharing table (profile-file.ts);
 * - `s3://bucket/prefix`: S3 (or an S3-compatible store) signed with the credentials the AWS
 *   tools would use (aws-credentials.ts: environment, then the shared files);
 * - `uc:<catalog>.<schema>.<table>`: a Unity Catalog table, read with the catalog's vended
 *   credentials (SNAPTRAIN_UC_ENDPOINT and SNAPTRAIN_UC_TOKEN).
 * In Node the run reads them through the access's resolver. The page of train, predict and sweep
 * reaches them through this process's local proxies on its own origin, so no token, key or
 * secret enters the page.
 */
import { isShareAddress, shareTableUrl, shareCoordinatesOf } from '../sharing/index.ts'
import { openTableAccess, tableResolver } from '../storage/access.ts'
import { isS3Location } from '../storage/s3-location.ts'
import type { TableAccess } from '../storage/types.ts'
import type { HttpOptions } from '../table/types.ts'
import { sharingProxy } from '../serve/sharing-proxy.ts'
import { storageProxy } from '../serve/storage-proxy.ts'
import { awsS3Access, awsSettings } from './aws-credentials.ts'
import { sharedTableArg } from './profile-file.ts'
import { TableArgError, type TableLocation } from './table-url.ts'

/** A governed table as a command reads it. */
export interface GovernedTable {
  /** The table's stable URL (a share's REST resource, the bucket URL of an S3 or catalog table). */
  url: string
  /** How the user named it, for output and the manifest. */
  display: string
  access: TableAccess
}

/** True when `input` names a governed table rather than a folder or an http(s) URL. */
export function isGovernedInput(input: string): boolean {
  return isShareAddress(input) || isS3Location(input) || /^uc:/i.test(input)
}

/** The HTTP options a command's flags set for its governed tables' own requests and proxies. */
export type GovernedHttp = Pick<HttpOptions, 'allowOrigins' | 'allowInsecureHttp' | 'timeoutMs'>

/**
 * Opens the governed table `input` names (checks its profile or credentials; for a catalog, asks
 * where it is, with `http`'s allow-list and plain-HTTP opt-in).
 */
export async function governedTable(
  input: string,
  flag: string,
  env = process.env,
  http: GovernedHttp = {},
): Promise<GovernedTable> {
  if (isShareAddress(input)) {
    const shared = await sharedTableArg(input, flag)
    // The run's one session (cached per access) talks to the server with the command's allow-list and opt-in.
    tableResolver(shared.url, shared.access, { http })
    return { url: shared.url, display: shared.display, access: shared.access }
  }
  if (isS3Location(input)) {
    const aws = await awsSettings(env)
    const access = await awsS3Access(aws)
    const { tableUrl } = await openTableAccess(access, input)
    // The cached resolver renews through the AWS settings (re-reading env and files), not the snapshot taken now.
    tableResolver(tableUrl, access, { provider: aws.provider, http })
    return { url: tableUrl, display: input, access }
  }
  const table = input.slice(3)
  const endpoint = env.SNAPTRAIN_UC_ENDPOINT
  const token = env.SNAPTRAIN_UC_TOKEN
  if (!endpoint || !token) {
    throw new TableArgError(`${flag}: ${input}: set SNAPTRAIN_UC_ENDPOINT (the catalog's URL) and SNAPTRAIN_UC_TOKEN`)
  }
  const aws = await awsSettings(env).catch(() => undefined)
  const access: TableAccess = {
    kind: 'unity-catalog',
    endpoint: endpoint.endsWith('/') ? endpoint : `${endpoint}/`,
    token,
    table,
    ...(aws?.region ? { region: aws.region } : {}),
    ...(aws?.endpoint ? { s3Endpoint: aws.endpoint } : {}),
  }
  // Where the table is comes from the catalog; the run's resolver (cached here, reached by httpFor) vends credentials.
  const { tableUrl } = await openTableAccess(access, undefined, { http })
  tableResolver(tableUrl, access, { http })
  return { url: tableUrl, display: input, access }
}

const pageViews = new WeakMap<TableAccess, Map<string, { table: string; access?: TableAccess }>>()

/**
 * The governed table as the page on `origin` reads it: a share through the sharing proxy (a
 * proxied profile, no token), signed storage through the storage proxy (a plain HTTP table).
 * The proxies send with `http`: what the page may reach is what the run's flags allow, checked
 * on the URLs the proxies actually fetch (pre-signed URLs, redirects).
 */
export function pageView(
  url: string,
  access: TableAccess,
  origin: string,
  http: GovernedHttp = {},
): { table: string; access?: TableAccess } {
  let byUrl = pageViews.get(access)
  if (!byUrl) pageViews.set(access, (byUrl = new Map()))
  const known = byUrl.get(`${origin} ${url}`)
  if (known) return known
  let view: { table: string; access?: TableAccess }
  if (access.kind === 'share') {
    if (access.profile.shareCredentialsVersion === 0) return { table: url, access }
    const id = sharingProxy.register(access.profile, access.source, http)
    const endpoint = sharingProxy.endpoint(origin, id)
    const coords = shareCoordinatesOf(url, access.profile.endpoint)
    view = {
      table: shareTableUrl(endpoint, coords),
      access: {
        kind: 'share',
        profile: { shareCredentialsVersion: 0, endpoint, upstream: access.profile.endpoint },
        source: access.source,
      },
    }
  } else {
    const id = storageProxy.register(url, tableResolver(url, access, { http }), http)
    view = { table: storageProxy.tableUrl(origin, id) }
  }
  byUrl.set(`${origin} ${url}`, view)
  return view
}

/** A governed table as a TableLocation (scan): nothing to serve or close. */
export async function governedLocation(
  input: string,
  flag = '--table',
  http: GovernedHttp = {},
): Promise<TableLocation> {
  const t = await governedTable(input, flag, process.env, http)
  return { url: t.url, display: t.display, access: t.access, localize: m => m, close: async () => {} }
}

/**
 * `config` as the page at `pageUrl` runs it: a governed table replaced by its page view, whose
 * proxies send with the config's allow-list and plain-HTTP opt-in (what the command's flags set).
 */
export function forPage<
  C extends { table: string; access?: TableAccess; allowOrigins?: string[]; http?: { allowInsecureHttp?: boolean } },
>(config: C, pageUrl: string): C {
  if (!config.access) return config
  const view = pageView(config.table, config.access, new URL(pageUrl).origin, configHttp(config))
  const { access: _unused, ...rest } = config
  return { ...rest, table: view.table, ...(view.access ? { access: view.access } : {}) } as C
}

function configHttp(config: { allowOrigins?: string[]; http?: { allowInsecureHttp?: boolean } }): GovernedHttp {
  return {
    ...(config.allowOrigins ? { allowOrigins: config.allowOrigins } : {}),
    ...(config.http?.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  }
}
