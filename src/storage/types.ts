/**
 * Types of signed cloud storage (src/storage): the credentials a table's storage is read with,
 * where they come from, and the serialisable description of a governed table's access that the
 * coordinator hands to rank and loader workers so they can open the same table themselves.
 */

import type { ShareAccess } from '../sharing/access.ts'

/** AWS credentials for SigV4 signing. Plain data: survives structured clone and JSON. */
export interface S3Credentials {
  accessKeyId: string
  secretAccessKey: string
  /** Present for temporary (STS or vended) credentials; sent as `X-Amz-Security-Token`. */
  sessionToken?: string
  /** When the credentials stop working, in ms since the epoch; absent: until storage says so. */
  expiration?: number
}

/**
 * Where credentials come from: called lazily the first time a request is signed, again ahead of
 * `expiration`, and again when storage answers that they expired. Each call should return the
 * freshest credentials the source has (re-read a file, re-vend from a catalog).
 */
export type CredentialProvider = () => Promise<S3Credentials>

/** What the CLI needs to reach S3 the way the user's AWS tools do (cli/aws-credentials.ts finds them). */
export interface AwsSettings {
  /** Reads the credentials again on every call. */
  provider: CredentialProvider
  /** AWS_REGION, AWS_DEFAULT_REGION, or the profile's `region`; undefined if none says. */
  region?: string
  /** AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, or the profile's `s3.endpoint_url` / `endpoint_url`. */
  endpoint?: string
  /** The profile in use. */
  profile: string
}

/** A table in S3 (or an S3-compatible store) read with credentials the caller holds. */
export interface S3Access {
  kind: 's3'
  /** Signing region; default from the bucket host (`*.s3.<region>.amazonaws.com`), else us-east-1. */
  region?: string
  /** The credentials as of now; a worker with no provider of its own signs with these. */
  credentials: S3Credentials
  /** Endpoint that serves the bucket at its root (s3-location.ts); default AWS virtual-hosted style. */
  endpoint?: string
  /**
   * Page API: where renewed credentials come from (an STS call, a login), called on this thread.
   * A function does not cross to a worker; rank workers sign with `credentials` and cannot renew.
   */
  refresh?: CredentialProvider
}

/** A table registered in a Unity Catalog server, read with credentials the catalog vends. */
export interface UnityCatalogAccess {
  kind: 'unity-catalog'
  /** The catalog's base URL, e.g. `http://localhost:8080/` (the `api/2.1/unity-catalog` part may be included). */
  endpoint: string
  /** Bearer token for the catalog; sent to `endpoint` only, never to storage. Empty: no Authorization. */
  token: string
  /** Three-part name, `catalog.schema.table`. */
  table: string
  /** Signing region of the table's bucket; default as for S3Access. */
  region?: string
  /** Endpoint that serves the table's bucket at its root, for S3-compatible stores; default AWS. */
  s3Endpoint?: string
}

/**
 * How a governed table is reached, as plain data that can cross to a worker (postMessage) and be
 * re-opened there with access.ts. Each kind is one way of being granted the table; the union is
 * open to further kinds (a Delta Sharing share is one).
 */
export type TableAccess = S3Access | UnityCatalogAccess | ShareAccess
