/**
 * Sweep defaults. A family's default space and resources are its own (src/models/registry.ts, the
 * description's `sweep`); the engine imports no model, so its callers hand it the family's
 * description (SweepFamily) and it reads them there.
 */
import type { SweepFamily } from './types.ts'

/** Trials of random / ASHA / TPE when a sweep does not say. */
export const DEFAULT_TRIALS = 20

/**
 * The default space JSON of `family` (ParamDomain objects; parse with parseSpace), a fresh copy.
 * Its resource parameter (family.resource.param: num_round, epochs…) is what grid, random and TPE
 * train each configuration to; Hyperband, ASHA and BOHB replace it with their rung resources.
 */
export function defaultSpace(family: SweepFamily): Record<string, unknown> {
  return structuredClone(family.sweep.space) as Record<string, unknown>
}
