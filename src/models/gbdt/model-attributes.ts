/**
 * Categorical dictionaries travel inside the model file, in XGBoost's free-form learner
 * `attributes` (string → string; XGBoost keeps unknown attributes when it loads and saves), so
 * `snaptrain predict` maps a new table's strings to the same codes the trees were trained on.
 */

/** Attribute key holding JSON {column: [value of code 0, value of code 1, …]}. */
export const CATEGORIES_ATTRIBUTE = 'snaptrain_categories'

/**
 * The model object (toXGBoostJson's) with `attrs` in its learner attributes: the new keys first,
 * sorted, then the attributes it had (a key in both takes the new value). Deterministic, and the
 * one step before either model file encoding (model-file.ts). Throws when there is no learner.
 */
export function withAttributes(model: Record<string, unknown>, attrs: Record<string, string>): Record<string, unknown> {
  const learner = model.learner as Record<string, unknown> | undefined
  if (!learner || typeof learner !== 'object') throw new Error('model: expected an XGBoost model object (no learner)')
  const had = (learner.attributes ?? {}) as Record<string, string>
  const attributes: Record<string, string> = {}
  for (const k of Object.keys(attrs).sort()) attributes[k] = attrs[k]
  for (const [k, v] of Object.entries(had)) if (!(k in attributes)) attributes[k] = v
  return { ...model, learner: { ...learner, attributes } }
}

/** The categorical dictionaries of a parsed XGBoost JSON model ({} when it has none). */
export function categoriesOf(model: unknown): Record<string, string[]> {
  const attrs = (model as { learner?: { attributes?: Record<string, unknown> } })?.learner?.attributes
  const raw = attrs?.[CATEGORIES_ATTRIBUTE]
  if (raw === undefined) return {}
  const parsed = JSON.parse(String(raw)) as unknown
  if (!parsed || typeof parsed !== 'object')
    throw new RangeError(`model attribute ${CATEGORIES_ATTRIBUTE}: not an object`)
  for (const [k, v] of Object.entries(parsed)) {
    if (!Array.isArray(v) || v.some(x => typeof x !== 'string'))
      throw new RangeError(`model attribute ${CATEGORIES_ATTRIBUTE}: ${k} is not a list of strings`)
  }
  return parsed as Record<string, string[]>
}

/**
 * Attribute key holding a multiclass model's label dictionary: JSON [value of class 0, value of
 * class 1, …] (Booster.labelValues), so `snaptrain predict` writes the label's own values.
 */
export const LABEL_VALUES_ATTRIBUTE = 'snaptrain_label_values'

/**
 * The label dictionary of a parsed XGBoost JSON model (undefined when it has none): distinct
 * strings or finite numbers, one per class.
 */
export function labelValuesOf(model: unknown): Array<string | number> | undefined {
  const attrs = (model as { learner?: { attributes?: Record<string, unknown> } })?.learner?.attributes
  const raw = attrs?.[LABEL_VALUES_ATTRIBUTE]
  if (raw === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(String(raw))
  } catch {
    throw new RangeError(`model attribute ${LABEL_VALUES_ATTRIBUTE}: not JSON`)
  }
  if (
    !Array.isArray(parsed) ||
    parsed.some(v => typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v)))
  )
    throw new RangeError(`model attribute ${LABEL_VALUES_ATTRIBUTE}: not a list of strings or numbers`)
  if (new Set(parsed).size !== parsed.length)
    throw new RangeError(`model attribute ${LABEL_VALUES_ATTRIBUTE}: a value is listed twice`)
  return parsed as Array<string | number>
}
