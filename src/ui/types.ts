/**
 * View models of the Lit components in src/ui. Components receive these through properties and
 * never fetch or touch the GPU themselves; the app shell (st-app) fills them from window.snaptrain.
 */
import type { CommitInfo, Row, Snapshot, StructField } from '../table/types.ts'
import type { SnaptrainApi } from '../api-types.ts'
import type { Bracket } from '../tune/types.ts'

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
export interface TableSelectDetail {
  name: string
  url: string
}
/** The open Delta Sharing profile as the share browser names it (never its token). */
export interface ProfileView {
  /** The profile file's name. */
  source: string
  /** The sharing server it names. */
  endpoint: string
  /** 'proxy': through this page's server, which holds the token; 'direct': the page talks to the server. */
  mode: 'proxy' | 'direct'
}

/** Detail of `profile-open`: the chosen file's text (handed to openProfile once, never kept) and name. */
export interface ProfileOpenDetail {
  text: string
  name: string
}

/** A share with its schemas and their tables, as listShares answers. */
export type { SharedShareView, SharedTableView } from '../api-types.ts'

/** Detail of `version-select`. */
export interface VersionSelectDetail {
  version: number
}

/**
 * The sweep methods of window.snaptrain, the only ones the sweep UI calls. A Pick of
 * SnaptrainApi so the two cannot drift; `sweepApiOf` (sweep-controller.ts) checks at run time
 * that an API object has them (test fakes and older builds may not).
 */
export type SweepApi = Pick<
  SnaptrainApi,
  | 'sweep'
  | 'resumeSweep'
  | 'stopSweep'
  | 'listSweeps'
  | 'getSweep'
  | 'deleteSweep'
  | 'exportSweep'
  | 'importSweep'
  | 'sweepArtifacts'
  | 'defaultSpace'
  | 'planSweep'
  | 'sweepContinueFiles'
  | 'sweepImportance'
>

/** What `planSweep` answers: validation errors (empty when the config can run) and the cost plan. */
export interface SweepPlanView {
  errors: string[]
  /** Trial runs the plan issues (promotions to a higher rung included). */
  trials: number
  brackets: Bracket[]
  /** Resource units (rounds / epochs) the plan spends in total. */
  resourceTotal: number
  /** What the same configurations would spend at full budget (maxResource each). */
  resourceFullBudget: number
}

/** Which file a download button of the result card asks for. */
export type SweepDownloadKind =
  | 'params'
  | 'model'
  | 'model-ubj'
  | 'model-onnx'
  | 'model-safetensors'
  | 'features'
  | 'manifest'
  | 'csv'
  | 'continue'
  | 'sweep'
  | 'optuna'

/** Detail of the sweep events that name one sweep (`sweep-open`, `sweep-stop`, `sweep-resume`, …). */
export interface SweepIdDetail {
  id: string
}
/** Detail of `sweep-download`. */
export interface SweepDownloadDetail {
  id: string
  kind: SweepDownloadKind
}

export type {
  Bracket,
  SweepConfig,
  SweepEvent,
  SweepModel,
  SweepState,
  TrialArtifacts,
  TrialRecord,
  TrialStatus,
  StrategyName,
} from '../tune/types.ts'
/** One parameter's importance (sweepImportance): share of the metric's variance, in [0, 1]. */
export type { ParamImportance } from '../tune/importance.ts'
