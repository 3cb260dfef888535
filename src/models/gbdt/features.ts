/**
 * GBDT-only feature rules: which features are split as categories, and the feature types a model
 * records. Which columns become features at all is model-neutral (src/eval/features.ts).
 */
import type { GbdtParams } from './types.ts'

/**
 * Which features are split as categories (1) rather than as ordered numbers (0), from their
 * XGBoost types and the parameters: with enable_categorical, every string feature ('c') and every
 * column named in `categorical`, which must be an integer or boolean ('int') or string feature.
 * Throws RangeError naming the column.
 */
export function categoricalFlags(
  names: readonly string[],
  types: readonly string[],
  p: Pick<GbdtParams, 'enable_categorical' | 'categorical'>,
): Uint8Array {
  const flags = new Uint8Array(names.length)
  if (!p.enable_categorical) return flags
  types.forEach((t, f) => {
    if (t === 'c') flags[f] = 1
  })
  for (const name of p.categorical) {
    const f = names.indexOf(name)
    if (f < 0) throw new RangeError(`categorical: no feature column ${name} (features: ${names.join(', ')})`)
    if (types[f] !== 'int' && types[f] !== 'c') {
      throw new RangeError(
        `categorical: column ${name} is a ${types[f] ?? 'float'} feature; only integer, boolean and string columns can be categorical`,
      )
    }
    flags[f] = 1
  }
  return flags
}

/**
 * The feature types a model trained with `flags` records: 'c' exactly for the features split as
 * categories; string codes split as ordered numbers become 'int' (what XGBoost must read them as).
 */
export function trainedFeatureTypes(types: readonly string[], flags: Uint8Array): string[] {
  return types.map((t, f) => (flags[f] ? 'c' : t === 'c' ? 'int' : t))
}
