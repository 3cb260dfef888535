/**
 * `--no-cache` and `--cache-mb` (train, sweep, predict): the settings they give the epoch cache
 * (every field, the defaults where a flag is absent, so one run's flags do not outlive it in a
 * process or page that runs another), the process's own cache set from them, `--help` lines, and
 * bad values refused naming the flag (exit 2) before any browser starts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli.ts'
import { applyCacheFlags, cacheSettings } from '../../../src/cli/data-flags.ts'
import { configureUnitCache, DEFAULT_UNIT_CACHE, unitCacheSettings } from '../../../src/data/unit-cache.ts'

const TABLE = 'public/tables/marketing'
const MiB = 2 ** 20

afterEach(() => configureUnitCache(DEFAULT_UNIT_CACHE))

describe('cacheSettings', () => {
  it('maps the flags to settings, defaults where absent', () => {
    expect(cacheSettings({})).toEqual({ enabled: true, memoryBytes: DEFAULT_UNIT_CACHE.memoryBytes })
    expect(cacheSettings({ 'no-cache': true })).toEqual({ enabled: false, memoryBytes: DEFAULT_UNIT_CACHE.memoryBytes })
    expect(cacheSettings({ 'cache-mb': 64 })).toEqual({ enabled: true, memoryBytes: 64 * MiB })
    expect(cacheSettings({ 'cache-mb': 0.5 })).toEqual({ enabled: true, memoryBytes: MiB / 2 })
    expect(cacheSettings({ 'cache-mb': 0 })).toEqual({ enabled: true, memoryBytes: 0 })
  })

  it('refuses --cache-mb beside --no-cache, and a budget past what can be counted, naming the flag', () => {
    expect(() => cacheSettings({ 'no-cache': true, 'cache-mb': 5 })).toThrow(
      /^--cache-mb: has no effect with --no-cache/,
    )
    expect(() => cacheSettings({ 'cache-mb': 1e12 })).toThrow(/^--cache-mb: expected a number of MiB below/)
  })

  it("sets this process's cache, and a run without flags puts the defaults back", () => {
    applyCacheFlags({ 'no-cache': true })
    expect(unitCacheSettings().enabled).toBe(false)
    applyCacheFlags({ 'cache-mb': 3 })
    expect(unitCacheSettings()).toMatchObject({ enabled: true, memoryBytes: 3 * MiB })
    applyCacheFlags({})
    expect(unitCacheSettings()).toEqual(DEFAULT_UNIT_CACHE)
  })
})

describe('the commands', () => {
  it.each(['train', 'sweep', 'predict'])('%s --help says what --no-cache and --cache-mb do', async command => {
    const r = await runMain([command, '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/--no-cache +read the table for every epoch/)
    expect(r.stdout).toMatch(/--cache-mb <MiB> +memory budget of the epoch cache in MiB \(default 512\)/)
  })

  it.each([
    [['--cache-mb', 'lots'], "--cache-mb: expected a non-negative number, got 'lots'"],
    [['--cache-mb', '-1'], "--cache-mb: expected a non-negative number, got '-1'"],
    [['--no-cache', '--cache-mb', '8'], '--cache-mb: has no effect with --no-cache'],
  ])('train %j exits 2 naming the flag', async (flags, message) => {
    const r = await runMain(['train', '--table', TABLE, '--label', 'y', ...flags])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(message)
    expect(unitCacheSettings()).toEqual(DEFAULT_UNIT_CACHE) // refused before anything was set
  })

  it('sweep and predict refuse a bad --cache-mb the same way', async () => {
    const sweep = await runMain(['sweep', '--table', TABLE, '--label', 'y', '--model', 'gbdt', '--cache-mb', 'x'])
    expect(sweep.code).toBe(2)
    expect(sweep.stderr).toContain("--cache-mb: expected a non-negative number, got 'x'")
    const predict = await runMain(['predict', '--table', TABLE, '--model', 'm.json', '--no-cache', '--cache-mb', '1'])
    expect(predict.code).toBe(2)
    expect(predict.stderr).toContain('--cache-mb: has no effect with --no-cache')
  })
})
