/**
 * A GBDT model file read in Node, before a browser starts (`snaptrain predict --model`,
 * `snaptrain train --init-model`): JSON or UBJSON by its extension (model-file.ts), checked as an
 * XGBoost model we can use, and handed on as JSON text — how a model crosses into the page, whose
 * call is source text.
 */
import { readFileSync } from 'node:fs'
import { decodeModel, modelFormatOf, modelJsonText } from '../models/gbdt/model-file.ts'
import { fromXGBoostJson } from '../models/gbdt/xgboost-json.ts'
import { categoriesOf } from '../models/gbdt/model-attributes.ts'

/** The model at `path` as JSON text, checked. Throws `<flag> <path>: <what is wrong>`. */
export function readModelFile(path: string, flag: string): string {
  let bytes: Uint8Array
  try {
    bytes = readFileSync(path)
  } catch (e) {
    throw new Error(
      `${flag} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    )
  }
  const format = modelFormatOf(path)
  try {
    const json = decodeModel(format === 'json' ? new TextDecoder().decode(bytes) : bytes, format)
    fromXGBoostJson(json)
    categoriesOf(json)
    return format === 'json' ? new TextDecoder().decode(bytes) : modelJsonText(bytes, format)
  } catch (e) {
    throw new Error(`${flag} ${path}: ${(e as Error).message}`)
  }
}
