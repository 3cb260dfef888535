/**
 * What each model accepts, for space validation (tune/space.ts parseSpace takes one of these):
 * parameter names and values are checked with the family's own parser, so a space can only hold
 * values a trial would accept.
 */
import type { ModelParamCheck, SweepModel } from '../tune/types.ts'
import { gbdtFamily, GBDT_PARAM_NAMES } from '../models/gbdt/family.ts'
import { recsysFamily } from '../models/recsys/family.ts'

export { GBDT_PARAM_NAMES }
const RECSYS_PARAM_NAMES = recsysFamily.paramNames

/** Known parameter names per model. */
export const MODEL_PARAM_NAMES: Readonly<Record<SweepModel, readonly string[]>> = {
  gbdt: GBDT_PARAM_NAMES,
  recsys: RECSYS_PARAM_NAMES,
}

/** The parameter checks of each model. */
export const MODEL_PARAMS: Readonly<Record<SweepModel, ModelParamCheck>> = {
  gbdt: {
    model: 'gbdt',
    names: GBDT_PARAM_NAMES,
    check: raw => {
      gbdtFamily.params({ params: raw })
    },
  },
  recsys: {
    model: 'recsys',
    names: RECSYS_PARAM_NAMES,
    check: raw => {
      recsysFamily.params({ params: raw })
    },
    // recsys refuses weight_decay > 0 unless optimizer is adamw, and cross_layers / cross_rank other
    // than the defaults unless architecture is 'dcn': probe the value's own range only.
    probe: (name, value) => ({
      ...(name !== 'optimizer' ? { optimizer: 'adamw' } : {}),
      ...(name.startsWith('cross_') ? { architecture: 'dcn' } : {}),
      [name]: value,
    }),
  },
}
