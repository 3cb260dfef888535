/**
 * Parameter checks shared by the XGBoost families (GBDT, gblinear): a number in a range and one of
 * a list, each refused with a RangeError naming the parameter as given, the allowed values and the
 * value. Each family keeps its own table of ranges.
 */

/** A numeric parameter's range: [name, kind, lo, hi, loOpen, hiOpen]. */
export type NumericRange<K extends string = string> = readonly [K, 'int' | 'num', number, number, boolean, boolean]

/**
 * `value` (a number or a numeric string, as XGBoost's own config takes) checked against `range`.
 * Throws RangeError naming `given` and the range.
 */
export function numericParam(range: NumericRange, given: string, value: unknown): number {
  const [, kind, lo, hi, loOpen, hiOpen] = range
  const v = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  const allowed = `${kind === 'int' ? 'an integer' : 'a number'} in ${loOpen ? '(' : '['}${lo}, ${hi}${hiOpen ? ')' : ']'}`
  const ok =
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (kind === 'num' || Number.isInteger(v)) &&
    (loOpen ? v > lo : v >= lo) &&
    (hiOpen ? v < hi : v <= hi)
  if (!ok) throw new RangeError(`${given}: must be ${allowed}, got ${JSON.stringify(value)}`)
  return v as number
}

/** `value` if it is one of `allowed`; else throws RangeError naming `given` and the choices. */
export function oneOf<T extends string>(given: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw new RangeError(`${given}: must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`)
  return value as T
}
