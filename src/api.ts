/**
 * The library API of the page, installed as `window.snaptrain`: thin wrappers that resolve
 * page-relative URLs and bound every wait, over the same table/ and gpu/ modules the CLI uses.
 */
import { version } from '../package.json'
import { adapterSummary, assertAdapter, assertGpu } from './gpu/device.ts'
import { listTables } from './table/catalog.ts'
import { listCommits, openSnapshot, readRows } from './table/index.ts'
import { withTimeout } from './util/deadline.ts'
import { lazySweepApi } from './sweep/lazy.ts'
import type { AdapterInfoOptions, AdapterSummary, SnaptrainApi, TrainConfig, TrainProgress } from './api-types.ts'

const ADAPTER_TIMEOUT_MS = 10_000

/** The API object; `pageUrl` is what relative table URLs resolve against (default the page). */
export function createApi(pageUrl: string = location.href): SnaptrainApi {
  const abs = (url: string) => tableRoot(url, pageUrl)
  return {
    version,
    adapterInfo,
    listTables: (baseUrl = 'tables/', opts) => listTables(abs(baseUrl), opts),
    openSnapshot: (url, opts) => openSnapshot(abs(url), opts),
    listCommits: (url, opts) => listCommits(abs(url), opts),
    readRows: (snapshot, opts) => readRows(snapshot, opts),
    train: (async (config: TrainConfig, onProgress?: (p: TrainProgress) => void) => {
      const c = { ...config, table: abs(config.table), validTable: config.validTable && abs(config.validTable) }
      return (await import('./run/pipeline.ts')).runTraining(c, onProgress)
    }) as SnaptrainApi['train'],
    predict: async config =>
      (await import('./models/gbdt/predict-run.ts')).runPrediction({ ...config, table: abs(config.table) }),
    ...lazySweepApi(c => ({ ...c, table: abs(c.table), validTable: c.validTable && abs(c.validTable) })),
  }
}

/** Installs `window.snaptrain` (idempotent: a second call replaces the first). */
export function installApi(target: Window = window): SnaptrainApi {
  const api = createApi(target.location.href)
  target.snaptrain = api
  return api
}

/** `url` resolved against `base`, with the trailing '/' a table root (folder) URL needs. */
export function tableRoot(url: string, base: string): string {
  const u = new URL(url, base)
  if (!u.pathname.endsWith('/')) u.pathname += '/'
  return u.href
}

/** Adapter summary, or an Error saying why WebGPU is unavailable (no navigator.gpu, no adapter, timeout). */
export async function adapterInfo(opts: AdapterInfoOptions = {}): Promise<AdapterSummary> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu
  assertGpu(gpu)
  const timeoutMs = opts.timeoutMs ?? ADAPTER_TIMEOUT_MS
  const adapter = await withTimeout(
    gpu.requestAdapter({ powerPreference: opts.powerPreference }),
    timeoutMs,
    `navigator.gpu.requestAdapter() did not answer within ${timeoutMs} ms`,
  )
  assertAdapter(adapter)
  return adapterSummary(adapter)
}
