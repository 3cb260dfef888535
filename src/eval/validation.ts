/**
 * The one validation-set rule of every run and sweep: validation rows come from a second table
 * (validTable, at validVersion), or a seeded fraction of the training table's rows (validFraction
 * in (0, 1), src/data/row-key.ts), or there are none. A sweep's metric needs some, so a sweep
 * without a validation table splits off a default fraction.
 */

/**
 * The validation share every shell proposes when the user names none: the page's train and sweep
 * forms, `snaptrain train` (--valid-fraction 0 for none) and `snaptrain sweep`.
 */
export const DEFAULT_VALID_FRACTION = 0.2

/** Where a run's validation rows come from. */
export type ValidationSet =
  | { kind: 'table'; table: string; version?: number }
  | { kind: 'fraction'; fraction: number }
  | { kind: 'none' }

/**
 * The validation set `c` asks for (`defaultFraction`: the fraction when neither is given, a
 * sweep's). Throws naming the fields when both are given or the fraction is not in (0, 1).
 */
export function validationSet(
  c: { validTable?: string; validVersion?: number; validFraction?: number },
  defaultFraction?: number,
): ValidationSet {
  if (c.validTable && c.validFraction !== undefined)
    throw new RangeError('validTable and validFraction: give at most one')
  if (c.validTable) return { kind: 'table', table: c.validTable, version: c.validVersion }
  const fraction = c.validFraction ?? defaultFraction
  if (fraction === undefined) return { kind: 'none' }
  if (!(fraction > 0 && fraction < 1)) throw new RangeError(`validFraction: must be in (0, 1), got ${fraction}`)
  return { kind: 'fraction', fraction }
}
