/**
 * Each KernelSpec against its WGSL, without a GPU: the `@group(0) @binding(n)` declarations
 * (name, `var<uniform>` / `var<storage, read>` / `var<storage, read_write>`), the uniform struct's
 * fields with their WGSL types and byte offsets (as packUniforms writes them), the `override`
 * constants and the entry point. A spec that disagrees with its shader fails here instead of as a
 * GPU validation error (or silent garbage) at run time.
 */
import { describe, expect, test } from 'vitest'
import type { BindingSpec } from '../../src/gpu/types.ts'
import type { KernelSpec, UniformField } from '../../src/kernels/spec.ts'
import { BENCH_SPECS, PRODUCT_SPECS } from './kernel-specs.ts'

/** A binding as the WGSL declares it. */
interface WgslBinding extends BindingSpec {
  group: number
  type: string
}

/** A uniform struct field with the byte offset WGSL's layout rules give it. */
interface WgslField {
  name: string
  type: string
  offset: number
}

/** WGSL comments removed, so commented-out declarations do not count. */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
}

/** Every `@group(g) @binding(b) var<…> name: type;` of `code`, in binding order. */
export function wgslBindings(code: string): WgslBinding[] {
  const re =
    /@group\((\d+)\)\s*@binding\((\d+)\)\s*var<\s*(uniform|storage)\s*(?:,\s*(read|read_write)\s*)?>\s*(\w+)\s*:\s*([^;]+);/g
  return [...stripComments(code).matchAll(re)]
    .map(
      m =>
        ({
          group: Number(m[1]),
          binding: Number(m[2]),
          name: m[5],
          type: m[6].trim(),
          kind: m[3] === 'uniform' ? 'uniform' : m[4] === 'read_write' ? 'storage' : 'read-only-storage',
        }) satisfies WgslBinding,
    )
    .sort((a, b) => a.binding - b.binding)
}

const SIZE_ALIGN: Record<string, [number, number]> = {
  u32: [4, 4],
  i32: [4, 4],
  f32: [4, 4],
  'vec2<u32>': [8, 8],
  'vec2<i32>': [8, 8],
  'vec2<f32>': [8, 8],
  vec2u: [8, 8],
  vec2i: [8, 8],
  vec2f: [8, 8],
  'vec3<u32>': [12, 16],
  'vec3<i32>': [12, 16],
  'vec3<f32>': [12, 16],
  vec3u: [12, 16],
  vec3i: [12, 16],
  vec3f: [12, 16],
  'vec4<u32>': [16, 16],
  'vec4<i32>': [16, 16],
  'vec4<f32>': [16, 16],
  vec4u: [16, 16],
  vec4i: [16, 16],
  vec4f: [16, 16],
}

/** Fields of `struct name { … }` in `code` with their WGSL offsets (uniform address space rules). */
export function wgslStruct(code: string, name: string): WgslField[] {
  const body = new RegExp(`struct\\s+${name}\\s*\\{([^}]*)\\}`).exec(stripComments(code))?.[1]
  if (body === undefined) throw new Error(`no struct ${name}`)
  let offset = 0
  return [...body.matchAll(/(\w+)\s*:\s*([\w<>]+)\s*,?/g)].map(m => {
    const sa = SIZE_ALIGN[m[2]]
    if (!sa) throw new Error(`struct ${name}.${m[1]}: type ${m[2]} not handled`)
    offset = Math.ceil(offset / sa[1]) * sa[1]
    const field = { name: m[1], type: m[2], offset }
    offset += sa[0]
    return field
  })
}

/** Names of the `override` constants `code` declares, with their types. */
export function wgslOverrides(code: string): Map<string, string> {
  return new Map([...stripComments(code).matchAll(/\boverride\s+(\w+)\s*:\s*(\w+)/g)].map(m => [m[1], m[2]]))
}

/** Every mismatch between `spec` and its WGSL (empty: they agree). `siblings` share its module. */
export function specMismatches(spec: KernelSpec<unknown>, siblings: readonly KernelSpec<unknown>[] = [spec]): string[] {
  const out: string[] = []
  const declared = wgslBindings(spec.code)
  for (const d of declared) if (d.group !== 0) out.push(`${d.name}: @group(${d.group}), specs bind group 0 only`)
  for (const b of spec.bindings) {
    const d = declared.find(x => x.binding === b.binding)
    if (!d) out.push(`binding ${b.binding} (${b.name}) is not declared in the WGSL`)
    else if (d.name !== b.name || d.kind !== b.kind)
      out.push(`binding ${b.binding}: spec ${b.name} ${b.kind}, WGSL ${d.name} ${d.kind}`)
  }
  // A module shared by several entry points may declare bindings only some of them use.
  for (const d of declared) {
    if (!siblings.some(s => s.bindings.some(b => b.binding === d.binding)))
      out.push(`WGSL binding ${d.binding} (${d.name}) is in no spec`)
  }
  out.push(...uniformMismatches(spec, declared))
  const overrides = wgslOverrides(spec.code)
  for (const o of Object.keys(spec.overrides)) {
    // Sizes and counts are u32; layout switches (matmul_tiled's TRANS_A / TRANS_B) are bool.
    if (!overrides.has(o)) out.push(`override ${o} is not declared in the WGSL`)
    else if (!['u32', 'bool'].includes(overrides.get(o)!))
      out.push(`override ${o}: ${overrides.get(o)}, not u32 or bool`)
  }
  if (!new RegExp(`@compute[^;{]*?fn\\s+${spec.entryPoint}\\s*\\(`).test(stripComments(spec.code)))
    out.push(`no @compute entry point ${spec.entryPoint}`)
  return out
}

function uniformMismatches(spec: KernelSpec<unknown>, declared: readonly WgslBinding[]): string[] {
  const params = declared.find(d => d.kind === 'uniform')
  const specParams = spec.bindings.find(b => b.name === 'params')
  if (!params) return spec.uniforms.length || specParams ? ['the spec has uniforms, the WGSL no var<uniform>'] : []
  if (!specParams) return [`the WGSL binds uniform ${params.name}, the spec has no 'params' binding`]
  const fields = wgslStruct(spec.code, params.type)
  const want = spec.uniforms.map((f: UniformField, i) => `${f.name}: ${f.type} @ ${i * 4}`)
  const got = fields.map(f => `${f.name}: ${f.type} @ ${f.offset}`)
  return want.join(', ') === got.join(', ')
    ? []
    : [`uniform struct ${params.type}: spec [${want.join(', ')}], WGSL [${got.join(', ')}]`]
}

/** Specs grouped by the WGSL module they compile. */
function modules(specs: readonly KernelSpec<unknown>[]): Map<string, KernelSpec<unknown>[]> {
  const byCode = new Map<string, KernelSpec<unknown>[]>()
  for (const s of specs) byCode.set(s.code, [...(byCode.get(s.code) ?? []), s])
  return byCode
}

describe('kernel specs agree with their WGSL', () => {
  test('every product kernel and the bench kernels are found', () => {
    expect(PRODUCT_SPECS.map(s => s.name)).toEqual(
      expect.arrayContaining(['histogram_build', 'histogram_build_rows', 'matmul_tiled', 'quantise_max', 'adam']),
    )
    expect(PRODUCT_SPECS.length).toBeGreaterThan(25)
    expect(BENCH_SPECS.map(s => s.name)).toEqual(expect.arrayContaining(['stream_rmw', 'matmul_naive', 'noop']))
  })

  const all = [...PRODUCT_SPECS, ...BENCH_SPECS]
  const byModule = modules(all)
  test.each(all.map(s => [s.name, s] as const))('%s: bindings, uniform layout, overrides, entry point', (_, spec) => {
    expect(specMismatches(spec, byModule.get(spec.code))).toEqual([])
  })
})

describe('the check fails on a wrong spec', () => {
  const spec = PRODUCT_SPECS.find(s => s.name === 'matmul_tiled')!
  const swap = <T>(xs: readonly T[], i: number, j: number): T[] =>
    xs.map((x, k) => (k === i ? xs[j] : k === j ? xs[i] : x))

  test('parses the declarations', () => {
    expect(wgslBindings(spec.code).map(b => `${b.binding} ${b.name} ${b.kind}`)).toEqual([
      '0 params uniform',
      '1 a read-only-storage',
      '2 b read-only-storage',
      '3 c storage',
    ])
    expect(wgslStruct(spec.code, 'Params')).toEqual([
      { name: 'm', type: 'u32', offset: 0 },
      { name: 'k', type: 'u32', offset: 4 },
      { name: 'n', type: 'u32', offset: 8 },
      { name: 'accumulate', type: 'u32', offset: 12 },
    ])
    expect(wgslStruct('struct P { a: f32, b: vec3<f32>, c: u32 }', 'P').map(f => f.offset)).toEqual([0, 16, 28])
    expect([...wgslOverrides(spec.code)]).toEqual([
      ['TILE', 'u32'],
      ['TRANS_A', 'bool'],
      ['TRANS_B', 'bool'],
    ])
  })

  test('a wrong kind, name, binding number, missing binding or extra WGSL binding', () => {
    const kind = {
      ...spec,
      bindings: spec.bindings.map(b => (b.name === 'c' ? { ...b, kind: 'read-only-storage' as const } : b)),
    }
    expect(specMismatches(kind)).toEqual(['binding 3: spec c read-only-storage, WGSL c storage'])
    const named = { ...spec, bindings: spec.bindings.map(b => (b.name === 'a' ? { ...b, name: 'inp' } : b)) }
    expect(specMismatches(named)).toEqual(['binding 1: spec inp read-only-storage, WGSL a read-only-storage'])
    const renumbered = { ...spec, bindings: spec.bindings.map(b => (b.name === 'c' ? { ...b, binding: 4 } : b)) }
    expect(specMismatches(renumbered)).toEqual([
      'binding 4 (c) is not declared in the WGSL',
      'WGSL binding 3 (c) is in no spec',
    ])
  })

  test('uniform fields out of order, of another type or missing; a missing override or entry point', () => {
    expect(specMismatches({ ...spec, uniforms: swap(spec.uniforms, 0, 1) })[0]).toMatch(
      /^uniform struct Params: spec \[k: u32 @ 0, m: u32 @ 4/,
    )
    const typed = { ...spec, uniforms: spec.uniforms.map(f => (f.name === 'n' ? { ...f, type: 'f32' as const } : f)) }
    expect(specMismatches(typed)).toHaveLength(1)
    expect(specMismatches({ ...spec, uniforms: spec.uniforms.slice(0, 3) })).toHaveLength(1)
    expect(specMismatches({ ...spec, overrides: { ...spec.overrides, WG: 64 } })).toEqual([
      'override WG is not declared in the WGSL',
    ])
    expect(specMismatches({ ...spec, entryPoint: 'matmul' })).toEqual(['no @compute entry point matmul'])
  })
})
