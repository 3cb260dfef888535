/**
 * `<st-cache-control>` over the page's real epoch cache (src/data/unit-cache.ts: memory and OPFS in
 * this Chromium): the usage line counts what is held; Clear cache empties memory and disk and the
 * line says 0; a bad memory budget is refused naming the field and changes nothing; the switch and
 * a good budget apply at once and are kept in localStorage, which the page applies when it starts
 * (applyKeptCacheSettings).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import '../../src/ui/cache-control.ts'
import type { StCacheControl } from '../../src/ui/cache-control.ts'
import { applyKeptCacheSettings, keptCacheSettings, type CacheApi } from '../../src/ui/cache-settings.ts'
import {
  clearUnitCache,
  configureUnitCache,
  DEFAULT_UNIT_CACHE,
  flushUnitCache,
  storeUnit,
  unitCacheSettings,
  unitCacheUsage,
} from '../../src/data/unit-cache.ts'
import type { DecodedUnit } from '../../src/data/types.ts'
import { cleanup, fixture, waitFor } from './fixture.ts'

const API: CacheApi = { configureUnitCache, unitCacheSettings, unitCacheUsage, clearUnitCache }
const KEY = 'snaptrain.unitCache'

beforeEach(async () => {
  localStorage.removeItem(KEY)
  configureUnitCache(DEFAULT_UNIT_CACHE)
  await clearUnitCache()
})
afterEach(async () => {
  cleanup()
  localStorage.removeItem(KEY)
  configureUnitCache(DEFAULT_UNIT_CACHE)
  await clearUnitCache()
})

/** Stores `n` units of 1000 float rows each (4000 bytes) under keys of their own. */
function storeUnits(n: number): void {
  for (let i = 0; i < n; i++) {
    const unit: DecodedUnit = {
      unitId: i,
      rows: 1000,
      columns: { x: { name: 'x', encoding: 'float32', values: new Float32Array(1000).fill(i) } },
      timing: { fetchMs: 0, decodeMs: 0, bytes: 0 },
    }
    const hex = i.toString(16).padStart(16, '0')
    storeUnit({ key: `cache-control test ${i}`, file: `file ${i}`, name: `${hex}-${hex}.unit` }, unit)
  }
}

const root = (el: StCacheControl) => el.shadowRoot!
const line = (el: StCacheControl) => root(el).querySelector('summary.usage')!.textContent!.trim()

describe('st-cache-control', () => {
  it('shows the usage, and Clear cache empties memory and disk', async () => {
    storeUnits(3)
    await flushUnitCache()
    const el = await fixture('st-cache-control', { api: API })
    const held = await waitFor(() => (/in memory/.test(line(el)) ? line(el) : undefined))
    expect(held).toMatch(/^cache: 11\.72 KiB in memory · \d+(\.\d+)? KiB on disk · \d+ hits?$/)
    root(el).querySelector('details')!.open = true
    root(el).querySelector<HTMLButtonElement>('button.clear')!.click()
    await waitFor(() => root(el).querySelector('.status')?.textContent === 'Cleared.')
    await el.updateComplete
    expect(line(el)).toMatch(/^cache: 0 B in memory · 0 B on disk · /)
    expect(await unitCacheUsage()).toMatchObject({ entries: 0, memoryBytes: 0, spilledEntries: 0, spillBytes: 0 })
  })

  it('refuses a bad memory budget naming the field, and keeps the setting', async () => {
    const el = await fixture('st-cache-control', { api: API })
    const input = root(el).querySelector<HTMLInputElement>('input[name=memory]')!
    expect(input.value).toBe(String(DEFAULT_UNIT_CACHE.memoryBytes / 2 ** 20))
    for (const bad of ['lots', '-5', '']) {
      input.value = bad
      input.dispatchEvent(new Event('change'))
      await el.updateComplete
      expect(root(el).querySelector('[role=alert]')?.textContent).toBe(
        `Memory budget (MiB): expected a number ≥ 0, got '${bad}'`,
      )
    }
    expect(unitCacheSettings().memoryBytes).toBe(DEFAULT_UNIT_CACHE.memoryBytes)
    expect(localStorage.getItem(KEY)).toBeNull()
  })

  it('applies the switch and a budget at once, keeps them, and the page applies them when it starts', async () => {
    const el = await fixture('st-cache-control', { api: API })
    const input = root(el).querySelector<HTMLInputElement>('input[name=memory]')!
    input.value = '64'
    input.dispatchEvent(new Event('change'))
    const box = root(el).querySelector<HTMLInputElement>('input[name=enabled]')!
    box.click() // off
    await el.updateComplete
    expect(root(el).querySelector('[role=alert]')).toBeNull()
    expect(unitCacheSettings()).toMatchObject({ enabled: false, memoryBytes: 64 * 2 ** 20 })
    expect(keptCacheSettings()).toEqual({ enabled: false, memoryBytes: 64 * 2 ** 20 })
    await waitFor(() => line(el).startsWith('cache: off · '))

    // A page starting anew: the cache has its defaults until the kept settings are applied.
    configureUnitCache(DEFAULT_UNIT_CACHE)
    expect(applyKeptCacheSettings(API)).toEqual({ enabled: false, memoryBytes: 64 * 2 ** 20 })
    expect(unitCacheSettings()).toMatchObject({ enabled: false, memoryBytes: 64 * 2 ** 20 })
    // Kept settings the cache refuses (edited by hand) are forgotten, not applied.
    localStorage.setItem(KEY, JSON.stringify({ memoryBytes: -1 }))
    configureUnitCache(DEFAULT_UNIT_CACHE)
    expect(applyKeptCacheSettings(API)).toEqual({})
    expect(localStorage.getItem(KEY)).toBeNull()
    expect(unitCacheSettings()).toEqual(DEFAULT_UNIT_CACHE)
  })

  it('renders nothing for an API without the cache (a host page’s own)', async () => {
    const el = await fixture('st-cache-control', { api: {} as CacheApi })
    expect(root(el).querySelector('details')).toBeNull()
  })
})
