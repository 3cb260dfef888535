/**
 * The library API of the page, installed as `window.snaptrain`: thin wrappers that resolve
 * page-relative URLs and bound every wait, over the same table/ and gpu/ modules the CLI uses.
 * Governed tables (a share opened with openProfile) pass their access along; accesses live in
 * this object's memory only.
 */
import { version } from '../package.json'
import { adapterSummary, assertAdapter, assertGpu } from './gpu/device.ts'
import { listTables } from './sources/index.ts'
import { listCommits, openSnapshot, readRows } from './table/index.ts'
import { indexedLogsFor } from './table/listing.ts'
import { withTimeout } from './util/deadline.ts'
import { lazySweepApi } from './sweep/lazy.ts'
import { parseProfile, SharingClient, shareTableUrl } from './sharing/index.ts'
import type { ProxiedProfile } from './sharing/index.ts'
import { tableResolver } from './sources/index.ts'
import { TableError, type HttpOptions } from './table/types.ts'
import { PROXY_NAME, PROXY_PROFILES } from './sharing/proxy-route.ts'
import type {
  AccessOption,
  AdapterInfoOptions,
  AdapterSummary,
  OpenedProfile,
  OpenProfileOptions,
  ShareAccess,
  SharedShareView,
  SnaptrainApi,
  TableAccess,
  TrainConfig,
  TrainProgress,
  TrainRunOptions,
} from './api-types.ts'
import type { RunStore } from './run/store-idb.ts'
import { clearUnitCache, configureUnitCache, unitCacheSettings, unitCacheUsage } from './data/unit-cache.ts'

const ADAPTER_TIMEOUT_MS = 10_000
const PROXY_TIMEOUT_MS = 10_000

/** The API object; `pageUrl` is what relative table URLs resolve against (default the page). */
export function createApi(pageUrl: string = location.href): SnaptrainApi {
  const abs = (url: string) => tableRoot(url, pageUrl)
  const accesses = new AccessRegistry()
  /** `opts` with its access turned into the table's resolver (one per access and table). */
  const governed = <T extends HttpOptions & AccessOption>(url: string, opts?: T): Omit<T, 'access'> | undefined => {
    if (!opts?.access) return opts
    const { access, ...rest } = opts
    const { fetch, timeoutMs, attempts, backoffMs, allowOrigins, allowInsecureHttp } = rest
    const http = { fetch, timeoutMs, attempts, backoffMs, allowOrigins, allowInsecureHttp }
    return { ...rest, resolver: tableResolver(url, accesses.intern(access), { http }) }
  }
  /**
   * A run's config with its table URLs resolved and its access interned (train and explain read the
   * same rows), and what a static index said of those tables' logs, for its rank workers.
   */
  const runConfig = (config: TrainConfig): TrainConfig => {
    const table = abs(config.table)
    const validTable = config.validTable && abs(config.validTable)
    const indexedLogs = indexedLogsFor([table, validTable])
    return {
      ...config,
      table,
      validTable,
      ...(indexedLogs ? { http: { ...config.http, indexedLogs } } : {}),
      ...accesses.option(config.access),
    }
  }
  const running = new Set<AbortController>()
  let runStore: Promise<RunStore> | undefined
  const runs = (): Promise<RunStore> => {
    runStore ??= import('./run/store-idb.ts').then(m => m.RunStore.open())
    runStore.catch(() => {
      runStore = undefined // a later call tries again
    })
    return runStore
  }
  const sweeps = lazySweepApi(c => ({
    ...c,
    table: abs(c.table),
    validTable: c.validTable && abs(c.validTable),
    ...accesses.option(c.access),
  }))
  return {
    version,
    adapterInfo,
    // Not abs(): a folder or the URL of its static index (catalog.ts TABLE_INDEX), which takes no '/'.
    listTables: (baseUrl = 'tables/', opts) => listTables(new URL(baseUrl, pageUrl).href, opts),
    openSnapshot: (url, opts) => openSnapshot(abs(url), governed(abs(url), opts)),
    listCommits: (url, opts) => listCommits(abs(url), governed(abs(url), opts)),
    readRows: (snapshot, opts) => readRows(snapshot, governed(snapshot.tableUrl, opts)),
    openProfile: async (text, opts) => {
      const opened = await openProfile(text, opts, pageUrl)
      return { ...opened, access: accesses.intern(opened.access) as ShareAccess }
    },
    listShares: (access, opts) => listShares(accesses.intern(access) as ShareAccess, opts),
    train: (async (config: TrainConfig, onProgress?: (p: TrainProgress) => void, options: TrainRunOptions = {}) => {
      // Every run of this page can be stopped by stopTraining (the CLI's Ctrl-C) as well as by its own signal.
      const stop = new AbortController()
      options.signal?.addEventListener('abort', () => stop.abort(), { once: true })
      if (options.signal?.aborted) stop.abort()
      running.add(stop)
      try {
        const { runTraining } = await import('./run/pipeline.ts')
        return await runTraining(runConfig(config), onProgress, {
          stop: stop.signal,
          validScores: options.validScores,
        })
      } finally {
        running.delete(stop)
      }
    }) as SnaptrainApi['train'],
    stopTraining: () => {
      for (const c of running) c.abort()
      return running.size
    },
    runFiles: async (run, modelFormat) => {
      const [{ loadFamily }, { runFiles }] = await Promise.all([
        import('./models/registry.ts'),
        import('./run/artifacts.ts'),
      ])
      const family = await loadFamily(run.manifest.model)
      return runFiles(family.modelFile({ table: '', label: '', modelFormat }), run)
    },
    listRuns: async () => (await runs()).list(),
    saveRun: async (run, data) => (await runs()).put(run, data),
    runData: async id => (await runs()).data(id),
    deleteRun: async id => (await runs()).delete(id),
    updateRun: async (id, change) => (await runs()).update(id, change),
    predict: async (config, onProgress) =>
      (await import('./models/predict.ts')).runPrediction({ ...config, table: abs(config.table) }, onProgress),
    explain: async config =>
      (await import('./models/gbdt/explain-run.ts')).runExplain({ ...config, run: runConfig(config.run) }),
    configureUnitCache,
    unitCacheSettings,
    unitCacheUsage,
    clearUnitCache,
    ...sweeps,
    resumeSweep: (id, onEvent, credentials) =>
      sweeps.resumeSweep(id, onEvent, credentials && { ...credentials, ...accesses.option(credentials.access) }),
  }
}

/**
 * The accesses this page was handed, one object per distinct value. Why: sessions (a share's
 * URLs and renewals) are kept per access object, and page.evaluate hands every call a fresh copy;
 * equal copies must reach the session that opened the snapshot their rows are read from.
 */
class AccessRegistry {
  private readonly byValue = new Map<string, TableAccess>()

  intern(access: TableAccess): TableAccess {
    const key = JSON.stringify(access)
    let known = this.byValue.get(key)
    if (!known) this.byValue.set(key, (known = access))
    return known
  }

  /** `{ access }` (interned) when there is one, else nothing: spread into a config. */
  option(access?: TableAccess): { access?: TableAccess } {
    return access ? { access: this.intern(access) } : {}
  }
}

/**
 * openProfile (SnaptrainApi): checks the text, then registers it with the page's local proxy when
 * there is one (and `opts.mode` allows), else keeps the parsed profile for direct use.
 */
async function openProfile(
  text: string,
  opts: OpenProfileOptions = {},
  pageUrl: string = location.href,
): Promise<OpenedProfile> {
  const source = opts.source ?? 'the chosen profile'
  const parsed = parseProfile(text, source)
  const mode = opts.mode ?? 'auto'
  if (mode !== 'direct') {
    const profile = await registerWithProxy(text, source, pageUrl, mode === 'proxy')
    if (profile) return { access: { kind: 'share', profile, source }, mode: 'proxy', endpoint: parsed.endpoint }
  }
  return { access: { kind: 'share', profile: parsed, source }, mode: 'direct', endpoint: parsed.endpoint }
}

/**
 * The proxied profile of `text`, or undefined when the page's origin has no sharing proxy (a
 * static build; `required`: an error instead). Why a GET first: the profile text is sent only
 * once the route has answered as the proxy does (405 with its JSON error), so a static host
 * never receives the token.
 */
async function registerWithProxy(
  text: string,
  source: string,
  pageUrl: string,
  required: boolean,
): Promise<ProxiedProfile | undefined> {
  const url = new URL(PROXY_PROFILES, pageUrl).href
  const probe = await fetch(url, { signal: AbortSignal.timeout(PROXY_TIMEOUT_MS) }).catch(() => undefined)
  const probed = probe && (await probe.json().catch(() => undefined))
  if (!probe?.ok || probed?.proxy !== PROXY_NAME) {
    if (!required) return undefined
    throw new TableError(`profile ${source}: this page's server has no sharing proxy (${url})`, 'sharing', url)
  }
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: text,
    signal: AbortSignal.timeout(PROXY_TIMEOUT_MS),
  })
  const body = (await res.json().catch(() => ({}))) as {
    id?: string
    endpoint?: string
    upstream?: string
    message?: string
  }
  if (!res.ok || typeof body.endpoint !== 'string') {
    const why = body.message ?? `${res.status} ${res.statusText}`
    throw new TableError(`profile ${source}: the page's sharing proxy refused it: ${why}`, 'sharing', url)
  }
  return { shareCredentialsVersion: 0, endpoint: body.endpoint, ...(body.upstream ? { upstream: body.upstream } : {}) }
}

/** listShares (SnaptrainApi): shares, then each one's schemas, then each schema's tables (every page of each). */
async function listShares(access: ShareAccess, http: HttpOptions = {}): Promise<SharedShareView[]> {
  const client = new SharingClient(access.profile, access.source, http)
  const shares = await client.listShares()
  return Promise.all(
    shares.map(async share => ({
      name: share.name,
      schemas: await Promise.all(
        (await client.listSchemas(share.name)).map(async schema => ({
          name: schema.name,
          tables: (await client.listTables(share.name, schema.name)).map(t => ({
            share: t.share,
            schema: t.schema,
            name: t.table,
            url: shareTableUrl(client.endpoint, t),
          })),
        })),
      ),
    })),
  )
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
