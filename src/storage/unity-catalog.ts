/**
 * Unity Catalog credential vending: a table's name → its storage root and short-lived S3
 * credentials for reading it, vended again whenever the resolver renews them. The catalog's
 * bearer token goes to the catalog only; storage sees the vended credentials only.
 *
 * Reference: the Unity Catalog OSS REST API (unitycatalog/unitycatalog, `api/all.yaml`):
 * `GET /tables/{full_name}` (TableInfo: storage_location, table_id, data_source_format) and
 * `POST /temporary-table-credentials` ({table_id, operation} → TemporaryCredentials:
 * aws_temp_credentials, expiration_time in ms). Errors are `{error_code, message}`.
 */
import { send } from '../table/http.ts'
import { TableError, type HttpOptions, type TableErrorCode } from '../table/types.ts'
import { isS3Location, s3TableUrl } from './s3-location.ts'
import type { CredentialProvider, S3Credentials } from './types.ts'

/** The REST API's path under the server's base URL. */
const API_PATH = 'api/2.1/unity-catalog/'

/** Where a catalog table is and how to ask for it. */
export interface UnityCatalogOptions {
  /** The catalog's base URL, e.g. `http://localhost:8080/`; a URL already ending in `api/2.1/unity-catalog` is kept. */
  endpoint: string
  /** Bearer token; empty: no Authorization header (an open test server). */
  token: string
  /** Three-part name, `catalog.schema.table`. */
  table: string
  /** Endpoint that serves the table's bucket at its root (s3-location.ts); default AWS. */
  s3Endpoint?: string
  /** Region of the table's bucket, for its AWS URL; default us-east-1. */
  region?: string
  /** The catalog requests' fetch, timeout (ms, default 10 000) and attempts; see HttpOptions. */
  http?: Pick<HttpOptions, 'fetch' | 'timeoutMs' | 'attempts' | 'backoffMs' | 'allowOrigins' | 'allowInsecureHttp'>
}

/** A catalog table opened for reading. */
export interface UnityCatalogTable {
  /** The three-part name. */
  name: string
  /** The catalog's id of the table. */
  tableId: string
  /** The table root as the catalog has it (`s3://…`). */
  storageLocation: string
  /** The table root URL the reader opens, ending in '/'. */
  tableUrl: string
  /** Vends fresh READ credentials on every call. */
  provider: CredentialProvider
}

/** The catalog's TableInfo, the fields read here. */
interface TableInfo {
  table_id?: string
  storage_location?: string
  data_source_format?: string
}

/** The catalog's TemporaryCredentials, the fields read here. */
interface TemporaryCredentials {
  aws_temp_credentials?: { access_key_id?: string; secret_access_key?: string; session_token?: string }
  azure_user_delegation_sas?: unknown
  gcp_oauth_token?: unknown
  expiration_time?: number
}

/**
 * Looks the table up and returns its root URL with a provider that vends credentials for it.
 *
 * @throws TableError naming the table and the catalog: 'not-a-table' (404), 'http' (401 token
 *   refused, 403 no grant, other statuses, timeouts), 'unsupported-feature' (not a Delta table,
 *   storage other than S3)
 */
export async function openUnityCatalogTable(opts: UnityCatalogOptions): Promise<UnityCatalogTable> {
  const catalog = new CatalogClient(opts)
  const info = await catalog.table()
  const tableUrl = tableUrlOf(catalog, info.storageLocation, opts)
  return { name: opts.table, ...info, tableUrl, provider: () => catalog.vend(info.tableId) }
}

/**
 * A provider that vends READ credentials for `opts.table`, looking its id up on the first call
 * (for a worker that was handed the table's access, not the opened table).
 */
export function unityCatalogProvider(opts: UnityCatalogOptions): CredentialProvider {
  const catalog = new CatalogClient(opts)
  let tableId: Promise<string> | undefined
  return async () => {
    tableId ??= catalog.table().then(t => t.tableId)
    try {
      return await catalog.vend(await tableId)
    } catch (error) {
      tableId = undefined // a failed lookup is asked again on the next renewal
      throw error
    }
  }
}

/** The catalog's two calls, with errors that name the table and the catalog. */
class CatalogClient {
  private readonly base: string

  constructor(private readonly opts: UnityCatalogOptions) {
    this.base = apiBase(opts.endpoint)
    if (!/^[^.]+\.[^.]+\.[^.]+$/.test(opts.table)) {
      throw new RangeError(`Unity Catalog table '${opts.table}': expected catalog.schema.table`)
    }
  }

  /** GET the table's info: its id and storage root. */
  async table(): Promise<{ tableId: string; storageLocation: string }> {
    const info = (await this.call('GET', `tables/${encodeURIComponent(this.opts.table)}`)) as TableInfo
    const format = info.data_source_format
    if (format !== undefined && format.toUpperCase() !== 'DELTA') {
      throw this.error(`is a ${format} table, not Delta`, 'unsupported-feature')
    }
    if (typeof info.table_id !== 'string' || typeof info.storage_location !== 'string') {
      throw this.error('the catalog answered without table_id or storage_location', 'bad-response')
    }
    return { tableId: info.table_id, storageLocation: info.storage_location }
  }

  /** POST for temporary READ credentials of the table. */
  async vend(tableId: string): Promise<S3Credentials> {
    const body = { table_id: tableId, operation: 'READ' }
    const answer = (await this.call('POST', 'temporary-table-credentials', body)) as TemporaryCredentials
    const aws = answer.aws_temp_credentials
    if (!aws) {
      const other = answer.azure_user_delegation_sas ? 'Azure' : answer.gcp_oauth_token ? 'Google Cloud' : undefined
      throw this.error(
        other
          ? `the catalog vends ${other} credentials; only S3 is supported`
          : 'the catalog vended no AWS credentials',
        other ? 'unsupported-feature' : 'bad-response',
      )
    }
    if (!aws.access_key_id || !aws.secret_access_key) {
      throw this.error('the vended credentials lack access_key_id or secret_access_key', 'bad-response')
    }
    const expiration = answer.expiration_time
    return {
      accessKeyId: aws.access_key_id,
      secretAccessKey: aws.secret_access_key,
      sessionToken: aws.session_token || undefined,
      expiration: typeof expiration === 'number' && Number.isFinite(expiration) ? expiration : undefined,
    }
  }

  /** One API call: JSON in and out, bounded in time, never following a redirect (it would carry the token). */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const url = this.base + path
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (this.opts.token) headers.Authorization = `Bearer ${this.opts.token}`
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    const init: RequestInit = {
      method,
      headers,
      redirect: 'error',
      body: body === undefined ? undefined : JSON.stringify(body),
    }
    let res: Response
    try {
      // The catalog the user named is the calls' own origin: an allow-list need not repeat it.
      res = await send(url, init, this.opts.http ?? {}, this.base)
    } catch (error) {
      throw this.error(`${method} ${path} failed: ${this.scrub((error as Error).message)}`, 'http')
    }
    const text = await res.text()
    if (!res.ok) throw this.statusError(method, path, res.status, text)
    try {
      return JSON.parse(text)
    } catch {
      throw this.error(`${method} ${path}: the catalog's answer is not JSON`, 'bad-response')
    }
  }

  private statusError(method: string, path: string, status: number, text: string): TableError {
    const what =
      status === 401
        ? 'the catalog refused the token'
        : status === 403
          ? `no grant to read it (${method} ${path})`
          : status === 404
            ? 'no such table in the catalog'
            : `${method} ${path} answered ${status}`
    return this.error(
      `${what} (${status}${serverMessage(text, this.scrub.bind(this))})`,
      status === 404 ? 'not-a-table' : 'http',
    )
  }

  private error(message: string, code: TableErrorCode): TableError {
    return new TableError(`Unity Catalog table ${this.opts.table} at ${displayUrl(this.base)}: ${message}`, code)
  }

  /** `text` without the token, should a server or runtime quote it. */
  scrub(text: string): string {
    return this.opts.token ? text.split(this.opts.token).join('REDACTED') : text
  }
}

/** The table root URL of a catalog storage location (S3 only). */
function tableUrlOf(catalog: CatalogClient, location: string, opts: UnityCatalogOptions): string {
  if (!isS3Location(location)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(location)?.[1] ?? location
    throw new TableError(
      `Unity Catalog table ${opts.table}: its storage is ${scheme}:, only s3:// is supported`,
      'unsupported-feature',
    )
  }
  try {
    return s3TableUrl(location, { endpoint: opts.s3Endpoint, region: opts.region })
  } catch (error) {
    throw new TableError(
      `Unity Catalog table ${opts.table}: ${catalog.scrub((error as Error).message)}`,
      'bad-response',
    )
  }
}

/** `: ERROR_CODE: message` from a catalog error body, or '' when it has none. */
function serverMessage(text: string, scrub: (s: string) => string): string {
  try {
    const body = JSON.parse(text) as { error_code?: unknown; message?: unknown }
    const parts = [body.error_code, body.message].filter(p => typeof p === 'string' && p !== '')
    return parts.length ? `: ${scrub(parts.join(': ').slice(0, 500))}` : ''
  } catch {
    return ''
  }
}

/** The API base URL (ending in '/') for a server base URL. */
function apiBase(endpoint: string): string {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new RangeError(`Unity Catalog endpoint '${endpoint}' is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`Unity Catalog endpoint '${displayUrl(endpoint)}' is not an http(s) URL`)
  }
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`
  return url.origin + (path.endsWith(`/${API_PATH}`) ? path : path + API_PATH)
}

/** A URL as errors show it: no user info, query or fragment. */
function displayUrl(url: string): string {
  try {
    const u = new URL(url)
    return u.origin + u.pathname
  } catch {
    return url.replace(/[?#].*$/, '')
  }
}
