/**
 * Reader protocol check (PROTOCOL.md "Protocol Evolution", "Table Features", "Reader Version
 * Requirements"). A table that needs something we do not implement is refused by name, never
 * silently misread.
 */
import { TableError, type Protocol } from './types.ts'

/** Reader table features this reader implements (row-level ones live in the row reader). */
export const SUPPORTED_READER_FEATURES: ReadonlySet<string> = new Set([
  'columnMapping',
  'deletionVectors',
  'timestampNtz',
  'typeWidening',
  'typeWidening-preview',
  'v2Checkpoint',
  'vacuumProtocolCheck',
])

/** Reader features that mean the log on disk is not the whole truth: a catalog holds commits. */
const CATALOG_FEATURES = new Set(['catalogManaged', 'catalogOwned-preview'])

/** Highest reader version we understand (3 = table features). */
export const MAX_READER_VERSION = 3

/**
 * Throw unless this reader can read a table with `protocol`.
 *
 * @param protocol the protocol action in force
 * @param tableUrl named in the error
 * @throws TableError 'catalog-managed' for catalog-managed tables, 'unsupported-feature' naming the
 *   reader version or each unsupported feature
 */
export function checkReadable(protocol: Protocol, tableUrl: string): void {
  const version = protocol.minReaderVersion
  if (!Number.isInteger(version) || version < 1 || version > MAX_READER_VERSION) {
    // Name the listed features too: they tell the user what the newer protocol is needed for.
    const listed = protocol.readerFeatures ?? []
    const unknown = listed.filter(f => !SUPPORTED_READER_FEATURES.has(f))
    const features = !listed.length
      ? ''
      : `; the table lists reader feature${listed.length > 1 ? 's' : ''} ${listed.join(', ')}` +
        (unknown.length ? ` (unsupported: ${unknown.join(', ')})` : '')
    throw new TableError(
      `${tableUrl}: Unsupported Delta protocol reader version ${version} (this reader supports 1 to ${MAX_READER_VERSION})` +
        features,
      'unsupported-feature',
      tableUrl,
    )
  }
  if (version < 3) return
  const features = protocol.readerFeatures ?? []
  const catalog = features.filter(f => CATALOG_FEATURES.has(f))
  if (catalog.length) {
    throw new TableError(
      `${tableUrl}: catalog-managed table (reader feature ${catalog.join(', ')}): its latest commits are held by a ` +
        'catalog, so it cannot be read from its path alone',
      'catalog-managed',
      tableUrl,
    )
  }
  const unsupported = features.filter(f => !SUPPORTED_READER_FEATURES.has(f))
  if (unsupported.length) {
    throw new TableError(
      `${tableUrl}: unsupported Delta reader feature${unsupported.length > 1 ? 's' : ''} ${unsupported.join(', ')}`,
      'unsupported-feature',
      tableUrl,
    )
  }
}
