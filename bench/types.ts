/** Types of the bench area: result rows, options, per-suite context. */
import type { PipelineCache } from '../src/gpu/pipeline-cache.ts'
import type { AdapterSummary } from '../src/gpu/types.ts'
import type { GbdtBenchInput } from './gbdt-types.ts'

/**
 * One measured number. `value` is the median over `repeats` samples of the metric in `unit`;
 * `ratio` is how many times better than `peer` this row is (> 1 better), whichever way the
 * metric points (throughput: value / peer_value; latency: peer_value / value).
 */
export interface BenchRow {
  /** Suite name, e.g. "device". */
  suite: string
  /** What ran, with its parameters, e.g. "stream_rmw n=4194304 wg=256". */
  workload: string
  /** What was measured, e.g. "bandwidth", "throughput", "latency". */
  metric: string
  /** Median of the metric (same as `median`). */
  value: number
  /** Unit of value/min/median/max: "GB/s", "GFLOP/s", "M ops/s", "µs". */
  unit: string
  /** The workload this row is compared with, when it has one. */
  peer?: string
  /** The peer's median, same unit. */
  peer_value?: number
  /** Times better than the peer (> 1 better, < 1 worse). */
  ratio?: number
  /** Timed samples (after warmup). */
  repeats: number
  min: number
  median: number
  max: number
  /** Where timings came from: GPU timestamps, or wall clock around submit → done. */
  timing: 'gpu' | 'wall'
  /** Adapter label (adapterLabel of the summary), e.g. "google swiftshader (fallback)". */
  adapter: string
  /** Short git commit of the code measured ('' when unknown). */
  commit: string
  /** ISO-8601 start time of the suite run. */
  date: string
}

/** Options of `runBenchSuite`. */
export interface BenchOptions {
  /** Called with one human-readable line per workload started. */
  onProgress?: (msg: string) => void
  /** Smaller sizes and fewer repeats (seconds instead of minutes; for smoke tests). */
  quick?: boolean
  /** Commit to stamp on rows (the page cannot run git; the CLI passes it). */
  commit?: string
  /** Inputs of the `loader` suite prepared by the CLI (table and CSV URLs, export timing). */
  loader?: LoaderBenchInput
  /** Inputs of the `gbdt` suite prepared by the CLI (XGBoost peer results). */
  gbdt?: GbdtBenchInput
  /** Training rows of the `gbdt` suite's synthetic data: one size of this many rows (`--rows`; gbdtSizes). */
  gbdtRows?: number
}

/**
 * What the CLI prepares in Node for the `loader` suite: where the clicks table and its one-file
 * CSV export are served, and how long the export took (timed in Node, before the browser starts).
 */
export interface LoaderBenchInput {
  /** Table root URL, ending in '/'. */
  tableUrl: string
  /** URL of the CSV export of the table's latest version (absent: the export rows are skipped). */
  csvUrl?: string
  /** Wall time of the export step (read the version over HTTP + write one CSV file), ms. */
  exportMs?: number
  /** Data rows in the CSV. */
  exportRows?: number
  /** CSV size, bytes. */
  csvBytes?: number
  /** The Node client's passes over the wire rows' ranges (bench/loader-wire.ts), before the browser starts. */
  wire?: WireInput
}

/** A Node client's plain passes over the ranges one loader epoch fetches, from the table's server. */
export interface WireInput {
  /** MB/s of each timed pass (bytes / wall time of the pass). */
  mbps: number[]
  /** Bytes of one pass. */
  bytes: number
}

/** What a suite receives: the device, a pipeline cache on it, and row stamping data. */
export interface SuiteContext {
  suite: string
  device: GPUDevice
  cache: PipelineCache
  adapter: AdapterSummary
  quick: boolean
  commit: string
  date: string
  progress(msg: string): void
  /** The `loader` suite's inputs (BenchOptions.loader). */
  loader?: LoaderBenchInput
  /** The `gbdt` suite's inputs (BenchOptions.gbdt). */
  gbdt?: GbdtBenchInput
  /** BenchOptions.gbdtRows. */
  gbdtRows?: number
}

/** A suite: runs its workloads and returns their rows. */
export type SuiteRunner = (ctx: SuiteContext) => Promise<BenchRow[]>

/** One timed run: wall milliseconds, plus GPU milliseconds when timestamps are available. */
export interface Sample {
  wallMs: number
  gpuMs?: number
}

/** Min / median / max of a set of values. */
export interface Stats {
  min: number
  median: number
  max: number
}

/** Problem sizes and repeat counts of the device suite (full and --quick presets). */
export interface DeviceSizes {
  /** Elements (f32/u32) of the streaming workloads. */
  streamN: number
  /** Dispatches (or copies) per timed submit for the streaming workloads. */
  inner: number
  /** Workgroup sizes tried for the 1-D kernels. */
  workgroupSizes: number[]
  /** Keys of the atomic workloads. */
  atomicN: number
  /** Counter counts (key ranges) of the atomic workloads. */
  atomicKs: number[]
  /** Workgroup sizes tried for the privatised atomic kernel. */
  atomicWorkgroupSizes: number[]
  /** Square matmul edges (M = K = N). */
  matmulSizes: number[]
  /** noop dispatches per timed submit. */
  noopDispatches: number
  warmup: number
  repeats: number
}
