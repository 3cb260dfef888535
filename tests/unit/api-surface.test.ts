/**
 * The library's entry points, names and kinds (tests/support/api-surface.ts): window.snaptrain as
 * createApi builds it, and every library module's exports. Nothing of it is a benchmark or can load
 * one; the browser test tests/ui/api.test.ts checks the installed window.snaptrain the same way.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { SnaptrainApi } from '../../src/api-types.ts'
import { createApi } from '../../src/api.ts'
import { LIBRARY_MODULES, SNAPTRAIN_API, kindOf, surface } from '../support/api-surface.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string }

// Compile-time: SnaptrainApi has no bench member (tsc --noEmit checks the tests).
const noBench: 'bench' extends keyof SnaptrainApi ? never : true = true

describe('window.snaptrain (createApi)', () => {
  const api = createApi('http://h:5/app/')

  test('has exactly the documented entry points, each of its kind', () => {
    expect(surface(api)).toEqual(SNAPTRAIN_API)
    expect(api.version).toBe(pkg.version)
  })

  test('has no benchmark entry', () => {
    expect(noBench).toBe(true)
    expect(Object.keys(api).filter(k => /bench/i.test(k))).toEqual([])
  })

  test('pure entry points answer at once, without a GPU or a table', () => {
    const space = api.defaultSpace('gbdt')
    expect(Object.keys(space)).toEqual(expect.arrayContaining(['num_round', 'eta', 'max_depth']))
    const plan = api.planSweep({
      model: 'gbdt',
      table: 'tables/marketing',
      label: 'y',
      strategy: 'random',
      trials: 4,
      space,
    })
    expect(plan.errors).toEqual([])
    expect(plan.trials).toBe(4)
    expect(api.sweepImportance({ config: { model: 'gbdt', space }, trials: [] } as never)).toBeUndefined()
  })
})

describe('library modules', () => {
  test.each(Object.keys(LIBRARY_MODULES))('%s exports exactly its documented entry points', async path => {
    const mod = (await import(resolve(ROOT, path))) as Record<string, unknown>
    expect(surface(mod)).toEqual(LIBRARY_MODULES[path])
    expect(Object.keys(mod).filter(k => /bench/i.test(k))).toEqual([])
  })

  test('every index module of src/ is listed (a new one must state its entry points)', () => {
    const indexes = (readdirSync(resolve(ROOT, 'src'), { recursive: true }) as string[])
      .filter(f => /(^|\/)index\.ts$/.test(f))
      .map(f => relative(ROOT, resolve(ROOT, 'src', f)))
      .sort()
    expect(indexes.length).toBeGreaterThan(2)
    expect(
      Object.keys(LIBRARY_MODULES)
        .filter(m => m !== 'src/api.ts')
        .sort(),
    ).toEqual(indexes)
  })

  test('kindOf tells classes, functions, arrays and values apart', () => {
    expect([
      kindOf(class A {}),
      kindOf(() => 1),
      kindOf([1]),
      kindOf({}),
      kindOf('x'),
      kindOf(3),
      kindOf(undefined),
    ]).toEqual(['class', 'function', 'array', 'object', 'string', 'number', 'undefined'])
  })
})
