/**
 * What a table source is (sources/index.ts lists them): one way of naming and reaching a table —
 * a folder or http(s) URL, S3, a Unity Catalog table, a Delta Sharing share. A source recognises
 * its addresses, opens one to the URL the reader opens (plus, for a governed table, the plain-data
 * TableAccess that workers carry), builds the resolver for such an access in any thread, says how
 * the CLI's page reaches the table (its local proxies), and lists tables where it can.
 *
 * Sources hold no Node code: what only the command line can do (serve a folder, read a profile
 * file or the AWS settings, run the page's proxies) it lends them as a SourceHost and PageProxies.
 */
import type { SharingProxy } from '../serve/sharing-proxy.ts'
import type { StorageProxy } from '../serve/storage-proxy.ts'
import type { ShareAccess } from '../sharing/access.ts'
import type { TableEntry } from './folder/catalog.ts'
import type { HttpOptions, UrlResolver } from '../table/types.ts'
import type { AwsSettings, CredentialProvider, TableAccess } from '../storage/types.ts'

/** A table address a command cannot use (unknown kind, missing folder, unset settings); the message names the flag. */
export class TableArgError extends Error {}

/** Options of a resolver built from an access (sources/index.ts accessResolver). */
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

/** The HTTP options a command's flags set for a governed table's own requests and proxies. */
export type SourceHttp = Pick<HttpOptions, 'allowOrigins' | 'allowInsecureHttp' | 'timeoutMs'>

/** A table a source opened for the duration of a command. */
export interface OpenedTable {
  /** Table root URL, ending in '/' (a loopback URL for a served folder). */
  url: string
  /** What to call the table in output: the absolute folder path, the URL, the address as named. */
  display: string
  /** The local folder served, or how the user named a governed table (its source's `recordedAddress` reads it). */
  path?: string
  /** A governed table's access: its resolver (accessResolver) reads the table. */
  access?: TableAccess
  /** Rewrites loopback URLs in a message to local file paths (identity for remote tables). */
  localize(message: string): string
  /** Stops what the open started (a loopback server); nothing for remote tables. */
  close(): Promise<void>
  /**
   * A governed table's resolver as the command reads it (its flags' HTTP options, its way of
   * renewing): the registry keeps it as the access's resolver for this table (tableResolver).
   */
  resolver?: UrlResolver
}

/** A governed table opened from its access: the URL the reader opens and the resolver its requests pass. */
export interface OpenedAccess {
  /** Table root URL, ending in '/'. */
  tableUrl: string
  resolver: UrlResolver
}

/** What the command line lends a source to open an address. */
export interface SourceHost {
  /** The command's environment variables. */
  env: Record<string, string | undefined>
  /** Serves the local folder `input` (a path or file: URL) on loopback; TableArgError naming `flag` unless a folder. */
  serveFolder(input: string, flag: string): Promise<OpenedTable>
  /** Reads and parses a Delta Sharing profile file; errors name `flag` and the file. */
  readProfile(path: string, flag: string): Promise<ShareAccess>
  /** Credentials, region and endpoint as the user's AWS tools find them. */
  aws(): Promise<AwsSettings>
}

/** How an address is opened: the flag that named it, the host, the HTTP options of the command. */
export interface OpenContext {
  flag: string
  host: SourceHost
  http: SourceHttp
}

/** The local proxies of the CLI's page (src/serve), on the page's own origin. */
export interface PageProxies {
  sharing: Pick<SharingProxy, 'register' | 'endpoint'>
  storage: Pick<StorageProxy, 'register' | 'tableUrl'>
}

/** Where the CLI's page runs, for a source's page view. */
export interface PageContext {
  /** The page's origin. */
  origin: string
  /** The run's flags' allow-list and plain-HTTP opt-in: what the proxies may fetch. */
  http: SourceHttp
  proxies: PageProxies
  /** The run's resolver for the table (the one its snapshot reads through). */
  resolver(): UrlResolver
}

/** A governed table as the page reads it: its URL on the page's origin, and the access the page may hold. */
export interface PageView {
  table: string
  access?: TableAccess
}

/** A source's module (loaded lazily by the registry). */
export interface TableSource<A extends { kind: string } = TableAccess> {
  /** Opens `address` (one the source's description recognises). */
  open(address: string, ctx: OpenContext): Promise<OpenedTable>
  /** The resolver for `tableUrl` (ending in '/') reached through `access`; nothing is fetched yet. Governed sources only. */
  resolver?(tableUrl: string, access: A, opts: AccessOptions): UrlResolver
  /**
   * Opens a governed table from its access alone: `location` is where the table is when the
   * access does not say (an S3 location or URL, a share's table URL). Governed sources only.
   */
  openAccess?(access: A, location: string | undefined, opts: AccessOptions): Promise<OpenedAccess>
  /** The table at `url` as the CLI's page reaches it, through the page's proxies. Governed sources only. */
  pageView?(url: string, access: A, page: PageContext): PageView
  /** The tables under the folder URL `baseUrl`, where the source can list. */
  list?(baseUrl: string, opts: HttpOptions): Promise<TableEntry[]>
}

/** What the registry knows of a source without loading it. */
export interface SourceDescription {
  /** The source's name, in errors and help. */
  readonly kind: string
  /** How its addresses look, for the error that names the known kinds. */
  readonly form: string
  /** The TableAccess kind its resolver serves (governed sources); absent for plain HTTP. */
  readonly accessKind?: string
  /** True when `address` is one of this source's (checked in registry order). */
  recognise(address: string): boolean
  /**
   * The address a run records for a table of this source opened as `t` (never this process's
   * loopback URL for it). Default: `t.path` when the user named one, else `t.url`.
   */
  recordedAddress?(t: { url: string; path?: string }): string
  /**
   * True when the source's resolver opens snapshots itself (a share: the server answers the
   * snapshot), so a resolver built before the module is loaded defers openSnapshot to it.
   */
  readonly servesSnapshots?: boolean
  /** Loads the source's module. */
  load(): Promise<TableSource>
}
