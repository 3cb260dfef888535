/** Every KernelSpec the product and the bench define, loaded in Node (vite resolves the `?raw` WGSL). */
import type { KernelSpec } from '../../src/kernels/spec.ts'

// histogram_choice.ts holds no spec and evaluates GPUBufferUsage (absent in Node) when loaded.
const productModules = import.meta.glob<Record<string, unknown>>(
  ['../../src/kernels/**/*.ts', '!../../src/kernels/**/*.ref.ts', '!../../src/kernels/gbdt/histogram_choice.ts'],
  { eager: true },
)
const benchModules = import.meta.glob<Record<string, unknown>>(
  ['../../bench/kernels/*.ts', '!../../bench/kernels/*.ref.ts'],
  { eager: true },
)

function isSpec(v: unknown): v is KernelSpec<unknown> {
  const s = v as Partial<KernelSpec<unknown>> | null
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.code === 'string' &&
    Array.isArray(s.bindings) &&
    typeof s.dispatchSize === 'function'
  )
}

function specsOf(modules: Record<string, Record<string, unknown>>): KernelSpec<unknown>[] {
  const all = Object.values(modules).flatMap(m => Object.values(m).filter(isSpec))
  return [...new Set(all)].sort((a, b) => a.name.localeCompare(b.name))
}

/** The product's specs (src/kernels), each once, by name. */
export const PRODUCT_SPECS = specsOf(productModules)

/** The bench's specs (bench/kernels), each once, by name. */
export const BENCH_SPECS = specsOf(benchModules)
