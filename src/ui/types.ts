/**
 * View models of the Lit components in src/ui. Components receive these through properties and
 * never fetch or touch the GPU themselves; the app shell (st-app) fills them from window.snaptrain.
 */
import type { CommitInfo, Row, Snapshot, StructField } from '../table/types.ts'

export type { CommitInfo, Row, StructField }

/** The parts of a Snapshot the page shows. */
export type SnapshotView = Pick<Snapshot, 'version' | 'timestamp' | 'files' | 'protocol' | 'columnMapping'>

/** What the adapter panel shows about the WebGPU adapter. */
export interface AdapterView {
  vendor: string
  architecture: string
  device: string
  description: string
  /** True when the browser handed out a fallback (often software) adapter. */
  isFallbackAdapter: boolean
  /** Selected GPUSupportedLimits by name (bytes or counts, as WebGPU reports them). */
  limits: Record<string, number>
  /** GPUFeatureName values, sorted. */
  features: string[]
}

/** A table the page can open; `url` is the table root and ends with '/'. */
export interface TableView {
  name: string
  url: string
  /** Latest committed version; undefined until the history has been read. */
  latestVersion?: number
}

/** An error as the page shows it: message plus the chain of causes, outermost first. */
export interface ErrorView {
  /** Which step failed, e.g. "Opening table clicks at version 3". */
  context: string
  message: string
  /** TableError code where the reader raised it ('http', 'not-a-table', …). */
  code?: string
  url?: string
  /** Messages of `error.cause`, `error.cause.cause`, …. */
  causes: string[]
}

/** Progress of one asynchronous step of the page; every step ends in 'ready' or 'error'. */
export type LoadState = 'idle' | 'loading' | 'ready' | 'error'

/** Detail of `table-select`. */
export interface TableSelectDetail { name: string; url: string }
/** Detail of `version-select`. */
export interface VersionSelectDetail { version: number }
