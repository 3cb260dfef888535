/**
 * Categorical dictionaries travel inside the model file, in XGBoost's free-form learner
 * `attributes` (string → string; XGBoost keeps unknown attributes when it loads and saves), so
 * `snaptrain predict` maps a new table's strings to the same codes the trees were trained on.
 */

/** Attribute key holding JSON {column: [value of code 0, value of code 1, …]}. */
export const CATEGORIES_ATTRIBUTE = 'snaptrain_categories'

const PREFIX = '{"learner":{"attributes":{'

/**
 * Adds `attrs` to the attributes of a model string from toXGBoostJsonString (which always starts
 * with the attributes object), keeping the output deterministic. Throws on any other layout.
 */
export function addAttributes(model: string, attrs: Record<string, string>): string {
  if (!model.startsWith(PREFIX))
    throw new Error('model JSON: expected toXGBoostJsonString layout (learner.attributes first)')
  const keys = Object.keys(attrs).sort()
  if (keys.length === 0) return model
  const body = keys.map(k => `${JSON.stringify(k)}:${JSON.stringify(attrs[k])}`).join(',')
  const rest = model.slice(PREFIX.length)
  return PREFIX + body + (rest.startsWith('}') ? '' : ',') + rest
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
