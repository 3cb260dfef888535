/**
 * WGSL snippets shared by several kernels (shaders/lib/*.wgsl) and the one place where they are
 * joined to a kernel's own source (STYLE.md §5: shader strings are concatenated nowhere else).
 * A spec declares the snippets it needs; `defineKernel` composes its `code` from them.
 */
import adamStep from '../../shaders/lib/adam_step.wgsl?raw'
import fixed64 from '../../shaders/lib/fixed64.wgsl?raw'
import grid from '../../shaders/lib/grid.wgsl?raw'
import type { KernelSpec } from './spec.ts'

/** Snippet sources by name: `grid` (folded-grid indices), `fixed64` (64-bit pairs), `adam_step` (AdamW element). */
export const WGSL_SNIPPETS = { adam_step: adamStep, fixed64, grid } as const

/** Name of a shared snippet, shaders/lib/<name>.wgsl. */
export type SnippetName = keyof typeof WGSL_SNIPPETS

/** A kernel's own WGSL and the snippets it uses, in the order they are appended. */
export interface WgslParts {
  /** The kernel's .wgsl file as loaded with `?raw`. */
  source: string
  snippets: readonly SnippetName[]
}

/**
 * The WGSL compiled for `parts`: the kernel's source first, then each snippet once, in declared
 * order. Source first keeps compiler line numbers equal to the kernel file's; WGSL resolves
 * module-scope names in any order, so snippets may follow their callers.
 */
export function composeWgsl(parts: WgslParts): string {
  const seen = new Set<SnippetName>()
  for (const s of parts.snippets) {
    if (!(s in WGSL_SNIPPETS)) throw new RangeError(`composeWgsl: unknown snippet '${s}'`)
    if (seen.has(s)) throw new RangeError(`composeWgsl: snippet '${s}' listed twice`)
    seen.add(s)
  }
  return [parts.source, ...parts.snippets.map(s => WGSL_SNIPPETS[s])].join('\n')
}

/** A spec as written in a kernel module: `source` and `snippets` instead of the composed `code`. */
export type KernelDefinition<Shape> = Omit<KernelSpec<Shape>, 'code' | 'source' | 'snippets'> &
  Partial<Pick<WgslParts, 'snippets'>> &
  Pick<WgslParts, 'source'>

/** The spec with `code` = composeWgsl(source, snippets); `source` and `snippets` stay on it for tests. */
export function defineKernel<Shape>(def: KernelDefinition<Shape>): KernelSpec<Shape> {
  const snippets = def.snippets ?? []
  return { ...def, snippets, code: composeWgsl({ source: def.source, snippets }) }
}
