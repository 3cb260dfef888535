/**
 * The recommender's files of a continue bundle (spec.ts), from its model file (model.bin, a
 * checkpoint): features.json and model.safetensors (models/recsys/safetensors.ts, what `snaptrain
 * export --format safetensors` writes), optimizer.safetensors (the Adam moments, Adagrad
 * accumulators or row-wise Adam state and the steps), all from models/recsys/export.ts continueExport, and
 * the PyTorch DDP job torch_ddp.py (torch-ddp.ts). Pure: the CLI and the page both call it.
 */
import { continueExport } from '../models/recsys/export.ts'
import type { ContinueSpec } from './spec.ts'
import { familyOf } from '../models/registry.ts'
import { TORCH_DDP_JOB, torchDdpJob } from './torch-ddp.ts'

/** The recommender's file names in a bundle (continue.json `files`: features, weights, optimizer, jobs). */
export const RECSYS_FILES = {
  features: 'features.json',
  weights: 'model.safetensors',
  optimizer: 'optimizer.safetensors',
  jobs: [TORCH_DDP_JOB],
} as const

/**
 * The recommender's bundle files of `checkpointBytes` (model.bin) for `spec`, named as
 * spec.files names them (RECSYS_FILES where it names none). Throws naming model.bin when the bytes
 * are not a recommender checkpoint, RangeError for a spec of another family.
 */
export function recsysContinueFiles(
  checkpointBytes: Uint8Array,
  spec: ContinueSpec,
): Array<{ name: string; data: string | Uint8Array }> {
  if (familyOf(spec.family).continue.layout !== 'torch')
    throw new RangeError(`continue bundle: a ${spec.family} spec has no recommender files`)
  const x = continueExport(checkpointBytes, 'model.bin').files()
  return [
    { name: spec.files.features ?? RECSYS_FILES.features, data: x.features },
    { name: spec.files.weights ?? RECSYS_FILES.weights, data: x.weights },
    { name: spec.files.optimizer ?? RECSYS_FILES.optimizer, data: x.optimizer },
    { name: TORCH_DDP_JOB, data: torchDdpJob(spec) },
  ]
}
