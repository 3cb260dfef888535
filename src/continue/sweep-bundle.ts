/**
 * The continue bundle of a sweep: its best trial's model and manifest as a run's (bundle.ts), with
 * the source naming the sweep and the trial and the sweep's metric printed first. `snaptrain sweep`,
 * `snaptrain continue` on a sweep folder and the page's sweep result make it here.
 */
import { manifestJson, withContinueBundle, type RunFile } from '../run/artifacts.ts'
import type { RunManifest } from '../run/manifest.ts'
import type { SweepState, TrialArtifacts } from '../tune/types.ts'
import { continueBundle, type BundleInput, type ContinueEngine } from './bundle.ts'
import { familyOf } from '../models/registry.ts'

/**
 * What the bundle of `state`'s best trial is made from; `artifacts` are that trial's (GBDT: model
 * JSON text; recommender: base64 of model.bin). Throws naming the sweep when there is no best
 * trial, or it stored no model or manifest.
 */
export function sweepBundleInput(
  state: SweepState,
  artifacts: TrialArtifacts | undefined,
  engine?: ContinueEngine,
): BundleInput {
  const best = state.best
  if (!best) throw new RangeError(`sweep ${state.id}: no finished trial yet, nothing to continue`)
  if (!artifacts?.model) throw new RangeError(`sweep ${state.id}: trial ${best.trial} stored no model`)
  if (!artifacts.manifest) throw new RangeError(`sweep ${state.id}: trial ${best.trial} stored no manifest`)
  return {
    manifest: artifacts.manifest as RunManifest,
    model: familyOf(state.config.model).textModel ? artifacts.model : fromBase64(artifacts.model),
    source: { kind: 'sweep', sweep_id: state.id, trial: best.trial },
    ...(state.config.metric ? { metric: state.config.metric } : {}),
    ...(engine ? { engine } : {}),
  }
}

/** The bundle's files of a sweep's best trial, named `continue/<name>` (bundle.ts continueBundle). */
export function sweepBundleFiles(state: SweepState, artifacts: TrialArtifacts | undefined): RunFile[] {
  return continueBundle(sweepBundleInput(state, artifacts))
}

/**
 * The best trial's manifest.json, linked to its bundle (`continue`), and the bundle's files — what
 * `snaptrain sweep` writes beside the best model. A bundle that cannot be made gives no files and
 * the reason in the manifest's `continue_error` (and `error`); the rest of the sweep is written.
 */
export function sweepBestFiles(
  state: SweepState,
  artifacts: TrialArtifacts,
): { manifest: string; bundle: RunFile[]; error?: string } {
  const { manifest, bundle, error } = withContinueBundle(sweepBundleInput(state, artifacts))
  return { manifest: manifestJson(manifest), bundle, ...(error ? { error } : {}) }
}

/** base64 → bytes (a recommender trial's model is stored as base64). */
export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}
