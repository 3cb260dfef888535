/**
 * The recommender's model file (model.bin, a checkpoint) in the formats that leave snaptrain:
 * ONNX (onnx.ts: the whole scoring path from raw values) and safetensors + features.json
 * (safetensors.ts: weights and feature pipeline for PyTorch). One place turns a checkpoint into
 * those files, for `snaptrain export`, `snaptrain train` (model.onnx beside model.bin) and the
 * page's downloads.
 */
import { decodeCheckpoint, type Checkpoint } from './checkpoint.ts'
import { encodeOptimizerSafetensors } from './optimizer-safetensors.ts'
import { encodeSafetensors, featuresJsonText } from './safetensors.ts'

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
  if (format === 'safetensors') return { model: encodeSafetensors(ck), features: featuresJsonText(ck) }
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

/**
 * What a continue bundle (src/continue/) needs of a recommender model file: its inputs by kind in
 * the model's input order (sparse, bags, dense, lists), the optimizer step and epoch reached, and,
 * encoded only when asked for (the bundle's description needs none of them), the PyTorch files —
 * features.json, the weights and the optimizer state as safetensors (optimizer-safetensors.ts).
 * Throws naming `source` for a file that is not a checkpoint.
 */
export interface ContinueExport {
  inputs: Array<{ name: string; kind: 'sparse' | 'bag' | 'dense' | 'list' }>
  step: number
  epoch: number
  files(): { features: string; weights: Uint8Array; optimizer: Uint8Array }
}

export function continueExport(bytes: Uint8Array, source = 'model.bin'): ContinueExport {
  const ck = decodeCheckpoint(bytes, source)
  const l = ck.layout
  return {
    inputs: [
      ...l.sparse.map(x => ({ name: x.name, kind: 'sparse' as const })),
      ...(l.bags ?? []).map(x => ({ name: x.name, kind: 'bag' as const })),
      ...l.dense.map(x => ({ name: x.name, kind: 'dense' as const })),
      ...l.lists.map(x => ({ name: x.name, kind: 'list' as const })),
    ],
    step: ck.state.opt.step,
    epoch: ck.loop.epoch,
    files: () => ({
      features: featuresJsonText(ck),
      weights: encodeSafetensors(ck),
      optimizer: encodeOptimizerSafetensors(ck),
    }),
  }
}
