/**
 * What each model accepts, for space validation (tune/space.ts parseSpace takes one of these):
 * parameter names and values are checked with the family's own parser, so a space can only hold
 * values a trial would accept. The page plans a sweep while the user types, so the families'
 * parameter parsers are here at once, not loaded lazily; everything else about a family is its
 * description in src/models/registry.ts.
 */
import type { ModelParamCheck } from '../tune/types.ts'
import type { ModelFamily } from '../run/family.ts'
import { familyOf } from '../models/registry.ts'
import { gbdtFamily, GBDT_PARAM_NAMES } from '../models/gbdt/family.ts'
import { recsysFamily } from '../models/recsys/family.ts'
import { gblinearFamily } from '../models/gblinear/family.ts'

export { GBDT_PARAM_NAMES }

/** The family modules whose parameter parsers check sweep spaces (one per registry entry). */
const MODULES: readonly ModelFamily[] = [gbdtFamily, recsysFamily, gblinearFamily as ModelFamily]

/** Family `name`'s module; RangeError naming the known families otherwise. */
function moduleOf(name: string): ModelFamily {
  const m = MODULES.find(f => f.name === name)
  if (!m) throw new RangeError(`model ${familyOf(name).name}: no parameter check registered in sweep/model-params.ts`)
  return m
}

/** The parameter check of family `name` (its description's probe, its module's parser). */
export function paramCheck(name: string): ModelParamCheck {
  const m = moduleOf(name)
  const { probe } = familyOf(name).sweep
  return {
    model: m.name,
    names: m.paramNames,
    check: raw => {
      m.params({ params: raw })
    },
    ...(probe ? { probe } : {}),
  }
}

/** Known parameter names per model. */
export const MODEL_PARAM_NAMES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  MODULES.map(m => [m.name, m.paramNames]),
)

/** The parameter checks of each model. */
export const MODEL_PARAMS: Readonly<Record<string, ModelParamCheck>> = Object.fromEntries(
  MODULES.map(m => [m.name, paramCheck(m.name)]),
)
