/**
 * Public API of the Delta snapshot reader. Everything outside src/table imports from here.
 */
export { openSnapshot, listCommits } from './snapshot.ts'
export { retryingFetch, fetchBytes, fetchText, fetchJson } from './http.ts'
export { SUPPORTED_READER_FEATURES } from './protocol.ts'
export { TableError } from './types.ts'
export { Timestamp } from './timestamp.ts'
export type {
  AddFile,
  ArrayType,
  CommitInfo,
  DeletionVectorDescriptor,
  DeltaType,
  FetchLike,
  FileStats,
  HttpOptions,
  MapType,
  Metadata,
  OpenOptions,
  PrimitiveType,
  Protocol,
  ReadOptions,
  Row,
  Snapshot,
  StructField,
  StructType,
  TableErrorCode,
} from './types.ts'

// ---- Row reader (H2): export readRows and friends from rows.ts here. ----
export { readRows, scanFile } from './rows.ts'
