/**
 * Shared WGSL snippets (shaders/lib) are joined to kernels only by composeWgsl, as each spec
 * declares: a spec's code is its own source followed by its snippets in declared order, a kernel
 * calling a snippet's function declares that snippet, and no kernel redefines one. The golden
 * hashes pin every composed module, so an accidental change to a snippet or kernel fails here.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { hashString } from '../../src/gpu/pipeline-cache.ts'
import { composeWgsl, defineKernel, type SnippetName, WGSL_SNIPPETS } from '../../src/kernels/wgsl.ts'
import { PRODUCT_SPECS } from './kernel-specs.ts'

const GOLDEN_PATH = join(import.meta.dirname, 'kernel-wgsl.golden.json')
const golden = JSON.parse(readFileSync(GOLDEN_PATH, 'utf8')) as Record<string, string>

/** Names of the functions `code` defines. */
function functions(code: string): string[] {
  return [...code.matchAll(/\bfn\s+(\w+)\s*\(/g)].map(m => m[1])
}

const snippetNames = Object.keys(WGSL_SNIPPETS) as SnippetName[]

describe('composeWgsl', () => {
  test('source first, then each snippet in declared order', () => {
    expect(composeWgsl({ source: 'K', snippets: [] })).toBe('K')
    expect(composeWgsl({ source: 'K', snippets: ['grid', 'fixed64'] })).toBe(
      `K\n${WGSL_SNIPPETS.grid}\n${WGSL_SNIPPETS.fixed64}`,
    )
  })

  test('refuses an unknown or repeated snippet', () => {
    expect(() => composeWgsl({ source: '', snippets: ['grid', 'grid'] })).toThrow(/'grid' listed twice/)
    expect(() => composeWgsl({ source: '', snippets: ['nope' as SnippetName] })).toThrow(/unknown snippet 'nope'/)
  })

  test('defineKernel keeps source and snippets on the spec and composes its code', () => {
    const spec = defineKernel({
      name: 'k',
      source: 'S',
      snippets: ['adam_step'],
      entryPoint: 'k',
      bindings: [],
      uniforms: [],
      overrides: {},
      dispatchSize: () => [1, 1, 1],
    })
    expect([spec.source, spec.snippets, spec.code]).toEqual(['S', ['adam_step'], `S\n${WGSL_SNIPPETS.adam_step}`])
  })
})

describe('every product kernel is composed from its declared snippets', () => {
  test.each(PRODUCT_SPECS.map(s => [s.name, s] as const))('%s', (_, spec) => {
    expect(spec.source, `${spec.name} is not built with defineKernel`).toBeTypeOf('string')
    const snippets = spec.snippets ?? []
    expect(spec.code).toBe([spec.source, ...snippets.map(s => WGSL_SNIPPETS[s])].join('\n'))
    const own = functions(spec.source!)
    for (const s of snippetNames) {
      const fns = functions(WGSL_SNIPPETS[s])
      expect(
        own.filter(f => fns.includes(f)),
        `${spec.name} redefines ${s}'s functions`,
      ).toEqual([])
      const calls = fns.some(f => new RegExp(`\\b${f}\\s*\\(`).test(spec.source!))
      expect(calls, `${spec.name}: calls ${s}'s functions ${calls ? 'without declaring' : 'but declares'} '${s}'`).toBe(
        snippets.includes(s),
      )
    }
  })
})

describe('golden hashes of the composed WGSL', () => {
  const hashes = Object.fromEntries(
    [
      ...snippetNames.map(s => [`lib/${s}`, hashString(WGSL_SNIPPETS[s])]),
      ...PRODUCT_SPECS.map(s => [s.name, hashString(s.code)]),
    ].sort(([a], [b]) => a.localeCompare(b)),
  )

  test('match tests/unit/kernel-wgsl.golden.json (update it when a shader changes on purpose)', () => {
    expect(hashes, `new hashes:\n${JSON.stringify(hashes, null, 2)}`).toEqual(golden)
  })
})
