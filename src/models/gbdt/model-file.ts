/**
 * The GBDT model file: one XGBoost model object (toXGBoostJson's, with the learner attributes)
 * serialised as JSON text (`.json`) or UBJSON (`.ubj`, XGBoost's default since 2.1), chosen by the
 * file name's extension wherever a model is written or read (snaptrain train, predict,
 * --init-model). Both encodings hold the same object, so a model converts between them without
 * losing a value, and the same booster always gives the same bytes.
 */
import { parseXGBoostJsonText } from './json-text.ts'
import { decodeUbjson, encodeUbjson } from './ubjson.ts'
import { ARRAY_TYPES, xgboostJsonText } from './xgboost-json.ts'

/** The two encodings. */
export type ModelFormat = 'json' | 'ubj'

/** The formats by file extension. */
export const MODEL_FORMATS: readonly ModelFormat[] = ['json', 'ubj']

/** The format a model file's name says: `.ubj` is UBJSON, anything else JSON text (as before UBJSON existed). */
export function modelFormatOf(path: string): ModelFormat {
  return /\.ubj$/i.test(path) ? 'ubj' : 'json'
}

/** The model file name of a run's output folder in `format`. */
export function modelFileName(format: ModelFormat = 'json'): string {
  return `model.${format}`
}

/** `model` (an XGBoost model object) as a file of `format`: JSON text, or UBJSON bytes. */
export function encodeModel(model: unknown, format: ModelFormat): string | Uint8Array<ArrayBuffer> {
  if (format === 'json') return xgboostJsonText(model)
  return encodeUbjson(model, key => ARRAY_TYPES[key])
}

/**
 * The model object of a file's contents: text is XGBoost JSON (NaN tokens allowed), bytes are
 * UBJSON — or JSON text as UTF-8 when `format` says 'json'. Throws naming what is wrong; callers
 * prefix the file.
 */
export function decodeModel(data: string | Uint8Array, format?: ModelFormat): unknown {
  if (typeof data === 'string') return parseXGBoostJsonText(data)
  if (format === 'json') return parseXGBoostJsonText(new TextDecoder('utf-8', { fatal: true }).decode(data))
  return decodeUbjson(data)
}

/**
 * The model as JSON text, whatever it was read from: how a model crosses into the page (the CLI
 * hands the page source text; UBJSON's NaN conditions stay XGBoost's NaN tokens).
 */
export function modelJsonText(data: string | Uint8Array, format?: ModelFormat): string {
  return typeof data === 'string' ? data : xgboostJsonText(decodeModel(data, format))
}
