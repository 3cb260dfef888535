/**
 * The linear model as XGBoost's JSON model (1.7: src/gbm/gblinear_model.cc SaveModel/LoadModel):
 * learner.gradient_booster = {"name": "gblinear", "model": {"weights": [w_0 … w_F−1, bias],
 * "boosted_rounds": R}} for one output group; base_score, objective and feature names as every
 * XGBoost model. Floats are written as the shortest decimals of their float32s, as XGBoost writes
 * them, so XGBoost reads back the same floats. F = features.
 */
import { OBJECTIVES, type LinearObjective } from './params.ts'
import type { LinearModel } from './train.ts'
import { shortestFloat32 } from '../../util/float32.ts'

/** The model as XGBoost JSON text. */
export function toXGBoostJson(model: LinearModel): string {
  const attributes: Record<string, string> = {}
  if (model.bestIteration !== undefined) attributes.best_iteration = String(model.bestIteration)
  const doc = {
    learner: {
      attributes,
      feature_names: model.featureNames,
      feature_types: model.featureNames.map(() => 'float'),
      gradient_booster: {
        model: { boosted_rounds: model.rounds, weights: [...model.weights, model.bias].map(shortestFloat32) },
        name: 'gblinear',
      },
      learner_model_param: {
        base_score: String(shortestFloat32(model.baseScore)),
        boost_from_average: '0',
        num_class: '0',
        num_feature: String(model.weights.length),
        num_target: '1',
      },
      objective: {
        name: model.objective,
        reg_loss_param: { scale_pos_weight: String(shortestFloat32(model.scalePosWeight)) },
      },
    },
    version: [1, 7, 4],
  }
  return JSON.stringify(doc)
}

/** True when `text` (a JSON prefix is enough to say no) is an XGBoost model whose booster is gblinear. */
export function isGblinearJson(doc: unknown): boolean {
  const gb = (doc as { learner?: { gradient_booster?: { name?: unknown } } } | null)?.learner?.gradient_booster
  return gb?.name === 'gblinear'
}

/**
 * A linear model from XGBoost JSON (text, UTF-8 bytes or the parsed object). Throws naming what
 * is missing or unsupported (several output groups, an objective we do not predict with).
 */
export function fromXGBoostJson(input: string | Uint8Array | unknown, where = 'model'): LinearModel {
  const doc =
    typeof input === 'string'
      ? parse(input, where)
      : input instanceof Uint8Array
        ? parse(new TextDecoder('utf-8', { fatal: true }).decode(input), where)
        : input
  if (!isGblinearJson(doc))
    throw new RangeError(`${where}: not an XGBoost gblinear model (learner.gradient_booster.name)`)
  const learner = (doc as { learner: Record<string, any> }).learner
  const mp = learner.learner_model_param ?? {}
  const F = Number(mp.num_feature)
  const groups = Math.max(1, Number(mp.num_class ?? 0), Number(mp.num_target ?? 1))
  if (!Number.isInteger(F) || F < 0) throw new RangeError(`${where}: learner_model_param.num_feature missing or bad`)
  if (groups !== 1) throw new RangeError(`${where}: ${groups} output groups; gblinear here predicts one output`)
  const raw = learner.gradient_booster.model?.weights
  if (!Array.isArray(raw) || raw.length !== F + 1)
    throw new RangeError(`${where}: gradient_booster.model.weights must hold ${F + 1} numbers (${F} features + bias)`)
  const objective = learner.objective?.name as LinearObjective
  if (!OBJECTIVES.includes(objective))
    throw new RangeError(`${where}: objective ${objective} (gblinear here predicts ${OBJECTIVES.join(', ')})`)
  const baseScore = Number(mp.base_score ?? 0.5) // XGBoost's default
  const names: string[] | undefined = learner.feature_names?.length ? learner.feature_names : undefined
  const spw = Number(learner.objective?.reg_loss_param?.scale_pos_weight ?? 1)
  const best = learner.attributes?.best_iteration
  return {
    weights: Float32Array.from(raw.slice(0, F), Number),
    bias: Math.fround(Number(raw[F])),
    baseScore: Math.fround(baseScore),
    objective,
    scalePosWeight: spw,
    featureNames: names ?? Array.from({ length: F }, (_, f) => `f${f}`),
    rounds: Number(learner.gradient_booster.model?.boosted_rounds ?? 0),
    history: [],
    bestIteration: best === undefined ? undefined : Number(best),
  }
}

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new SyntaxError(`${where}: not JSON (${(e as Error).message})`)
  }
}
