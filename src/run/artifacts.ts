/**
 * A run's files, as bytes: the model file (XGBoost JSON or UBJSON, the recommender's model.bin),
 * manifest.json and metrics.csv. The one serialiser of a run: `snaptrain train` writes these
 * files and the page offers the same ones as downloads, so a run trained either way gives the
 * same bytes (wall-clock fields aside).
 */
import type { RunResult } from './config.ts'
import { metricsCsv, type RunManifest } from './manifest.ts'

/** One file of a run: its name in a run's folder and its contents. */
export interface RunFile {
  name: string
  data: string | Uint8Array<ArrayBuffer>
}

/** manifest.json's text: two-space JSON and a final newline. */
export function manifestJson(manifest: RunManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`
}

/**
 * The run's files, model first: `modelFile` (the family's name for it, e.g. model.json, model.bin),
 * manifest.json, metrics.csv. A binary model is copied into a fresh Uint8Array (one that crossed
 * page.evaluate may be a view of another buffer).
 */
export function runFiles(modelFile: string, run: Pick<RunResult, 'model' | 'manifest' | 'metrics'>): RunFile[] {
  return [
    { name: modelFile, data: typeof run.model === 'string' ? run.model : new Uint8Array(run.model) },
    { name: 'manifest.json', data: manifestJson(run.manifest) },
    { name: 'metrics.csv', data: metricsCsv(run.metrics) },
  ]
}
