/**
 * The one list of table sources. Every place that takes a table address (the CLI's `--table`, the
 * page's table picker) or rebuilds a governed table's resolver from its plain-data access (the
 * run, rank and loader workers, the page API) reads it here; nothing else tells the kinds apart.
 * A new source (an Iceberg REST catalog, say) is one folder under src/sources/ plus one entry below.
 *
 * The descriptions are import-free: a source's module (its protocol client) is loaded the first
 * time one of its addresses is opened or one of its accesses is read.
 */
import type { HttpOptions, OpenOptions, Snapshot, CommitInfo, ResolvedRequest, UrlResolver } from '../table/types.ts'
import type { TableEntry } from './folder/catalog.ts'
import type { TableAccess } from '../storage/types.ts'
import { isShareAddress } from '../sharing/address.ts'
import { isS3Location } from '../storage/s3-location.ts'
import {
  TableArgError,
  type AccessOptions,
  type OpenContext,
  type OpenedAccess,
  type OpenedTable,
  type PageProxies,
  type PageView,
  type SourceDescription,
  type SourceHttp,
  type TableSource,
} from './types.ts'

export type * from './types.ts'
export { TableArgError } from './types.ts'

/** Any scheme with an authority (`gs://…`, `abfss://…`): an address no source recognises is refused, not read as a folder. */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i

/** The sources, in the order an address is recognised (the last one takes local folders). */
const SOURCES: SourceDescription[] = [
  {
    kind: 'sharing',
    form: "Delta Sharing '<profile-file>#<share>.<schema>.<table>'",
    accessKind: 'share',
    recognise: isShareAddress,
    recordedAddress: t => t.url, // its REST URL at its own server; the profile's path is the user's
    servesSnapshots: true,
    load: async () => (await import('./sharing/source.ts')).sharingSource as TableSource,
  },
  {
    kind: 's3',
    form: "S3 's3://<bucket>/<prefix>'",
    accessKind: 's3',
    recognise: isS3Location,
    load: async () => (await import('./s3/source.ts')).s3Source as TableSource,
  },
  {
    kind: 'unity-catalog',
    form: "Unity Catalog 'uc:<catalog>.<schema>.<table>'",
    accessKind: 'unity-catalog',
    recognise: address => /^uc:/i.test(address),
    load: async () => (await import('./unity-catalog/source.ts')).unityCatalogSource as TableSource,
  },
  {
    kind: 'http',
    form: "HTTP 'http(s)://…'",
    recognise: address => /^https?:\/\//i.test(address),
    recordedAddress: t => t.url,
    load: async () => (await import('./folder/source.ts')).httpSource,
  },
  {
    kind: 'folder',
    form: 'a local folder (a path or file: URL)',
    recognise: address => !URL_SCHEME.test(address) || /^file:/i.test(address),
    load: async () => (await import('./folder/source.ts')).folderSource,
  },
]

/** The known sources' names, in registry order. */
export function sourceKinds(): string[] {
  return SOURCES.map(s => s.kind)
}

/**
 * Adds `source` to the registry ahead of the built-in ones (so it may claim addresses they would
 * take); returns the function that removes it again. The built-in sources are the entries above.
 */
export function registerSource(source: SourceDescription): () => void {
  if (SOURCES.some(s => s.kind === source.kind))
    throw new RangeError(`table source '${source.kind}' is already registered`)
  if (source.accessKind && SOURCES.some(s => s.accessKind === source.accessKind)) {
    throw new RangeError(`table access kind '${source.accessKind}' already has a source`)
  }
  SOURCES.unshift(source)
  return () => {
    const i = SOURCES.indexOf(source)
    if (i >= 0) SOURCES.splice(i, 1)
    loaded.delete(source)
  }
}

/** The source whose address `address` is; TableArgError naming `flag`, the address and the known kinds otherwise. */
export function sourceOf(address: string, flag = '--table'): SourceDescription {
  const source = SOURCES.find(s => s.recognise(address))
  if (!source) {
    throw new TableArgError(
      `${flag}: '${address}' is no table address this build knows (known: ${SOURCES.map(s => s.form).join('; ')})`,
    )
  }
  return source
}

/** The source of a governed table's access; RangeError naming the kind when none serves it (a newer coordinator's). */
export function sourceOfAccess(access: TableAccess): SourceDescription {
  const kind = (access as { kind?: unknown }).kind
  const source = SOURCES.find(s => s.accessKind !== undefined && s.accessKind === kind)
  if (!source) throw new RangeError(`table access of kind '${kind}' is not supported`)
  return source
}

const loaded = new Map<SourceDescription, TableSource>()
const loading = new Map<SourceDescription, Promise<TableSource>>()

/** The source's module, loaded once. */
function loadSource(source: SourceDescription): Promise<TableSource> {
  let p = loading.get(source)
  if (!p) {
    p = source.load().then(m => {
      loaded.set(source, m)
      return m
    })
    p.catch(() => loading.delete(source)) // a later call tries again
    loading.set(source, p)
  }
  return p
}

/** Opens the table `address` names through its source (errors name `ctx.flag`). */
export async function openTable(address: string, ctx: OpenContext): Promise<OpenedTable> {
  const opened = await (await loadSource(sourceOf(address, ctx.flag))).open(address, ctx)
  if (opened.access && opened.resolver) {
    let byTable = cached.get(opened.access)
    if (!byTable) cached.set(opened.access, (byTable = new Map()))
    byTable.set(opened.url, opened.resolver)
  }
  return opened
}

/**
 * Opens a governed table from its plain-data access (the page API's way, a test's): `location` is
 * where the table is when the access does not say (an S3 location or URL, a share's table URL).
 */
export async function openTableAccess(
  access: TableAccess,
  location?: string,
  opts: AccessOptions = {},
): Promise<OpenedAccess> {
  const source = sourceOfAccess(access)
  const m = await loadSource(source)
  if (!m.openAccess) throw new RangeError(`table source '${source.kind}' opens no access`)
  return m.openAccess(access, location, opts)
}

/**
 * The address a run records for a table it opened (TrainConfig.tableAddress), never this
 * process's loopback URL for it: as its source says (a governed table as the user named it, a
 * share as its REST URL); a folder as its `file:` URL (`fileUrl` of its path), an http(s) URL as given.
 */
export function recordedAddress(
  t: { url: string; path?: string; access?: TableAccess },
  fileUrl: (path: string) => string,
): string {
  if (t.access) {
    const source = sourceOfAccess(t.access)
    return source.recordedAddress ? source.recordedAddress(t) : (t.path ?? t.url)
  }
  return t.path ? fileUrl(t.path) : t.url
}

/**
 * The resolver for the table at `tableUrl` (http(s), ending in '/', as in the Snapshot) reached
 * through `access`, in this thread (a worker rebuilds it from the plain-data access it was
 * handed). Nothing is fetched until the first request; the source's module is loaded then if it
 * is not yet. RangeError, at once, for an access kind no source serves.
 */
export function accessResolver(tableUrl: string, access: TableAccess, opts: AccessOptions = {}): UrlResolver {
  const source = sourceOfAccess(access)
  const ready = loaded.get(source)
  const build = (m: TableSource): UrlResolver => {
    if (!m.resolver) throw new RangeError(`table source '${source.kind}' builds no resolver`)
    return m.resolver(tableUrl, access, opts)
  }
  return ready ? build(ready) : new LazyResolver(() => loadSource(source).then(build), source.servesSnapshots === true)
}

const cached = new WeakMap<TableAccess, Map<string, UrlResolver>>()

/**
 * accessResolver, once per access object and table in this thread: the snapshot a run opens and
 * every reader after it share one resolver (its URLs, credentials and renewals).
 */
export function tableResolver(tableUrl: string, access: TableAccess, opts: AccessOptions = {}): UrlResolver {
  let byTable = cached.get(access)
  if (!byTable) cached.set(access, (byTable = new Map()))
  const root = tableUrl.endsWith('/') ? tableUrl : `${tableUrl}/`
  let resolver = byTable.get(root)
  if (!resolver) byTable.set(root, (resolver = accessResolver(root, access, opts)))
  return resolver
}

/**
 * The governed table at `url` as the CLI's page on `origin` reads it, through `proxies` (no
 * token, key or secret enters the page). The table was opened in this process (openTable), so
 * its source is loaded.
 */
export function pageView(
  url: string,
  access: TableAccess,
  origin: string,
  http: SourceHttp,
  proxies: PageProxies,
): PageView {
  const source = sourceOfAccess(access)
  const m = loaded.get(source)
  if (!m?.pageView) throw new RangeError(`table source '${source.kind}' has no page view (open the table first)`)
  return m.pageView(url, access, { origin, http, proxies, resolver: () => tableResolver(url, access, { http }) })
}

/** The tables under the folder URL `baseUrl` (absolute), listed by the source of that address. */
export async function listTables(baseUrl: string, opts: HttpOptions = {}): Promise<TableEntry[]> {
  const source = sourceOf(baseUrl, 'listing')
  const m = await loadSource(source)
  if (!m.list) throw new TableArgError(`listing ${baseUrl}: a ${source.form} cannot list its tables`)
  return m.list(baseUrl, opts)
}

/** A resolver whose source module loads on first use (a worker that has not opened one of its tables yet). */
class LazyResolver implements UrlResolver {
  private inner?: Promise<UrlResolver>
  openSnapshot?: (tableUrl: string, opts: OpenOptions) => Promise<Snapshot>
  listCommits?: (tableUrl: string) => Promise<CommitInfo[]>

  constructor(
    private readonly build: () => Promise<UrlResolver>,
    servesSnapshots: boolean,
  ) {
    if (servesSnapshots) {
      this.openSnapshot = async (tableUrl, opts) => {
        const r = await this.get()
        if (!r.openSnapshot) throw new RangeError('the source serves no snapshots')
        return r.openSnapshot(tableUrl, opts)
      }
      this.listCommits = async tableUrl => {
        const r = await this.get()
        if (!r.listCommits) throw new RangeError('the source serves no history')
        return r.listCommits(tableUrl)
      }
    }
  }

  private get(): Promise<UrlResolver> {
    if (!this.inner) {
      const inner = this.build()
      inner.catch(() => {
        if (this.inner === inner) this.inner = undefined // the next request loads again
      })
      this.inner = inner
    }
    return this.inner
  }

  async resolve(url: string, method: string, headers: Record<string, string>): Promise<ResolvedRequest> {
    return (await this.get()).resolve(url, method, headers)
  }

  async rejected(url: string, status: number, body: string): Promise<boolean> {
    return (await this.get()).rejected(url, status, body)
  }

  async redirected(url: string, status: number, headers: Record<string, string>, body: string): Promise<boolean> {
    const r = await this.get()
    return r.redirected ? r.redirected(url, status, headers, body) : false
  }
}
