/**
 * `snaptrain export --model model.bin --format onnx|safetensors --out F [--json]`: converts a
 * recommender's model file (a checkpoint, snaptrain train --model recsys) in Node, no browser:
 * onnx writes F (the scoring path from raw values, models/recsys/onnx.ts); safetensors writes F
 * and features.json beside it (weights and feature pipeline for the PyTorch snippet), both as one
 * group (temp names + rename). A GBDT model, an unknown format or a missing file is a usage error
 * (exit 2) naming the flag and the file.
 */
import { readFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { parseCommand, type CommandSpec, type FlagSpec } from './args.ts'
import { readModelFile } from './model-file.ts'
import { writeOutputs } from './out-dir.ts'
import { isRecsysModel } from '../models/predict.ts'
import { EXPORT_FORMATS, exportModelFile, type ExportedModel } from '../models/recsys/export.ts'

const SPEC = {
  name: 'export',
  summary:
    'Convert a recommender model.bin to ONNX (model.onnx) or safetensors (model.safetensors + features.json, for PyTorch).',
  flags: {
    model: {
      type: 'string',
      required: true,
      placeholder: 'model.bin',
      help: 'recommender model file (snaptrain train --model recsys); GBDT models are already XGBoost JSON/UBJSON',
    },
    format: {
      type: 'string',
      required: true,
      choices: EXPORT_FORMATS,
      help: 'onnx: the whole scoring path, raw feature values in, prediction and logit out; safetensors: the weights, with features.json beside them',
    },
    out: {
      type: 'string',
      required: true,
      placeholder: 'F',
      help: 'output file (model.onnx, model.safetensors); safetensors also writes features.json in the same folder',
    },
    json: { type: 'boolean', help: 'print {format, out, bytes, features} as one JSON object on the last stdout line' },
  },
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Runs `snaptrain export`; resolves to the exit code (0 ok, 2 usage error or a model it cannot export). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  const out = resolve(f.out)
  let exported: ExportedModel
  try {
    if (f.format === 'safetensors' && basename(out) === 'features.json')
      throw new RangeError(`--out ${out}: features.json is the name of the file written beside the weights`)
    const path = resolve(f.model)
    const bytes = readModel(path)
    try {
      exported = await exportModelFile(bytes, f.format, `--model ${path}`)
    } catch (e) {
      const msg = (e as Error).message
      throw new Error(msg.startsWith('--model') ? msg : `--model ${path}: ${msg}`)
    }
  } catch (e) {
    io.err(`snaptrain export: ${(e as Error).message}`)
    return 2
  }
  const files: Record<string, Uint8Array | string> = { [basename(out)]: exported.model }
  if (exported.features !== undefined) files['features.json'] = exported.features
  const [, features] = writeOutputs(dirname(out), files)
  io.err(`export: wrote ${out}${features ? ` and ${features}` : ''}`)
  if (f.json)
    io.out(JSON.stringify({ format: f.format, out, bytes: exported.model.length, ...(features ? { features } : {}) }))
  return 0
}

/** The bytes of the recommender model file at `path`; throws `--model <path>: …` for a missing file or a GBDT model. */
function readModel(path: string): Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array<ArrayBuffer>
  try {
    bytes = new Uint8Array(readFileSync(path))
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new Error(`--model ${path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
  }
  if (!isRecsysModel(bytes)) {
    const what = isGbdtModel(path) ? 'a GBDT (XGBoost) model' : 'not a recommender model file (no checkpoint header)'
    throw new Error(`--model ${path}: ${what}; export takes a recommender model.bin (snaptrain train --model recsys)`)
  }
  return bytes
}

/** True when `path` reads as an XGBoost model (JSON or UBJSON, model-file.ts), for the error message. */
function isGbdtModel(path: string): boolean {
  try {
    readModelFile(path, '--model')
    return true
  } catch {
    return false
  }
}
