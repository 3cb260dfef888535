/**
 * A kernel's `.ref.ts` is maths, not a library of layouts: production code takes constants,
 * packing helpers and layout types from the kernel modules (src/kernels/<area>/layout.ts,
 * fixed-point.ts, <kernel>.ts), never from a reference. The CPU backends are the references run
 * as trainers (the executable specification of the GPU ones), so they alone may import a
 * reference, and only the function of a kernel entry point (e.g. `histogramBuild` for
 * `fn histogram_build`), nothing else from it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, test } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

/** Modules that run the references on the CPU. */
const CPU_EXECUTORS = [
  'src/models/gbdt/cpu-backend.ts',
  'src/models/gbdt/shap.ts',
  'src/models/recsys/model-ref.ts',
  'src/models/recsys/ranks.ts',
  'src/models/recsys/optimizer.ts',
]

/** Every .ts file under src/, relative to the repository root. */
function sources(dir = 'src'): string[] {
  return readdirSync(join(ROOT, dir)).flatMap(name => {
    const rel = join(dir, name)
    return statSync(join(ROOT, rel)).isDirectory() ? sources(rel) : rel.endsWith('.ts') ? [rel] : []
  })
}

/** One import of a `.ref.ts`: the importing file, the reference, the names (empty for `import()`). */
interface RefImport {
  file: string
  ref: string
  names: string[]
}

/** Static (incl. `import type`, re-exports) and dynamic imports of `.ref.ts` files in `text`. */
export function refImports(file: string, text: string): RefImport[] {
  const at = (spec: string): string => relative(ROOT, resolve(ROOT, dirname(file), spec))
  const named = [...text.matchAll(/^(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']+\.ref\.ts)'/gm)].map(
    m => ({
      file,
      ref: at(m[2]),
      names: m[1]
        .split(',')
        .map(n =>
          n
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)[0]
            .trim(),
        )
        .filter(Boolean),
    }),
  )
  const other = [
    ...text.matchAll(
      /^(?:import|export)\s+(?!(?:type\s+)?\{)[^'\n]*'([^']+\.ref\.ts)'|\bimport\(\s*'([^']+\.ref\.ts)'\s*\)/gm,
    ),
  ].map(m => ({ file, ref: at(m[1] ?? m[2]), names: [] as string[] }))
  return [...named, ...other]
}

/** camelCase names of the `@compute` entry points of the shader a reference belongs to. */
function entryPointFunctions(ref: string): string[] {
  const wgsl = ref.replace(/^src\/kernels\//, 'shaders/').replace(/\.ref\.ts$/, '.wgsl')
  if (!existsSync(join(ROOT, wgsl))) return []
  const text = readFileSync(join(ROOT, wgsl), 'utf8')
  return [...text.matchAll(/@compute[^;{]*?fn\s+(\w+)\s*\(/g)].map(m =>
    m[1].replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
  )
}

/** What is wrong with `imp` (empty: allowed). */
export function violations(imp: RefImport): string[] {
  if (imp.file.endsWith('.ref.ts')) return []
  if (!CPU_EXECUTORS.includes(imp.file)) return [`${imp.file} imports ${imp.ref}`]
  if (imp.names.length === 0) return [`${imp.file} imports ${imp.ref} whole`]
  const allowed = entryPointFunctions(imp.ref)
  return imp.names
    .filter(n => !allowed.includes(n))
    .map(n => `${imp.file} imports ${n} from ${imp.ref} (not a kernel entry point's reference)`)
}

describe('production code imports no .ref.ts', () => {
  const all = sources().flatMap(f => refImports(f, readFileSync(join(ROOT, f), 'utf8')))

  test("the scan finds the CPU executors' references", () => {
    expect(all.some(i => i.file === 'src/models/gbdt/cpu-backend.ts' && i.names.includes('histogramBuild'))).toBe(true)
    expect(
      all.some(i => i.file === 'src/kernels/recsys/rowwise_adam.ref.ts' && i.ref === 'src/kernels/recsys/adam.ref.ts'),
    ).toBe(true)
  })

  test('only the CPU executors import references, and only entry-point functions', () => {
    expect(all.flatMap(violations)).toEqual([])
  })

  test('the check fails on a constant, a type, a dynamic import or a production module importing a reference', () => {
    const cpu = 'src/models/gbdt/cpu-backend.ts'
    expect(
      refImports(cpu, "import { gradient, ROW_UNUSED } from '../../kernels/gbdt/gradient.ref.ts'\n").flatMap(
        violations,
      ),
    ).toEqual([
      `${cpu} imports ROW_UNUSED from src/kernels/gbdt/gradient.ref.ts (not a kernel entry point's reference)`,
    ])
    expect(
      refImports(cpu, "import { quantise, quantiseMax } from '../../kernels/gbdt/quantise.ref.ts'\n").flatMap(
        violations,
      ),
    ).toEqual([])
    const gpu = 'src/models/gbdt/gpu-backend.ts'
    expect(
      refImports(gpu, "import type { SplitResult } from '../../kernels/gbdt/split_evaluate.ref.ts'\n").flatMap(
        violations,
      ),
    ).toEqual([`${gpu} imports src/kernels/gbdt/split_evaluate.ref.ts`])
    expect(
      refImports('src/models/gbdt/predict-run.ts', "  await import('../../kernels/gbdt/predict.ref.ts')\n").flatMap(
        violations,
      ),
    ).toEqual(['src/models/gbdt/predict-run.ts imports src/kernels/gbdt/predict.ref.ts'])
    expect(
      refImports('src/kernels/recsys/adam.ts', "import { adamUniforms } from './adam.ref.ts'\n").flatMap(violations),
    ).toEqual(['src/kernels/recsys/adam.ts imports src/kernels/recsys/adam.ref.ts'])
  })
})
