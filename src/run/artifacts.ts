/**
 * A run's files, as bytes: the model file (XGBoost JSON or UBJSON, the recommender's model.bin),
 * manifest.json, metrics.csv and the continue bundle (continue/*, src/continue/bundle.ts). The one
 * serialiser of a run: `snaptrain train` writes these files and the page offers the same ones as
 * downloads, so a run trained either way gives the same bytes (wall-clock fields aside).
 */
import type { RunResult } from './config.ts'
import { metricsCsv, type RunManifest } from './manifest.ts'
import { CONTINUE_LINK, continueBundle, type BundleInput } from '../continue/bundle.ts'

/** One file of a run: its name in a run's folder (`continue/…` inside the bundle's folder) and its contents. */
export interface RunFile {
  name: string
  data: string | Uint8Array<ArrayBuffer>
}

/** manifest.json's text: two-space JSON and a final newline. */
export function manifestJson(manifest: RunManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`
}

/**
 * The manifest linked to its continue bundle, and the bundle's files: `continue` names the
 * bundle's continue.json; a bundle that cannot be made (a model without feature names, a manifest
 * without a pinned version) gives no files and the reason in `continue_error`, losing nothing else.
 */
export function withContinueBundle(input: BundleInput): { manifest: RunManifest; bundle: RunFile[]; error?: string } {
  const { continue: _link, continue_error: _error, ...manifest } = input.manifest
  try {
    const bundle = continueBundle({ ...input, manifest })
    return { manifest: { ...manifest, continue: CONTINUE_LINK }, bundle }
  } catch (e) {
    const error = (e as Error).message
    return { manifest: { ...manifest, continue_error: error }, bundle: [], error }
  }
}

/**
 * The run's files, model first: `modelFile` (the family's name for it, e.g. model.json, model.bin),
 * manifest.json (linked to the bundle), metrics.csv, then the continue bundle's files
 * (continue/continue.json first). A binary model is copied into a fresh Uint8Array (one that
 * crossed page.evaluate may be a view of another buffer).
 */
export function runFiles(modelFile: string, run: Pick<RunResult, 'model' | 'manifest' | 'metrics'>): RunFile[] {
  const model = typeof run.model === 'string' ? run.model : new Uint8Array(run.model)
  const { manifest, bundle } = withContinueBundle({ manifest: run.manifest as RunManifest, model })
  return [
    { name: modelFile, data: model },
    { name: 'manifest.json', data: manifestJson(manifest) },
    { name: 'metrics.csv', data: metricsCsv(run.metrics) },
    ...bundle,
  ]
}
