/**
 * The page's epoch-cache settings (src/data/unit-cache.ts: on/off and the memory budget) as the
 * user set them in the header's cache control (cache-control.ts), kept in localStorage and applied
 * when the page starts (src/main.ts), so a reload keeps them. Nothing kept: the cache's defaults.
 */
import type { SnaptrainApi, UnitCacheSettings } from '../api-types.ts'

/** What the cache control and the page start need of window.snaptrain. */
export type CacheApi = Pick<
  SnaptrainApi,
  'configureUnitCache' | 'unitCacheSettings' | 'unitCacheUsage' | 'clearUnitCache'
>

/** The settings the page keeps (the spill budget is the cache's own). */
export type KeptCacheSettings = Partial<Pick<UnitCacheSettings, 'enabled' | 'memoryBytes'>>

const KEY = 'snaptrain.unitCache'

/** The kept settings, or undefined when none are kept (or what is kept is not an object). */
export function keptCacheSettings(storage: Storage | undefined = store()): KeptCacheSettings | undefined {
  try {
    const v = JSON.parse(storage?.getItem(KEY) ?? 'null') as unknown
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined
    const { enabled, memoryBytes } = v as KeptCacheSettings
    return { ...(enabled === undefined ? {} : { enabled }), ...(memoryBytes === undefined ? {} : { memoryBytes }) }
  } catch {
    return undefined
  }
}

/** Keeps `change` on top of what is kept (a full or unavailable storage keeps nothing: the page still works). */
export function keepCacheSettings(change: KeptCacheSettings, storage: Storage | undefined = store()): void {
  try {
    storage?.setItem(KEY, JSON.stringify({ ...keptCacheSettings(storage), ...change }))
  } catch {
    // Private mode or a full quota: the setting holds until the page closes.
  }
}

/**
 * Applies the kept settings to the page's cache (src/main.ts, as the page starts); settings the
 * cache refuses (edited by hand) are forgotten. Returns what was applied.
 */
export function applyKeptCacheSettings(api: CacheApi, storage: Storage | undefined = store()): KeptCacheSettings {
  const kept = keptCacheSettings(storage)
  if (!kept) return {}
  try {
    api.configureUnitCache(kept)
    return kept
  } catch {
    storage?.removeItem(KEY)
    return {}
  }
}

function store(): Storage | undefined {
  try {
    return globalThis.localStorage
  } catch {
    return undefined // a sandboxed frame throws on access
  }
}
