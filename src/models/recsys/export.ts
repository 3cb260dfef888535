/**
 * The recommender's model file (model.bin, a checkpoint) in the formats that leave snaptrain:
 * ONNX (onnx.ts: the whole scoring path from raw values) and safetensors + features.json
 * (safetensors.ts: weights and feature pipeline for PyTorch). One place turns a checkpoint into
 * those files, for `snaptrain export`, `snaptrain train` (model.onnx beside model.bin) and the
 * page's downloads.
 */
import { decodeCheckpoint, type Checkpoint } from './checkpoint.ts'
import { encodeSafetensors, featuresJson } from './safetensors.ts'

/** What a checkpoint exports to. */
export type ExportFormat = 'onnx' | 'safetensors'

/** The export formats, in help order. */
export const EXPORT_FORMATS: readonly ExportFormat[] = ['onnx', 'safetensors']

/** One export: the model file and, for safetensors, features.json (written beside it). */
export interface ExportedModel {
  model: Uint8Array
  /** features.json text (safetensors only). */
  features?: string
}

/** `ck` as `format` (the ONNX encoder loads on first use); throws RangeError naming an unknown format. */
export async function exportModel(ck: Checkpoint, format: ExportFormat): Promise<ExportedModel> {
  if (format === 'onnx') return { model: (await import('./onnx.ts')).encodeOnnx(ck) }
  if (format === 'safetensors')
    return { model: encodeSafetensors(ck), features: `${JSON.stringify(featuresJson(ck), null, 2)}\n` }
  throw new RangeError(`export format '${format}': unknown (known: ${EXPORT_FORMATS.join(', ')})`)
}

/**
 * A recommender model file (model.bin bytes) as `format`; throws naming `source` for a file that is
 * not a checkpoint, RangeError naming an unknown format.
 */
export function exportModelFile(bytes: Uint8Array, format: ExportFormat, source = 'model.bin'): Promise<ExportedModel> {
  return exportModel(decodeCheckpoint(bytes, source), format)
}

/** The files a training run writes beside model.bin: model.onnx. */
export async function runExports(model: Uint8Array): Promise<Record<string, Uint8Array>> {
  return { 'model.onnx': (await exportModelFile(model, 'onnx')).model }
}
